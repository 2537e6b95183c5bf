package sqlfunc

import (
	"fmt"
	"logq/expr"
	"logq/types"
	"math"
	"strings"
	"unicode/utf8"
)

// registerOperators defines the operators (comparisons, arithmetic, logic,
// IS, LIKE, CAST) and the conditional and core string functions the
// binder reaches by syntax or by name.
func registerOperators() {
	// ERROR(message): an evaluation error with that text where a row
	// reaches it; its type is whatever its place needs (an untyped NULL's).
	expr.Register("error", def(1, 1, checkError, evalError, true)).NoFold = true
	for name, f := range map[string]*expr.Func{
		"=":  def(2, 2, cmp, cmpEval(func(r int) bool { return r == 0 }), false),
		"!=": def(2, 2, cmp, cmpEval(func(r int) bool { return r != 0 }), false),
		"<":  def(2, 2, cmp, cmpEval(func(r int) bool { return r < 0 }), false),
		"<=": def(2, 2, cmp, cmpEval(func(r int) bool { return r <= 0 }), false),
		">":  def(2, 2, cmp, cmpEval(func(r int) bool { return r > 0 }), false),
		">=": def(2, 2, cmp, cmpEval(func(r int) bool { return r >= 0 }), false),
		"+":  def(2, 2, arith, arithEval, false),
		"-":  def(2, 2, arith, arithEval, false),
		"*":  def(2, 2, arith, arithEval, false),
		"/":  def(2, 2, arith, arithEval, false),
		// x IS DISTINCT FROM y: NULLs are alike, and so are NaNs, as
		// GROUP BY and DISTINCT take them; never NULL.
		"is_distinct_from": def(2, 2, cmp, evalIsDistinctFrom, true),
		// x IN UNNEST(array): FALSE for an empty or NULL array, else NULL
		// for a NULL x, TRUE when an element equals x, else NULL when an
		// element is NULL, else FALSE (IN's three-valued logic).
		"in_unnest":     def(2, 2, checkInUnnest, evalInUnnest, true),
		"safe_add":      def(2, 2, arith, safeArith("+", arithEval), false),
		"safe_subtract": def(2, 2, arith, safeArith("-", arithEval), false),
		"safe_multiply": def(2, 2, arith, safeArith("*", arithEval), false),
		"neg":           def(1, 1, arith, evalNeg, false),
		// SAFE_NEGATE(x): -x, NULL where that overflows (INT64's smallest).
		"safe_negate": def(1, 1, arith, safeArith("neg", evalNeg), false),
		// a || b is CONCAT(a, b), and ARRAY_CONCAT(a, b) for arrays.
		"||":              def(2, 2, checkConcatOp, evalConcatOp, false),
		"and":             def(2, 2, boolArgs, evalAnd, true),
		"or":              def(2, 2, boolArgs, evalOr, true),
		"not":             def(1, 1, boolArgs, evalNot, false),
		"is_null":         def(1, 1, checkIsNull, evalIsNull, true),
		"is_true":         def(1, 1, boolArgs, evalIsTrue, true),
		"is_false":        def(1, 1, boolArgs, evalIsFalse, true),
		"like":            def(2, 2, constLikePattern(sig(types.KindString, types.KindString, types.KindBool)), evalLike, false),
		"coalesce":        def(1, -1, same, evalCoalesce, true),
		"if":              def(3, 3, checkIf, evalIf, true),
		"nullif":          def(2, 2, checkNullif, evalNullif, true),
		"cast":            def(1, 1, nil, evalCast, false),
		"regexp_contains": def(2, 2, constPattern(sig(types.KindString, types.KindString, types.KindBool)), evalRegexpContains, false),
		// LOWER and UPPER of BYTES map only the ASCII letters.
		"lower": def(1, 1, textSig(), evalLower, false),
		"upper": def(1, 1, textSig(), evalUpper, false),
		// LENGTH counts characters of a STRING and bytes of a BYTES.
		"length":       def(1, 1, stringOrBytes(types.Int64), evalLength, false),
		"byte_length":  def(1, 1, stringOrBytes(types.Int64), evalByteLength, false),
		"concat":       def(1, -1, concatArgs, evalConcat, false),
		"starts_with":  def(2, 2, textBool, evalStartsWith, false),
		"ends_with":    def(2, 2, textBool, evalEndsWith, false),
		"strpos":       def(2, 2, checkStrpos, evalStrpos, false),
		"abs":          def(1, 1, checkAbs, evalAbs, false),
		"array_length": def(1, 1, checkArrayLength, evalArrayLength, false),
	} {
		expr.Register(name, f)
	}
	expr.Alias("ifnull", "coalesce")
	expr.Registered("and").Simplify = simplifyLogic
	expr.Registered("or").Simplify = simplifyLogic
	expr.Registered("coalesce").Simplify = func(c *expr.Call) expr.Expr {
		var args []expr.Expr
		for _, a := range c.Args {
			if k, ok := expr.ConstArg(a); ok {
				if k.V.Null {
					continue
				}
				if len(args) == 0 {
					return a
				}
				args = append(args, a)
				break
			}
			args = append(args, a)
		}
		switch len(args) {
		case 0:
			return &expr.Const{V: types.NullOf(c.T)}
		case 1:
			return args[0]
		}
		c.Args = args
		return c
	}
	expr.Registered("if").Simplify = func(c *expr.Call) expr.Expr {
		if k, ok := expr.ConstArg(c.Args[0]); ok {
			if k.V.Bool() {
				return c.Args[1]
			}
			return c.Args[2]
		}
		return c
	}
	expr.Registered("cast").Simplify = func(c *expr.Call) expr.Expr {
		if c.Args[0].Type().Equal(c.T) {
			return c.Args[0]
		}
		return c
	}
}

func evalIsDistinctFrom(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Null || a[1].Null {
		return types.BoolValue(a[0].Null != a[1].Null), nil
	}
	if isNaN(a[0]) || isNaN(a[1]) {
		return types.BoolValue(isNaN(a[0]) != isNaN(a[1])), nil
	}
	r, ok := types.Compare(a[0], a[1])
	if !ok {
		return types.Value{}, expr.EvalErr("cannot compare %s with %s", a[0].T, a[1].T)
	}
	return types.BoolValue(r != 0), nil
}

func checkInUnnest(c *expr.Call) (types.Type, error) {
	at := c.Args[1].Type()
	if at.Kind == types.KindNull {
		return types.Bool, nil
	}
	if at.Kind != types.KindArray {
		return types.Type{}, fmt.Errorf("IN UNNEST needs an ARRAY, not %s", at)
	}
	x, err := expr.CoerceTo(c.Args[0], *at.Elem)
	if err != nil {
		return types.Type{}, fmt.Errorf("IN UNNEST: a %s is not compared with elements of %s", c.Args[0].Type(), at)
	}
	if at.Elem.Has(types.KindJSON) {
		return types.Type{}, fmt.Errorf("IN UNNEST is not defined for %s (JSON has no equality)", at.Elem)
	}
	c.Args[0] = x
	return types.Bool, nil
}

func evalInUnnest(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[1].Null || len(a[1].L) == 0 {
		return types.BoolValue(false), nil
	}
	if a[0].Null {
		return types.NullOf(types.Bool), nil
	}
	sawNull := false
	for _, e := range a[1].L {
		if e.Null {
			sawNull = true
			continue
		}
		if isNaN(e) || isNaN(a[0]) {
			continue
		}
		if k := e.T.Kind; k == types.KindArray || k == types.KindStruct {
			eq, unknown := equalNested(a[0], e) // a NULL field makes = unknown
			if eq {
				return types.BoolValue(true), nil
			}
			sawNull = sawNull || unknown
			continue
		}
		if r, ok := types.Compare(a[0], e); ok && r == 0 {
			return types.BoolValue(true), nil
		}
	}
	if sawNull {
		return types.NullOf(types.Bool), nil
	}
	return types.BoolValue(false), nil
}

func evalNeg(c *expr.Call, a []types.Value) (types.Value, error) {
	if c.T.Kind == types.KindInt64 {
		if a[0].I == math.MinInt64 {
			return types.Value{}, expr.EvalErr("integer overflow")
		}
		return types.IntValue(-a[0].I), nil
	}
	return types.FloatValue(-a[0].F), nil
}

func checkConcatOp(c *expr.Call) (types.Type, error) {
	for _, a := range c.Args {
		if a.Type().Kind == types.KindArray {
			return expr.Registered("array_concat").Check(c)
		}
	}
	return concatArgs(c)
}

func evalConcatOp(c *expr.Call, a []types.Value) (types.Value, error) {
	if c.T.Kind == types.KindArray {
		return expr.Registered("array_concat").Eval(c, a)
	}
	return types.Value{T: c.T, S: a[0].S + a[1].S}, nil
}

func evalAnd(c *expr.Call, a []types.Value) (types.Value, error) {
	if (!a[0].Null && a[0].I == 0) || (!a[1].Null && a[1].I == 0) {
		return types.BoolValue(false), nil
	}
	if a[0].Null || a[1].Null {
		return types.NullOf(types.Bool), nil
	}
	return types.BoolValue(true), nil
}

func evalOr(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Bool() || a[1].Bool() {
		return types.BoolValue(true), nil
	}
	if a[0].Null || a[1].Null {
		return types.NullOf(types.Bool), nil
	}
	return types.BoolValue(false), nil
}

func evalNot(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(a[0].I == 0), nil
}

func checkIsNull(c *expr.Call) (types.Type, error) { return types.Bool, nil }

func evalIsNull(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(a[0].Null), nil
}

func evalIsTrue(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(a[0].Bool()), nil
}

func evalIsFalse(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(!a[0].Null && a[0].I == 0), nil
}

func evalLike(c *expr.Call, a []types.Value) (types.Value, error) {
	match, err := LikeMatcher(a[1].S)
	if err != nil {
		return types.Value{}, err
	}
	return types.BoolValue(match(a[0].S)), nil
}

func evalCoalesce(c *expr.Call, a []types.Value) (types.Value, error) {
	for _, v := range a {
		if !v.Null {
			return v, nil
		}
	}
	return types.NullOf(c.T), nil
}

func checkIf(c *expr.Call) (types.Type, error) {
	cond, err := expr.CoerceTo(c.Args[0], types.Bool)
	if err != nil {
		return types.Type{}, fmt.Errorf("condition of IF: %w", err)
	}
	c.Args[0] = cond
	rest := c.Args[1:]
	if err := expr.Unify(c, rest); err != nil {
		return types.Type{}, err
	}
	if rest[0].Type().Kind != types.KindNull {
		return rest[0].Type(), nil
	}
	return rest[1].Type(), nil
}

func evalIf(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Bool() {
		return a[1], nil
	}
	return a[2], nil
}

func checkNullif(c *expr.Call) (types.Type, error) {
	t, err := same(c)
	if err == nil && t.Has(types.KindJSON) {
		err = fmt.Errorf("NULLIF is not defined for %s (JSON has no equality)", t)
	}
	return t, err
}

func evalNullif(c *expr.Call, a []types.Value) (types.Value, error) {
	// NULL only where x = y is TRUE: not for NaN, nor for
	// STRUCTs whose = is NULL
	if eq, _ := sqlEqual(a[0], a[1]); eq {
		return types.NullOf(c.T), nil
	}
	return a[0], nil
}

func evalCast(c *expr.Call, a []types.Value) (types.Value, error) {
	v, err := types.Cast(a[0], c.T)
	if err == nil {
		v, err = expr.InRange(v) // '9999-12-31 23:30:00-01:00' is past 9999 in UTC
	}
	if err != nil && c.Safe {
		return types.NullOf(c.T), nil
	}
	return v, err
}

func evalRegexpContains(c *expr.Call, a []types.Value) (types.Value, error) {
	re, err := CompileRegexp(a[1].S)
	if err != nil {
		return types.Value{}, err
	}
	return types.BoolValue(re.MatchString(a[0].S)), nil
}

func evalLower(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].T.Kind == types.KindBytes {
		return types.Value{T: types.Bytes, S: asciiCase(a[0].S, 'A', 'Z', 'a'-'A')}, nil
	}
	return types.StringValue(fullLower(a[0].S)), nil
}

func evalUpper(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].T.Kind == types.KindBytes {
		return types.Value{T: types.Bytes, S: asciiCase(a[0].S, 'a', 'z', 'A'-'a')}, nil
	}
	return types.StringValue(fullUpper(a[0].S)), nil
}

func evalLength(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].T.Kind == types.KindBytes {
		return types.IntValue(int64(len(a[0].S))), nil
	}
	return types.IntValue(int64(utf8.RuneCountInString(a[0].S))), nil
}

func evalByteLength(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.IntValue(int64(len(a[0].S))), nil
}

func evalConcat(c *expr.Call, a []types.Value) (types.Value, error) {
	var b strings.Builder
	for _, v := range a {
		b.WriteString(v.S)
	}
	return types.Value{T: c.T, S: b.String()}, nil
}

func evalStartsWith(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(strings.HasPrefix(a[0].S, a[1].S)), nil
}

func evalEndsWith(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.BoolValue(strings.HasSuffix(a[0].S, a[1].S)), nil
}

func checkStrpos(c *expr.Call) (types.Type, error) {
	if _, err := textSig(types.KindString)(c); err != nil {
		return types.Type{}, err
	}
	return types.Int64, nil
}

func evalStrpos(c *expr.Call, a []types.Value) (types.Value, error) {
	i := strings.Index(a[0].S, a[1].S)
	switch {
	case i < 0:
		return types.IntValue(0), nil
	case a[0].T.Kind == types.KindBytes: // bytes count in bytes
		return types.IntValue(int64(i) + 1), nil
	}
	return types.IntValue(int64(len([]rune(a[0].S[:i]))) + 1), nil
}

func checkAbs(c *expr.Call) (types.Type, error) { return numeric1(c) }

func evalAbs(c *expr.Call, a []types.Value) (types.Value, error) {
	if c.T.Kind == types.KindInt64 {
		if a[0].I == math.MinInt64 { // its absolute value is no INT64
			return types.Value{}, expr.EvalErr("integer overflow: ABS(%d)", a[0].I)
		}
		if a[0].I < 0 {
			return types.IntValue(-a[0].I), nil
		}
		return a[0], nil
	}
	return types.FloatValue(math.Abs(a[0].F)), nil
}

func checkArrayLength(c *expr.Call) (types.Type, error) {
	if k := c.Args[0].Type().Kind; k != types.KindArray && k != types.KindNull {
		return types.Type{}, fmt.Errorf("ARRAY_LENGTH needs an array, not %s", c.Args[0].Type())
	}
	return types.Int64, nil
}

func evalArrayLength(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.IntValue(int64(len(a[0].L))), nil
}

func cmp(c *expr.Call) (types.Type, error) {
	if err := expr.Unify(c, c.Args); err != nil {
		return types.Type{}, err
	}
	if t := c.Args[0].Type(); t.Has(types.KindJSON) {
		return types.Type{}, fmt.Errorf("%s is not defined for %s (JSON has no equality or order)", c.Fn, t)
	}
	if t := c.Args[0].Type(); (t.Kind == types.KindArray || t.Kind == types.KindStruct) && c.Fn != "=" && c.Fn != "!=" && c.Fn != "is_distinct_from" {
		return types.Type{}, fmt.Errorf("%s is not defined for %s: arrays and structs compare only with = and !=", c.Fn, t)
	}
	return types.Bool, nil
}

// A comparison with NaN is FALSE, but != which is TRUE, as in
// BigQuery (and IEEE 754); types.Compare orders NaN first, for sorting.
func cmpEval(test func(int) bool) func(*expr.Call, []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		if isNaN(a[0]) || isNaN(a[1]) {
			return types.BoolValue(c.Fn == "!="), nil
		}
		if k := a[0].T.Kind; (k == types.KindArray || k == types.KindStruct) && (c.Fn == "=" || c.Fn == "!=") {
			eq, unknown := equalNested(a[0], a[1])
			if unknown {
				return types.NullOf(types.Bool), nil
			}
			return types.BoolValue(eq == (c.Fn == "=")), nil
		}
		r, ok := types.Compare(a[0], a[1])
		if !ok {
			return types.Value{}, expr.EvalErr("cannot compare %s with %s", a[0].T, a[1].T)
		}
		return types.BoolValue(test(r)), nil
	}
}

func arith(c *expr.Call) (types.Type, error) {
	for _, a := range c.Args {
		if k := a.Type().Kind; k != types.KindNull && !a.Type().IsNumeric() {
			return types.Type{}, fmt.Errorf("operator %s needs numbers, not %s", c.Fn, a.Type())
		}
	}
	if c.Fn == "/" {
		return types.Float64, nil
	}
	for _, a := range c.Args {
		if a.Type().Kind == types.KindFloat64 {
			return types.Float64, nil
		}
	}
	return types.Int64, nil
}

func arithEval(c *expr.Call, a []types.Value) (types.Value, error) {
	if c.T.Kind == types.KindInt64 {
		return intArith(c.Fn, a[0].I, a[1].I)
	}
	return floatArith(c.Fn, a[0].Float(), a[1].Float())
}

func boolArgs(c *expr.Call) (types.Type, error) {
	for i := range c.Args {
		a, err := expr.CoerceTo(c.Args[i], types.Bool)
		if err != nil {
			return types.Type{}, fmt.Errorf("operand of %s: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[i] = a
	}
	return types.Bool, nil
}

func same(c *expr.Call) (types.Type, error) {
	if err := expr.Unify(c, c.Args); err != nil {
		return types.Type{}, err
	}
	for _, a := range c.Args {
		if a.Type().Kind != types.KindNull {
			return a.Type(), nil
		}
	}
	return types.Null, nil
}

// STRING or BYTES, and the same again: a BOOL.
func textBool(c *expr.Call) (types.Type, error) {
	if _, err := textSig(types.KindString)(c); err != nil {
		return types.Type{}, err
	}
	return types.Bool, nil
}

func checkError(c *expr.Call) (types.Type, error) {
	m, err := expr.CoerceTo(c.Args[0], types.String)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 1 of ERROR: %w", err)
	}
	c.Args[0] = m
	return types.Null, nil
}

func evalError(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Null {
		return types.Value{}, expr.EvalErr("ERROR(NULL)")
	}
	return types.Value{}, expr.EvalErr("%s", a[0].S)
}

// simplifyLogic: TRUE decides OR, FALSE decides AND; TRUE AND x = x, FALSE
// OR x = x.
func simplifyLogic(c *expr.Call) expr.Expr {
	decisive := c.Fn == "or"
	for i, a := range c.Args {
		k, ok := expr.ConstArg(a)
		if !ok || k.V.Null {
			continue
		}
		if k.V.Bool() == decisive {
			return &expr.Const{V: types.BoolValue(decisive)}
		}
		other := c.Args[1-i]
		if other.Type().Kind == types.KindBool {
			return other
		}
	}
	return c
}

// constPattern validates a constant regular expression when the query is
// planned, so a bad pattern fails whether or not any row reaches it.
func constPattern(check func(*expr.Call) (types.Type, error)) func(*expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		t, err := check(c)
		if err != nil {
			return t, err
		}
		if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null {
			if _, err := CompileRegexp(k.V.S); err != nil {
				if k.Param != "" {
					return t, &expr.ParamError{Param: k.Param, Msg: fmt.Sprintf("value %q is not a valid regular expression: %v", k.V.S, err), Err: err}
				}
				return t, err
			}
		}
		return t, nil
	}
}

// isNaN reports whether v is a FLOAT64 NaN.
func isNaN(v types.Value) bool { return v.T.Kind == types.KindFloat64 && !v.Null && math.IsNaN(v.F) }

// intArith is x op y of INT64s: an overflow is an error, as in BigQuery.
func intArith(op string, x, y int64) (types.Value, error) {
	switch op {
	case "+":
		if r := x + y; (r > x) == (y > 0) {
			return types.IntValue(r), nil
		}
	case "-":
		if r := x - y; (r < x) == (y > 0) {
			return types.IntValue(r), nil
		}
	case "*":
		if x == 0 || y == 0 {
			return types.IntValue(0), nil
		}
		if r := x * y; r/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64) {
			return types.IntValue(r), nil
		}
	}
	return types.Value{}, expr.EvalErr("integer overflow: %d %s %d", x, op, y)
}

// floatArith is x op y of FLOAT64s. Division by zero is an error, and so is
// a result past FLOAT64's range from finite operands ("floating point
// overflow"); infinite or NaN operands give IEEE's answer.
func floatArith(op string, x, y float64) (types.Value, error) {
	var r float64
	switch op {
	case "+":
		r = x + y
	case "-":
		r = x - y
	case "*":
		r = x * y
	default:
		if y == 0 {
			return types.Value{}, expr.EvalErr("division by zero: %v / %v", x, y)
		}
		r = x / y
	}
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return types.Value{}, expr.EvalErr("floating point overflow: %v %s %v", x, op, y)
	}
	return types.FloatValue(r), nil
}

// safeArith is SAFE_ADD and its kin: the operator, with NULL for an error.
func safeArith(op string, eval func(*expr.Call, []types.Value) (types.Value, error)) func(*expr.Call, []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		v, err := eval(&expr.Call{Fn: op, Args: c.Args, T: c.T}, a)
		if err != nil {
			return types.NullOf(c.T), nil
		}
		return v, nil
	}
}

// stringOrBytes types a call of one STRING or BYTES argument (a NULL or a
// parameter's STRING is a STRING) returning ret.
func stringOrBytes(ret types.Type) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		if c.Args[0].Type().Kind == types.KindBytes {
			return ret, nil
		}
		a, err := expr.CoerceTo(c.Args[0], types.String)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 1 of %s: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[0] = a
		return ret, nil
	}
}

// sqlEqual is x = y in three-valued logic: unknown (NULL) when a side is
// NULL, FALSE when a side is NaN, element by element for ARRAYs and
// STRUCTs (equalNested).
func sqlEqual(x, y types.Value) (eq, unknown bool) {
	switch {
	case x.Null || y.Null:
		return false, true
	case isNaN(x) || isNaN(y):
		return false, false
	case x.T.Kind == types.KindArray || x.T.Kind == types.KindStruct:
		return equalNested(x, y)
	}
	r, ok := types.Compare(x, y)
	return ok && r == 0, false
}

// equalNested is = of two ARRAYs or STRUCTs with three-valued logic: FALSE
// when arrays differ in length or two elements (fields) differ, else
// unknown (NULL) when one pair holds a NULL, else TRUE. ([1, NULL] =
// [1, NULL] is NULL, [1, NULL] = [2, NULL] FALSE.)
func equalNested(a, b types.Value) (eq, unknown bool) {
	if len(a.L) != len(b.L) {
		return false, false
	}
	for i := range a.L {
		e, u := sqlEqual(a.L[i], b.L[i])
		if !e && !u {
			return false, false
		}
		unknown = unknown || u
	}
	return !unknown, unknown
}

// concatArgs types CONCAT's (and ||'s) arguments as BigQuery does: all
// BYTES, for a BYTES result; else STRINGs, with every other value that
// casts to STRING cast (CONCAT('Summer ', 1923) is 'Summer 1923').
func concatArgs(c *expr.Call) (types.Type, error) {
	t := types.String
	for _, a := range c.Args {
		if a.Type().Kind == types.KindBytes {
			t = types.Bytes
		}
	}
	for i, a := range c.Args {
		k := a.Type().Kind
		if t.Kind == types.KindBytes || k == types.KindString || k == types.KindNull || !castsToString[k] {
			x, err := expr.CoerceTo(a, t)
			if err != nil {
				return t, fmt.Errorf("argument %d of %s: %w", i+1, expr.DescribeFn(c.Fn), err)
			}
			c.Args[i] = x
			continue
		}
		x, err := expr.Fold(&expr.Call{Fn: "cast", Args: []expr.Expr{a}, T: types.String})
		if err != nil {
			return t, fmt.Errorf("argument %d of %s: %w", i+1, expr.DescribeFn(c.Fn), err)
		}
		c.Args[i] = x
	}
	return t, nil
}

// castsToString are the kinds CONCAT casts to STRING.
var castsToString = map[types.Kind]bool{
	types.KindBool: true, types.KindInt64: true, types.KindFloat64: true, types.KindNumeric: true, types.KindBigNumeric: true,
	types.KindDate: true, types.KindDatetime: true, types.KindTime: true, types.KindTimestamp: true, types.KindInterval: true,
}

// asciiCase shifts the bytes from lo to hi by d: the ASCII case mapping
// of LOWER and UPPER of BYTES.
func asciiCase(s string, lo, hi byte, d int) string {
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			b[i] = byte(int(c) + d)
		}
	}
	return string(b)
}

func numeric1(c *expr.Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind == types.KindNull {
		return types.Int64, nil
	}
	if !t.IsNumeric() {
		return types.Type{}, fmt.Errorf("%s needs a number, not %s", strings.ToUpper(c.Fn), t)
	}
	return t, nil
}

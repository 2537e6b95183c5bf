package planner

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"logq/types"
)

// Func is the one definition of a scalar function or operator: its name,
// argument count, how its arguments are typed (and coerced) and its result
// type (Check), how it evaluates one row of boxed values (Eval, which is
// also its constant folding and the executor's row-at-a-time kernel), its
// NULL behaviour (NullSafe) and any algebraic simplification beyond
// evaluating constants (Simplify). It is registered once, under its name,
// by register; the binder, the folder (fold.go) and the executor all look
// it up there. The executor may attach a vectorised kernel to a registered
// name (exec/kernels.go); registering a kernel for a name that is not here
// panics at start-up, so a misspelt name cannot silently fall back.
type Func struct {
	Name             string
	MinArgs, MaxArgs int // MaxArgs < 0: variadic
	// Check types the call, coercing arguments in place, and returns its
	// type. nil: the binder sets the call's type itself.
	Check func(c *Call) (types.Type, error)
	// Eval evaluates one row. Errors are evaluation errors (ErrEval); under
	// the SAFE. prefix they become NULL.
	Eval func(c *Call, args []types.Value) (types.Value, error)
	// NullSafe functions see NULL arguments; the others return NULL when any
	// argument is NULL, without calling Eval.
	NullSafe bool
	// Simplify, if set, rewrites a call whose value is not (yet) a constant,
	// e.g. TRUE AND x to x; it returns the call itself when nothing applies.
	Simplify func(c *Call) Expr
	// Internal: written as an operator or other syntax, never by name in
	// SQL (the binder refuses a call by name).
	Internal bool
}

func def(minArgs, maxArgs int, check func(*Call) (types.Type, error), eval func(*Call, []types.Value) (types.Value, error), nullSafe bool) *Func {
	return &Func{MinArgs: minArgs, MaxArgs: maxArgs, Check: check, Eval: eval, NullSafe: nullSafe}
}

var funcs = map[string]*Func{}

// internal names are written as operators or syntax (CAST, IS NULL, a[OFFSET
// (i)], STRUCT(…), a.b), never called by name.
var internal = map[string]bool{
	"=": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "+": true, "-": true,
	"*": true, "/": true, "neg": true, "||": true, "and": true, "or": true, "not": true,
	"is_null": true, "is_true": true, "is_false": true, "like": true, "cast": true,
	"offset": true, "safe_offset": true, "ordinal": true, "safe_ordinal": true,
	"field": true, "make_array": true, "make_struct": true,
	"extract_dayofweek": true, "extract_dayofyear": true, "extract_isoweek": true, "extract_isoyear": true,
	"extract_date": true,
}

// aliases maps a second name to a registered function (IFNULL → COALESCE).
var aliases = map[string]string{}

// register adds f under name; a name is registered once.
func register(name string, f *Func) *Func {
	if _, dup := funcs[name]; dup {
		panic("planner: function " + name + " registered twice")
	}
	if f.Eval == nil {
		panic("planner: function " + name + " has no Eval")
	}
	f.Name = name
	f.Internal = internal[name]
	funcs[name] = f
	return f
}

// alias makes name another spelling of the registered function target.
func alias(name, target string) {
	if funcs[target] == nil || funcs[name] != nil {
		panic("planner: bad alias " + name + " → " + target)
	}
	aliases[name] = target
}

// LookupFunc returns the registered function called name (lower case).
func LookupFunc(name string) *Func {
	if t, ok := aliases[name]; ok {
		name = t
	}
	return funcs[name]
}

// Funcs lists every registered scalar function and operator by name, and
// Aliases every alternative spelling, for tests and documentation.
func Funcs() map[string]*Func { return funcs }

// Aliases maps each alternative spelling to its function's name.
func Aliases() map[string]string { return aliases }

// ErrEval matches (errors.Is) every error raised while evaluating a function.
var ErrEval = errors.New("evaluation error")

// evalError is an evaluation failure; its text is the message alone.
type evalError struct{ msg string }

func (e *evalError) Error() string        { return e.msg }
func (e *evalError) Is(target error) bool { return target == ErrEval }

func evalErr(format string, args ...any) error {
	return &evalError{msg: fmt.Sprintf(format, args...)}
}

// EvalCall evaluates a call on boxed argument values. The executor uses it
// for functions without a vectorised kernel.
func EvalCall(c *Call, args []types.Value) (types.Value, error) {
	def := funcs[c.Fn]
	if def == nil {
		return types.Value{}, evalErr("unknown function %s", c.Fn)
	}
	if !def.NullSafe {
		for _, a := range args {
			if a.Null {
				return types.NullOf(c.T), nil
			}
		}
	}
	v, err := def.Eval(c, args)
	if err != nil {
		if c.Safe {
			return types.NullOf(c.T), nil // SAFE. prefix: an error is NULL
		}
		return types.Value{}, err
	}
	if !v.Null && v.T.Kind != c.T.Kind && c.T.Kind != types.KindNull {
		if cv, err := types.Cast(v, c.T); err == nil {
			return cv, nil
		}
	}
	if v.Null {
		v.T = c.T
	}
	return v, nil
}

func sig(kinds ...types.Kind) func(c *Call) (types.Type, error) {
	ret := kinds[len(kinds)-1]
	params := kinds[:len(kinds)-1]
	return func(c *Call) (types.Type, error) {
		for i := range c.Args {
			want := params[min(i, len(params)-1)]
			a, err := coerceTo(c.Args[i], types.Type{Kind: want})
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
			}
			c.Args[i] = a
		}
		return types.Type{Kind: ret}, nil
	}
}

func init() {
	cmp := func(c *Call) (types.Type, error) {
		if err := unify(c, c.Args); err != nil {
			return types.Type{}, err
		}
		return types.Bool, nil
	}
	cmpEval := func(test func(int) bool) func(*Call, []types.Value) (types.Value, error) {
		return func(c *Call, a []types.Value) (types.Value, error) {
			r, ok := types.Compare(a[0], a[1])
			if !ok {
				return types.Value{}, evalErr("cannot compare %s with %s", a[0].T, a[1].T)
			}
			return types.BoolValue(test(r)), nil
		}
	}
	arith := func(c *Call) (types.Type, error) {
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
	arithEval := func(c *Call, a []types.Value) (types.Value, error) {
		if c.T.Kind == types.KindInt64 {
			x, y := a[0].I, a[1].I
			switch c.Fn {
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
			return types.Value{}, evalErr("integer overflow: %d %s %d", x, c.Fn, y)
		}
		x, y := a[0].Float(), a[1].Float()
		switch c.Fn {
		case "+":
			return types.FloatValue(x + y), nil
		case "-":
			return types.FloatValue(x - y), nil
		case "*":
			return types.FloatValue(x * y), nil
		}
		if y == 0 {
			return types.Value{}, evalErr("division by zero: %s / %s", a[0], a[1])
		}
		return types.FloatValue(x / y), nil
	}
	boolArgs := func(c *Call) (types.Type, error) {
		for i := range c.Args {
			a, err := coerceTo(c.Args[i], types.Bool)
			if err != nil {
				return types.Type{}, fmt.Errorf("operand of %s: %w", strings.ToUpper(c.Fn), err)
			}
			c.Args[i] = a
		}
		return types.Bool, nil
	}
	same := func(c *Call) (types.Type, error) {
		if err := unify(c, c.Args); err != nil {
			return types.Type{}, err
		}
		for _, a := range c.Args {
			if a.Type().Kind != types.KindNull {
				return a.Type(), nil
			}
		}
		return types.Null, nil
	}
	for name, f := range map[string]*Func{
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
		"neg": def(1, 1, arith, func(c *Call, a []types.Value) (types.Value, error) {
			if c.T.Kind == types.KindInt64 {
				if a[0].I == math.MinInt64 {
					return types.Value{}, evalErr("integer overflow")
				}
				return types.IntValue(-a[0].I), nil
			}
			return types.FloatValue(-a[0].F), nil
		}, false),
		"||": def(2, 2, sig(types.KindString, types.KindString), func(c *Call, a []types.Value) (types.Value, error) {
			return types.StringValue(a[0].S + a[1].S), nil
		}, false),
		"and": def(2, 2, boolArgs, func(c *Call, a []types.Value) (types.Value, error) {
			if (!a[0].Null && a[0].I == 0) || (!a[1].Null && a[1].I == 0) {
				return types.BoolValue(false), nil
			}
			if a[0].Null || a[1].Null {
				return types.NullOf(types.Bool), nil
			}
			return types.BoolValue(true), nil
		}, true),
		"or": def(2, 2, boolArgs, func(c *Call, a []types.Value) (types.Value, error) {
			if a[0].Bool() || a[1].Bool() {
				return types.BoolValue(true), nil
			}
			if a[0].Null || a[1].Null {
				return types.NullOf(types.Bool), nil
			}
			return types.BoolValue(false), nil
		}, true),
		"not": def(1, 1, boolArgs, func(c *Call, a []types.Value) (types.Value, error) {
			return types.BoolValue(a[0].I == 0), nil
		}, false),
		"is_null": def(1, 1, func(c *Call) (types.Type, error) { return types.Bool, nil }, func(c *Call, a []types.Value) (types.Value, error) {
			return types.BoolValue(a[0].Null), nil
		}, true),
		"is_true": def(1, 1, boolArgs, func(c *Call, a []types.Value) (types.Value, error) {
			return types.BoolValue(a[0].Bool()), nil
		}, true),
		"is_false": def(1, 1, boolArgs, func(c *Call, a []types.Value) (types.Value, error) {
			return types.BoolValue(!a[0].Null && a[0].I == 0), nil
		}, true),
		"like": def(2, 2, sig(types.KindString, types.KindString, types.KindBool), func(c *Call, a []types.Value) (types.Value, error) {
			match, err := LikeMatcher(a[1].S)
			if err != nil {
				return types.Value{}, err
			}
			return types.BoolValue(match(a[0].S)), nil
		}, false),
		"coalesce": def(1, -1, same, func(c *Call, a []types.Value) (types.Value, error) {
			for _, v := range a {
				if !v.Null {
					return v, nil
				}
			}
			return types.NullOf(c.T), nil
		}, true),
		"if": def(3, 3, func(c *Call) (types.Type, error) {
			cond, err := coerceTo(c.Args[0], types.Bool)
			if err != nil {
				return types.Type{}, fmt.Errorf("condition of IF: %w", err)
			}
			c.Args[0] = cond
			rest := c.Args[1:]
			if err := unify(c, rest); err != nil {
				return types.Type{}, err
			}
			if rest[0].Type().Kind != types.KindNull {
				return rest[0].Type(), nil
			}
			return rest[1].Type(), nil
		}, func(c *Call, a []types.Value) (types.Value, error) {
			if a[0].Bool() {
				return a[1], nil
			}
			return a[2], nil
		}, true),
		"nullif": def(2, 2, same, func(c *Call, a []types.Value) (types.Value, error) {
			if !a[0].Null && !a[1].Null && types.Equal(a[0], a[1]) {
				return types.NullOf(c.T), nil
			}
			return a[0], nil
		}, true),
		"cast": def(1, 1, nil, func(c *Call, a []types.Value) (types.Value, error) {
			v, err := types.Cast(a[0], c.T)
			if err == nil {
				v, err = inRange(v) // '9999-12-31 23:30:00-01:00' is past 9999 in UTC
			}
			if err != nil && c.Safe {
				return types.NullOf(c.T), nil
			}
			return v, err
		}, false),
		"regexp_contains": def(2, 2, constPattern(sig(types.KindString, types.KindString, types.KindBool)), func(c *Call, a []types.Value) (types.Value, error) {
			re, err := CompileRegexp(a[1].S)
			if err != nil {
				return types.Value{}, err
			}
			return types.BoolValue(re.MatchString(a[0].S)), nil
		}, false),
		"lower": def(1, 1, sig(types.KindString, types.KindString), func(c *Call, a []types.Value) (types.Value, error) {
			return types.StringValue(strings.ToLower(a[0].S)), nil
		}, false),
		"upper": def(1, 1, sig(types.KindString, types.KindString), func(c *Call, a []types.Value) (types.Value, error) {
			return types.StringValue(strings.ToUpper(a[0].S)), nil
		}, false),
		"length": def(1, 1, sig(types.KindString, types.KindInt64), func(c *Call, a []types.Value) (types.Value, error) {
			return types.IntValue(int64(len([]rune(a[0].S)))), nil
		}, false),
		"concat": def(1, -1, sig(types.KindString, types.KindString), func(c *Call, a []types.Value) (types.Value, error) {
			var b strings.Builder
			for _, v := range a {
				b.WriteString(v.S)
			}
			return types.StringValue(b.String()), nil
		}, false),
		"starts_with": def(2, 2, sig(types.KindString, types.KindString, types.KindBool), func(c *Call, a []types.Value) (types.Value, error) {
			return types.BoolValue(strings.HasPrefix(a[0].S, a[1].S)), nil
		}, false),
		"ends_with": def(2, 2, sig(types.KindString, types.KindString, types.KindBool), func(c *Call, a []types.Value) (types.Value, error) {
			return types.BoolValue(strings.HasSuffix(a[0].S, a[1].S)), nil
		}, false),
		"strpos": def(2, 2, sig(types.KindString, types.KindString, types.KindInt64), func(c *Call, a []types.Value) (types.Value, error) {
			i := strings.Index(a[0].S, a[1].S)
			if i < 0 {
				return types.IntValue(0), nil
			}
			return types.IntValue(int64(len([]rune(a[0].S[:i]))) + 1), nil
		}, false),
		"abs": def(1, 1, func(c *Call) (types.Type, error) { return numeric1(c) }, func(c *Call, a []types.Value) (types.Value, error) {
			if c.T.Kind == types.KindInt64 {
				if a[0].I < 0 {
					return types.IntValue(-a[0].I), nil
				}
				return a[0], nil
			}
			return types.FloatValue(math.Abs(a[0].F)), nil
		}, false),
		"array_length": def(1, 1, func(c *Call) (types.Type, error) {
			if k := c.Args[0].Type().Kind; k != types.KindArray && k != types.KindNull {
				return types.Type{}, fmt.Errorf("ARRAY_LENGTH needs an array, not %s", c.Args[0].Type())
			}
			return types.Int64, nil
		}, func(c *Call, a []types.Value) (types.Value, error) {
			return types.IntValue(int64(len(a[0].L))), nil
		}, false),
	} {
		register(name, f)
	}
	alias("ifnull", "coalesce")
	funcs["and"].Simplify = simplifyLogic
	funcs["or"].Simplify = simplifyLogic
	funcs["coalesce"].Simplify = func(c *Call) Expr {
		var args []Expr
		for _, a := range c.Args {
			if k, ok := constArg(a); ok {
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
			return &Const{V: types.NullOf(c.T)}
		case 1:
			return args[0]
		}
		c.Args = args
		return c
	}
	funcs["if"].Simplify = func(c *Call) Expr {
		if k, ok := constArg(c.Args[0]); ok {
			if k.V.Bool() {
				return c.Args[1]
			}
			return c.Args[2]
		}
		return c
	}
	funcs["cast"].Simplify = func(c *Call) Expr {
		if c.Args[0].Type().Equal(c.T) {
			return c.Args[0]
		}
		return c
	}
	registerTimeFuncs()
	registerMathFuncs()
	registerStringFuncs()
	registerJSONFuncs()
	registerDateFuncs()
	registerJSONArrayFuncs()
	registerArrayStringFuncs()
	registerFormatFunc()
	registerParseFuncs()
	alias("char_length", "length")
	alias("character_length", "length")
	registerStructuralFuncs()
}

// simplifyLogic: TRUE decides OR, FALSE decides AND; TRUE AND x = x, FALSE
// OR x = x.
func simplifyLogic(c *Call) Expr {
	decisive := c.Fn == "or"
	for i, a := range c.Args {
		k, ok := constArg(a)
		if !ok || k.V.Null {
			continue
		}
		if k.V.Bool() == decisive {
			return &Const{V: types.BoolValue(decisive)}
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
func constPattern(check func(*Call) (types.Type, error)) func(*Call) (types.Type, error) {
	return func(c *Call) (types.Type, error) {
		t, err := check(c)
		if err != nil {
			return t, err
		}
		if k, ok := c.Args[1].(*Const); ok && !k.V.Null {
			if _, err := CompileRegexp(k.V.S); err != nil {
				if k.Param != "" {
					return t, &Error{Param: k.Param, Msg: fmt.Sprintf("value %q is not a valid regular expression: %v", k.V.S, err), Err: err}
				}
				return t, err
			}
		}
		return t, nil
	}
}

func numeric1(c *Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind == types.KindNull {
		return types.Int64, nil
	}
	if !t.IsNumeric() {
		return types.Type{}, fmt.Errorf("%s needs a number, not %s", strings.ToUpper(c.Fn), t)
	}
	return t, nil
}

// unify coerces exprs to their common supertype.
func unify(c *Call, exprs []Expr) error {
	t := types.Null
	for _, e := range exprs {
		et := e.Type()
		if et.Kind == types.KindString && IsConst(e) && t.IsTime() {
			continue
		}
		st, ok := types.Supertype(t, et)
		if !ok || (t.IsTime() && et.Kind == types.KindString && !IsConst(e)) || (et.IsTime() && t.Kind == types.KindString && !allConst(exprs, types.KindString)) {
			return fmt.Errorf("%s cannot combine %s and %s", describeFn(c.Fn), t, et)
		}
		t = st
	}
	for i, e := range exprs {
		ce, err := coerceTo(e, t)
		if err != nil {
			return err
		}
		exprs[i] = ce
	}
	return nil
}

func allConst(exprs []Expr, k types.Kind) bool {
	for _, e := range exprs {
		if e.Type().Kind == k && !IsConst(e) {
			return false
		}
	}
	return true
}

func describeFn(fn string) string {
	if isInfix(fn) {
		return "operator " + strings.ToUpper(fn)
	}
	return strings.ToUpper(fn)
}

// coerceTo converts e to type t where BigQuery coerces implicitly: NULL to
// anything, INT64 to FLOAT64, and a constant STRING to a time type.
func coerceTo(e Expr, t types.Type) (Expr, error) {
	et := e.Type()
	switch {
	case et.Equal(t) || t.Kind == types.KindNull:
		return e, nil
	case et.Kind == types.KindNull:
		if c, ok := e.(*Const); ok {
			return &Const{V: types.NullOf(t), Param: c.Param}, nil
		}
		return &Call{Fn: "cast", Args: []Expr{e}, T: t}, nil
	case et.Kind == types.KindInt64 && t.Kind == types.KindFloat64:
		return fold(&Call{Fn: "cast", Args: []Expr{e}, T: t})
	case et.Kind == types.KindString && t.IsTime():
		if c, ok := e.(*Const); ok {
			cast := &Call{Fn: "cast", Args: []Expr{c}, T: t}
			if v, err := fold(cast); err == nil {
				return v, nil
			}
			return cast, nil // a bad value fails later only if it is still needed
		}
	case et.Kind == types.KindArray && t.Kind == types.KindArray:
		return e, nil
	}
	return nil, fmt.Errorf("expected %s, found %s", t, et)
}

// CompileRegexp compiles an RE2 pattern as REGEXP_CONTAINS does.
func CompileRegexp(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, evalErr("invalid regular expression %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

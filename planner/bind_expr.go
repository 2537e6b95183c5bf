package planner

import (
	"strconv"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// exprCtx is where an expression is bound: the visible range variables, and
// where aggregates go (nil: aggregates are not allowed here).
type exprCtx struct {
	sc   *scope
	aggs *aggCollector
	// wins collects analytic calls where they are allowed (the select
	// list, ORDER BY, QUALIFY); nil elsewhere.
	wins *winCollector
	// aliases are the select list's items, which QUALIFY and ORDER BY may
	// name inside expressions (a bare ORDER BY name is looked up apart).
	aliases []selItem
	// inWindow says the expression is an analytic call's argument, PARTITION
	// BY or ORDER BY, where an alias of an analytic result would nest one.
	inWindow bool
	// laterAliases are the select list's items, which HAVING may name
	// where no column of FROM has the name.
	laterAliases []selItem
	// lets are the WITH expression variables the expression may read, and
	// noLets those it may not (an aggregate's or analytic call's
	// arguments, inside a WITH expression): a name of one is refused.
	lets, noLets *letScope
}

// paramRef is a parameter whose value is not known (Check only).
type paramRef struct{ name string }

func (p *paramRef) Type() types.Type                   { return types.String }
func (p *paramRef) Children() []expr.Expr              { return nil }
func (p *paramRef) WithChildren([]expr.Expr) expr.Expr { return p }
func (p *paramRef) String() string                     { return "@" + p.name }

func (b *binder) boolExpr(e sqlparse.Expr, ctx *exprCtx, clause string) expr.Expr {
	x := b.expr(e, ctx)
	switch x.Type().Kind {
	case types.KindBool:
	case types.KindNull: // e.g. a field no event has had yet: a NULL BOOL
		c, err := expr.CoerceTo(x, types.Bool)
		if err != nil {
			b.fail(e.Pos(), "%s: %v", clause, err)
		}
		x = c
	default:
		b.fail(e.Pos(), "%s needs a BOOL condition, not %s", clause, x.Type())
	}
	return x
}

// expr binds and folds one expression.
func (b *binder) expr(e sqlparse.Expr, ctx *exprCtx) expr.Expr {
	if b.flatten && !isPathNode(e) { // an operand, not the path (bind_flatten.go)
		b.flatten = false
		defer func() { b.flatten = true }()
	}
	switch e := e.(type) {
	case *sqlparse.Literal:
		return b.literal(e)
	case *sqlparse.Param:
		if b.symbolic {
			return &paramRef{name: e.Name}
		}
		if v, ok := b.opts.Params[e.Name]; ok {
			return &expr.Const{V: types.StringValue(v), Param: e.Name}
		}
		return &expr.Const{V: types.NullOf(types.String), Param: e.Name}
	case *sqlparse.Ident:
		return b.ident(e, ctx)
	case *sqlparse.Unary:
		b.noLiteralNull(e.Op, e.X)
		switch e.Op {
		case "NOT":
			return b.call(e.At, "not", []expr.Expr{b.expr(e.X, ctx)})
		case "-":
			return b.call(e.At, "neg", []expr.Expr{b.expr(e.X, ctx)})
		case "+":
			return b.expr(e.X, ctx)
		case "~":
			return b.call(e.At, "bitnot", []expr.Expr{b.expr(e.X, ctx)})
		}
		b.fail(e.At, "operator %s is not supported", e.Op)
	case *sqlparse.Binary:
		op := strings.ToLower(e.Op)
		if op != "and" && op != "or" && op != "<<" && op != ">>" { // ZetaSQL does not check shifts
			b.noLiteralNull(e.Op, e.L, e.R)
		}
		switch op {
		case "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "||", "and", "or", "&", "|", "^", "<<", ">>":
			return b.call(e.At, op, []expr.Expr{b.expr(e.L, ctx), b.expr(e.R, ctx)})
		}
		b.fail(e.At, "operator %s is not supported", e.Op)
	case *sqlparse.Call:
		return b.funcCall(e, ctx)
	case *sqlparse.Case:
		return b.caseExpr(e, ctx)
	case *sqlparse.Cast:
		var t types.Type
		var params []int64
		if e.Type != nil {
			bare := *e.Type
			params, bare.Params = bare.Params, nil // CAST(x AS STRING(10)): bind_typeparams.go
			t = b.typeOf(&bare)
		} else {
			t = b.typeOf(&sqlparse.TypeExpr{At: e.At, Name: e.TypeName})
		}
		x := b.expr(e.X, ctx)
		switch from := x.Type(); {
		case from.Kind == types.KindJSON && t.Kind != types.KindJSON:
			b.fail(e.At, "CAST from JSON is not supported: use TO_JSON_STRING, or STRING, INT64, FLOAT64, BOOL (and their LAX_ forms) for a JSON scalar")
		case t.Kind == types.KindJSON && from.Kind != types.KindJSON && from.Kind != types.KindNull:
			b.fail(e.At, "CAST to JSON is not supported: use TO_JSON, or PARSE_JSON for JSON text")
		}
		if e.Format != nil { // sqlfunc/funcs_castformat.go
			tz := expr.Expr(&expr.Const{V: types.StringValue("UTC")}) // a NULL zone given makes the result NULL
			if e.TimeZone != nil {
				if t.Kind != types.KindTimestamp && x.Type().Kind != types.KindTimestamp {
					b.fail(e.TimeZone.Pos(), "AT TIME ZONE in a CAST … FORMAT needs a TIMESTAMP on one side")
				}
				tz = b.expr(e.TimeZone, ctx)
			}
			now := b.now()
			cast := b.finish(e.At, &expr.Call{Fn: "cast_format", Args: []expr.Expr{x, b.expr(e.Format, ctx), tz, now}, T: t, Safe: e.Safe})
			if params != nil {
				return b.fitTypeParams(e, cast, t, params)
			}
			return cast
		}
		if t.IsDecimal() {
			x = expr.FloatLiteralText(x) // CAST(0.1 AS BIGNUMERIC) is exactly 0.1
		}
		cast := b.finish(e.At, &expr.Call{Fn: "cast", Args: []expr.Expr{x}, T: t, Safe: e.Safe})
		if params != nil {
			return b.fitTypeParams(e, cast, t, params)
		}
		return cast
	case *sqlparse.Index:
		x := b.expr(e.X, ctx)
		fn := map[sqlparse.SubscriptMode]string{sqlparse.SubPlain: "offset", sqlparse.SubOffset: "offset",
			sqlparse.SubSafeOffset: "safe_offset", sqlparse.SubOrdinal: "ordinal", sqlparse.SubSafeOrdinal: "safe_ordinal"}[e.Mode]
		if nestedArray(x.Type()) { // inside an array path
			idx, err := expr.CoerceTo(b.expr(e.Index, ctx), types.Int64)
			if err != nil {
				b.fail(e.At, "array subscript: %v", err)
			}
			return pathIndex(fn, x, idx)
		}
		x = pathFlatten(x)
		if x.Type().Kind == types.KindJSON {
			if e.Mode != sqlparse.SubPlain {
				b.fail(e.At, "a JSON subscript is written j[i] or j['key'], not with %s", e.Mode)
			}
			return b.call(e.At, "json_subscript", []expr.Expr{x, b.expr(e.Index, ctx)})
		}
		if x.Type().Kind == types.KindStruct {
			k, ok := b.expr(e.Index, ctx).(*expr.Const)
			if !ok || k.V.T.Kind != types.KindInt64 {
				b.fail(e.At, "a STRUCT subscript must be an integer constant")
			}
			i := k.V.I
			if e.Mode == sqlparse.SubOrdinal || e.Mode == sqlparse.SubSafeOrdinal {
				i--
			}
			if i < 0 || i >= int64(len(x.Type().Fields)) {
				b.fail(e.At, "STRUCT subscript %d is out of range", k.V.I)
			}
			return b.finish(e.At, &expr.Call{Fn: "field", Args: []expr.Expr{x}, Idx: int(i), T: x.Type().Fields[i].Type})
		}
		return b.call(e.At, fn, []expr.Expr{x, b.expr(e.Index, ctx)})
	case *sqlparse.FieldAccess:
		return b.field(b.expr(e.X, ctx), e.Name, e.At)
	case *sqlparse.IsNull:
		x := b.expr(e.X, ctx)
		var r expr.Expr
		switch e.Value {
		case "NULL":
			r = b.call(e.At, "is_null", []expr.Expr{x})
		case "TRUE":
			r = b.call(e.At, "is_true", []expr.Expr{x})
		case "DISTINCT FROM":
			r = b.call(e.At, "is_distinct_from", []expr.Expr{x, b.expr(e.From, ctx)})
		default:
			r = b.call(e.At, "is_false", []expr.Expr{x})
		}
		if e.Not {
			r = b.call(e.At, "not", []expr.Expr{r})
		}
		return r
	case *sqlparse.In:
		if e.Query != nil {
			return b.inSubquery(e, ctx)
		}
		if e.Unnest != nil {
			r := b.call(e.At, "in_unnest", []expr.Expr{b.expr(e.X, ctx), b.flattened(e.Unnest, ctx)})
			if e.Not {
				r = b.call(e.At, "not", []expr.Expr{r})
			}
			return r
		}
		x, once := b.once(b.expr(e.X, ctx)) // bind_with.go: one draw for every item
		var r expr.Expr
		for _, item := range e.List {
			eq := b.call(e.At, "=", []expr.Expr{x, b.expr(item, ctx)})
			if r == nil {
				r = eq
			} else {
				r = b.call(e.At, "or", []expr.Expr{r, eq})
			}
		}
		if e.Not {
			r = b.call(e.At, "not", []expr.Expr{r})
		}
		return once(r)
	case *sqlparse.Between:
		x, once := b.once(b.expr(e.X, ctx)) // bind_with.go: RAND() BETWEEN … reads one draw
		r := b.call(e.At, "and", []expr.Expr{
			b.call(e.At, ">=", []expr.Expr{x, b.expr(e.Lo, ctx)}),
			b.call(e.At, "<=", []expr.Expr{x, b.expr(e.Hi, ctx)}),
		})
		if e.Not {
			r = b.call(e.At, "not", []expr.Expr{r})
		}
		return once(r)
	case *sqlparse.Like:
		if e.Quant != "" {
			return b.quantifiedLike(e, ctx)
		}
		b.noLiteralNull("LIKE", e.X, e.Pattern)
		r := b.call(e.At, "like", b.likeOfBytes(e.At, []expr.Expr{b.expr(e.X, ctx), b.expr(e.Pattern, ctx)}))
		if e.Not {
			r = b.call(e.At, "not", []expr.Expr{r})
		}
		return r
	case *sqlparse.IntervalLit:
		return b.intervalLit(e, ctx) // bind_interval.go
	case *sqlparse.ArrayLit:
		args := make([]expr.Expr, len(e.Elems))
		for i, x := range e.Elems {
			args[i] = b.expr(x, ctx)
		}
		if e.Type != nil {
			return b.typedArray(e, b.typeOf(e.Type), args)
		}
		return b.call(e.At, "make_array", args)
	case *sqlparse.StructLit:
		if e.Type != nil {
			return b.typedStruct(e, ctx)
		}
		args := make([]expr.Expr, len(e.Elems))
		fields := make([]types.Field, len(e.Elems))
		for i, x := range e.Elems {
			args[i] = b.expr(x, ctx)
			name := e.Aliases[i]
			if name == "" {
				if id, ok := x.(*sqlparse.Ident); ok {
					name = id.Parts[len(id.Parts)-1]
				}
			}
			fields[i] = types.Field{Name: name, Type: args[i].Type()}
		}
		return b.finish(e.At, &expr.Call{Fn: "make_struct", Args: args, T: types.StructOf(fields...)})
	case *sqlparse.DatePartArg:
		b.fail(e.At, "unexpected date part %s", e.Unit)
	case *sqlparse.NamedArg: // only where a function takes it (namedArgs)
		b.fail(e.At, "an argument by name (%s =>) is not taken here", e.Name)
	case *sqlparse.ExprSubquery:
		return b.exprSubquery(e, ctx)
	case *sqlparse.WithExpr:
		return b.withExpr(e, ctx) // bind_with.go
	}
	b.fail(e.Pos(), "unsupported expression")
	return nil
}

func (b *binder) literal(e *sqlparse.Literal) expr.Expr {
	switch e.Kind {
	case sqlparse.LitNull:
		return &expr.Const{V: types.NullOf(types.Null)}
	case sqlparse.LitBool:
		return &expr.Const{V: types.BoolValue(e.Value == "TRUE")}
	case sqlparse.LitInt:
		i, ok := types.ParseInt64(e.Value) // 010 is ten: no octal prefix
		if !ok {
			b.fail(e.At, "integer %s is out of range", e.Value)
		}
		return &expr.Const{V: types.IntValue(i)}
	case sqlparse.LitFloat:
		f, err := strconv.ParseFloat(e.Value, 64)
		if err != nil {
			b.fail(e.At, "bad number %s", e.Value)
		}
		return &expr.Const{V: types.FloatValue(f), FloatLiteral: true, Text: e.Value}
	case sqlparse.LitString:
		return &expr.Const{V: types.StringValue(e.Value)}
	case sqlparse.LitBytes:
		return &expr.Const{V: types.Value{T: types.Bytes, S: e.Value}}
	case sqlparse.LitTyped:
		if elem, ok := strings.CutPrefix(e.TypeName, "RANGE<"); ok { // RANGE<DATE> '[…, …)'
			t := b.typeOf(&sqlparse.TypeExpr{At: e.At, Name: "RANGE", Elem: &sqlparse.TypeExpr{At: e.At, Name: strings.TrimSuffix(elem, ">")}})
			v, err := types.ParseRange(*t.Elem, e.Value)
			if err != nil {
				b.fail(e.At, "%v", err)
			}
			return &expr.Const{V: v}
		}
		t, _ := types.ParseTypeName(e.TypeName)
		if t.Kind == types.KindJSON { // JSON '…': its numbers rounded to doubles, as ZetaSQL reads literals
			v, err := types.ParseJSON(e.Value, true)
			if err != nil {
				b.fail(e.At, "%v", err)
			}
			return &expr.Const{V: v}
		}
		if t.IsDecimal() { // a literal's digits past the scale are an error, not rounded
			v, err := types.ParseDecimalLiteral(t, e.Value)
			if err != nil {
				b.fail(e.At, "%v", err)
			}
			return &expr.Const{V: v}
		}
		v, err := types.Cast(types.StringValue(e.Value), t)
		if err == nil {
			v, err = expr.InRange(v)
		}
		if err != nil {
			b.fail(e.At, "%v", err)
		}
		return &expr.Const{V: v}
	}
	b.fail(e.At, "unsupported literal")
	return nil
}

func (b *binder) caseExpr(e *sqlparse.Case, ctx *exprCtx) expr.Expr {
	c := &expr.Case{}
	var operand expr.Expr
	once := func(x expr.Expr) expr.Expr { return x }
	if e.Operand != nil {
		operand, once = b.once(b.expr(e.Operand, ctx)) // bind_with.go: compared once per row
	}
	var values []expr.Expr // CASE x WHEN v …: x and every v compare under one collation
	if operand != nil {
		values = append(values, operand)
		for _, w := range e.Whens {
			values = append(values, b.expr(w.Cond, ctx))
		}
		operand = b.collateAsAll(e.At, "case", operand, values) // bind_collation.go
	}
	var results []expr.Expr
	for i, w := range e.Whens {
		var cond expr.Expr
		if operand != nil {
			cond = b.call(w.Cond.Pos(), "=", []expr.Expr{operand, values[i+1]})
		} else {
			cond = b.boolExpr(w.Cond, ctx, "WHEN")
		}
		then := b.expr(w.Then, ctx)
		c.Whens = append(c.Whens, expr.When{Cond: cond, Then: then})
		results = append(results, then)
	}
	if e.Else != nil {
		c.Else = b.expr(e.Else, ctx)
	} else {
		c.Else = &expr.Const{V: types.NullOf(types.Null)}
	}
	results = append(results, c.Else)
	spec, err := expr.ArgCollation("case", results) // the branches' collation, kept
	if err != nil {
		b.failErr(e.At, err)
	}
	if err := expr.Unify(&expr.Call{Fn: "case"}, results); err != nil {
		b.failErr(e.At, err)
	}
	for i := range c.Whens {
		c.Whens[i].Then = results[i]
	}
	c.Else = results[len(results)-1]
	c.T = types.Null
	for _, r := range results {
		if r.Type().Kind != types.KindNull {
			c.T = r.Type()
			break
		}
	}
	if spec != "" && c.T.Kind == types.KindString {
		c.T.SetCollation(spec)
	}
	out, err := expr.Fold(c)
	if err != nil {
		return once(c)
	}
	return once(out)
}

// quantifiedLike binds x [NOT] LIKE ANY|ALL (patterns): the OR (ANY) or AND
// (ALL) of x [NOT] LIKE each pattern, NOT applying to each pattern as
// BigQuery's does, in three-valued logic. UNNEST takes an array literal's
// elements as the patterns; any other array, an empty literal included, is
// like_any/like_all's (which hold the reference's rules for an empty one).
func (b *binder) quantifiedLike(e *sqlparse.Like, ctx *exprCtx) expr.Expr {
	patterns := e.Patterns
	if e.Query != nil {
		return b.likeSubquery(e, ctx)
	}
	if e.Unnest != nil {
		lit, ok := e.Unnest.(*sqlparse.ArrayLit)
		if !ok || len(lit.Elems) == 0 { // an array computed per row, or none: sqlfunc/funcs_like_array.go
			fn := "like_any"
			if e.Quant == "ALL" {
				fn = "like_all"
			}
			return b.call(e.At, fn, []expr.Expr{b.expr(e.X, ctx), b.expr(e.Unnest, ctx), &expr.Const{V: types.BoolValue(e.Not)}})
		}
		patterns = lit.Elems
	}
	x, once := b.once(b.expr(e.X, ctx)) // bind_with.go: one draw for every pattern
	join := "or"
	if e.Quant == "ALL" {
		join = "and"
	}
	pats := make([]expr.Expr, len(patterns))
	for i, p := range patterns {
		pats[i] = b.expr(p, ctx)
	}
	// x and every pattern match under one collation (BigQuery's rule)
	x = b.collateAsAll(e.At, "like", x, append([]expr.Expr{x}, pats...)) // bind_collation.go
	var r expr.Expr
	for _, p := range pats {
		l := b.call(e.At, "like", b.likeOfBytes(e.At, []expr.Expr{x, p}))
		if e.Not {
			l = b.call(e.At, "not", []expr.Expr{l})
		}
		if r == nil {
			r = l
		} else {
			r = b.call(e.At, join, []expr.Expr{r, l})
		}
	}
	if r == nil {
		return &expr.Const{V: types.BoolValue(e.Quant == "ALL")}
	}
	return once(r)
}

// likeSubquery binds x [NOT] LIKE ANY|ALL (subquery) as the array form over
// ARRAY(subquery), but for the reference's rule for an empty subquery: LIKE
// ALL is TRUE and NOT LIKE ALL FALSE (an empty array gives FALSE and TRUE;
// ANY answers alike for both).
func (b *binder) likeSubquery(e *sqlparse.Like, ctx *exprCtx) expr.Expr {
	arr := b.expr(&sqlparse.ExprSubquery{At: e.Query.At, Kind: "ARRAY", Query: e.Query}, ctx)
	if k := arr.Type().Elem; k != nil && k.Kind != types.KindString && k.Kind != types.KindBytes && k.Kind != types.KindNull {
		b.fail(e.Query.At, "LIKE %s (subquery) needs STRING or BYTES patterns, not %s", e.Quant, *k)
	}
	fn := "like_any"
	if e.Quant == "ALL" {
		fn = "like_all"
	}
	x := b.expr(e.X, ctx)
	if e.Quant != "ALL" {
		return b.call(e.At, fn, []expr.Expr{x, arr, &expr.Const{V: types.BoolValue(e.Not)}})
	}
	a, let := b.letVar(arr)
	empty := b.call(e.At, "=", []expr.Expr{b.call(e.At, "array_length", []expr.Expr{a}), &expr.Const{V: types.IntValue(0)}})
	return let(b.call(e.At, "if", []expr.Expr{empty, &expr.Const{V: types.BoolValue(!e.Not)},
		b.call(e.At, fn, []expr.Expr{x, a, &expr.Const{V: types.BoolValue(e.Not)}})}))
}

// typeOf is the type a type expression names.
func (b *binder) typeOf(t *sqlparse.TypeExpr) types.Type {
	if t.Params != nil {
		b.fail(t.At, "a parameterized type such as %s is supported only as the whole type of a CAST, not inside ARRAY or STRUCT or elsewhere", t)
	}
	switch t.Name {
	case "ARRAY":
		elem := b.typeOf(t.Elem)
		if elem.Kind == types.KindArray {
			b.fail(t.At, "an ARRAY cannot hold an ARRAY (wrap it in a STRUCT)")
		}
		return types.ArrayOf(elem)
	case "STRUCT":
		fields := make([]types.Field, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = types.Field{Name: f.Name, Type: b.typeOf(f.Type)}
		}
		return types.StructOf(fields...)
	case "RANGE":
		if t.Elem == nil {
			b.fail(t.At, "RANGE needs its element type: RANGE<DATE>, RANGE<DATETIME> or RANGE<TIMESTAMP>")
		}
		elem := b.typeOf(t.Elem)
		if !types.IsRangeElem(elem) {
			b.fail(t.At, "RANGE<%s> is not a type: a RANGE holds DATE, DATETIME or TIMESTAMP", elem)
		}
		return types.RangeOf(elem)
	case "GEOGRAPHY":
		b.fail(t.At, "type %s is not supported", t.Name)
	}
	st, ok := types.ParseTypeName(t.Name)
	if !ok {
		b.fail(t.At, "unknown type %s", t.Name)
	}
	return st
}

// typedArray binds ARRAY<T>[…]: each element coerced to T as a value of
// T's column would be (a literal converts; another type is an error).
func (b *binder) typedArray(e *sqlparse.ArrayLit, t types.Type, args []expr.Expr) expr.Expr {
	elem := *t.Elem
	for i, a := range args {
		c, err := coerceLiteral(a, elem)
		if err != nil {
			b.fail(e.Elems[i].Pos(), "element %d of %s: %v", i+1, t, err)
		}
		args[i] = c
	}
	if len(args) == 0 {
		return &expr.Const{V: types.ArrayValue(elem, []types.Value{})}
	}
	out := b.finish(e.At, &expr.Call{Fn: "make_array", Args: args})
	if !out.Type().Equal(t) { // e.g. every element NULL
		return b.finish(e.At, &expr.Call{Fn: "cast", Args: []expr.Expr{out}, T: t})
	}
	return out
}

// typedStruct binds STRUCT<…>(…): one value per field, coerced to the
// field's type, named by the type.
func (b *binder) typedStruct(e *sqlparse.StructLit, ctx *exprCtx) expr.Expr {
	t := b.typeOf(e.Type)
	if len(e.Elems) != len(t.Fields) {
		b.fail(e.At, "%s takes %d values, got %d", t, len(t.Fields), len(e.Elems))
	}
	if len(t.Fields) == 0 {
		return &expr.Const{V: types.StructValue(t, []types.Value{})} // STRUCT<>()
	}
	args := make([]expr.Expr, len(e.Elems))
	for i, x := range e.Elems {
		if e.Aliases[i] != "" {
			b.fail(x.Pos(), "a typed STRUCT names its fields in its type, not with AS")
		}
		c, err := coerceLiteral(b.expr(x, ctx), t.Fields[i].Type)
		if err != nil {
			b.fail(x.Pos(), "field %d of %s: %v", i+1, t, err)
		}
		args[i] = c
	}
	return b.finish(e.At, &expr.Call{Fn: "make_struct", Args: args, T: t})
}

// coerceLiteral is coerceTo, and also gives an array or struct literal
// (or constant) the written type of its place, element by element and
// field by field: ARRAY<STRUCT<k STRING, v INT64>>[('a', 1)].
func coerceLiteral(e expr.Expr, t types.Type) (expr.Expr, error) {
	c, err := expr.CoerceTo(e, t)
	if err == nil {
		return c, nil
	}
	switch x := e.(type) {
	case *expr.Const:
		if x.V.T.Kind == t.Kind && (t.Kind == types.KindArray || t.Kind == types.KindStruct) {
			if v, cerr := types.Cast(x.V, t); cerr == nil {
				return &expr.Const{V: v}, nil
			}
		}
	case *expr.Call:
		var want func(i int) types.Type
		switch {
		case x.Fn == "make_struct" && t.Kind == types.KindStruct && len(x.Args) == len(t.Fields):
			want = func(i int) types.Type { return t.Fields[i].Type }
		case x.Fn == "make_array" && t.Kind == types.KindArray:
			want = func(int) types.Type { return *t.Elem }
		default:
			return nil, err
		}
		args := make([]expr.Expr, len(x.Args))
		for i, a := range x.Args {
			ca, aerr := coerceLiteral(a, want(i))
			if aerr != nil {
				return nil, err
			}
			args[i] = ca
		}
		return &expr.Call{Fn: x.Fn, Args: args, T: t}, nil
	}
	return nil, err
}

// noLiteralNull refuses an untyped NULL written as an operand of a unary or
// binary operator (not AND, OR, IS or IS DISTINCT FROM), as BigQuery does:
// `x = NULL` is never TRUE, so it is a mistake for `x IS NULL`. A typed
// NULL, CAST(NULL AS INT64), is accepted.
func (b *binder) noLiteralNull(op string, operands ...sqlparse.Expr) {
	for _, x := range operands {
		if l, ok := x.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitNull {
			b.fail(l.At, "Operands of %s cannot be literal NULL", op)
		}
	}
}

package planner

import (
	"math"
	"strconv"
	"strings"

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
	// aliases are the select list's items, which QUALIFY may name.
	aliases []selItem
}

// paramRef is a parameter whose value is not known (Check only).
type paramRef struct{ name string }

func (p *paramRef) Type() types.Type         { return types.String }
func (p *paramRef) Children() []Expr         { return nil }
func (p *paramRef) WithChildren([]Expr) Expr { return p }
func (p *paramRef) String() string           { return "@" + p.name }

func (b *binder) boolExpr(e sqlparse.Expr, ctx *exprCtx, clause string) Expr {
	x := b.expr(e, ctx)
	if k := x.Type().Kind; k != types.KindBool && k != types.KindNull {
		b.fail(e.Pos(), "%s needs a BOOL condition, not %s", clause, x.Type())
	}
	return x
}

// expr binds and folds one expression.
func (b *binder) expr(e sqlparse.Expr, ctx *exprCtx) Expr {
	switch e := e.(type) {
	case *sqlparse.Literal:
		return b.literal(e)
	case *sqlparse.Param:
		if b.symbolic {
			return &paramRef{name: e.Name}
		}
		if v, ok := b.opts.Params[e.Name]; ok {
			return &Const{V: types.StringValue(v), Param: e.Name}
		}
		return &Const{V: types.NullOf(types.String), Param: e.Name}
	case *sqlparse.Ident:
		return b.ident(e, ctx)
	case *sqlparse.Unary:
		switch e.Op {
		case "NOT":
			return b.call(e.At, "not", []Expr{b.expr(e.X, ctx)})
		case "-":
			return b.call(e.At, "neg", []Expr{b.expr(e.X, ctx)})
		case "+":
			return b.expr(e.X, ctx)
		}
		b.fail(e.At, "operator %s is not supported", e.Op)
	case *sqlparse.Binary:
		op := strings.ToLower(e.Op)
		switch op {
		case "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "||", "and", "or":
			return b.call(e.At, op, []Expr{b.expr(e.L, ctx), b.expr(e.R, ctx)})
		}
		b.fail(e.At, "operator %s is not supported", e.Op)
	case *sqlparse.Call:
		return b.funcCall(e, ctx)
	case *sqlparse.Case:
		return b.caseExpr(e, ctx)
	case *sqlparse.Cast:
		t, ok := types.ParseTypeName(e.TypeName)
		if !ok {
			b.fail(e.At, "unknown type %s", e.TypeName)
		}
		x := b.expr(e.X, ctx)
		return b.finish(e.At, &Call{Fn: "cast", Args: []Expr{x}, T: t, Safe: e.Safe})
	case *sqlparse.Index:
		x := b.expr(e.X, ctx)
		if x.Type().Kind == types.KindStruct {
			k, ok := b.expr(e.Index, ctx).(*Const)
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
			return b.finish(e.At, &Call{Fn: "field", Args: []Expr{x}, Idx: int(i), T: x.Type().Fields[i].Type})
		}
		fn := map[sqlparse.SubscriptMode]string{sqlparse.SubPlain: "offset", sqlparse.SubOffset: "offset",
			sqlparse.SubSafeOffset: "safe_offset", sqlparse.SubOrdinal: "ordinal", sqlparse.SubSafeOrdinal: "safe_ordinal"}[e.Mode]
		return b.call(e.At, fn, []Expr{x, b.expr(e.Index, ctx)})
	case *sqlparse.FieldAccess:
		return b.field(b.expr(e.X, ctx), e.Name, e.At)
	case *sqlparse.IsNull:
		x := b.expr(e.X, ctx)
		var r Expr
		switch e.Value {
		case "NULL":
			r = b.call(e.At, "is_null", []Expr{x})
		case "TRUE":
			r = b.call(e.At, "is_true", []Expr{x})
		default:
			r = b.call(e.At, "is_false", []Expr{x})
		}
		if e.Not {
			r = b.call(e.At, "not", []Expr{r})
		}
		return r
	case *sqlparse.In:
		if e.Query != nil {
			return b.inSubquery(e, ctx)
		}
		if e.Unnest != nil {
			b.fail(e.At, "IN UNNEST is not supported; use IN (list)")
		}
		x := b.expr(e.X, ctx)
		var r Expr
		for _, item := range e.List {
			eq := b.call(e.At, "=", []Expr{x, b.expr(item, ctx)})
			if r == nil {
				r = eq
			} else {
				r = b.call(e.At, "or", []Expr{r, eq})
			}
		}
		if e.Not {
			r = b.call(e.At, "not", []Expr{r})
		}
		return r
	case *sqlparse.Between:
		x := b.expr(e.X, ctx)
		r := b.call(e.At, "and", []Expr{
			b.call(e.At, ">=", []Expr{x, b.expr(e.Lo, ctx)}),
			b.call(e.At, "<=", []Expr{x, b.expr(e.Hi, ctx)}),
		})
		if e.Not {
			r = b.call(e.At, "not", []Expr{r})
		}
		return r
	case *sqlparse.Like:
		r := b.call(e.At, "like", []Expr{b.expr(e.X, ctx), b.expr(e.Pattern, ctx)})
		if e.Not {
			r = b.call(e.At, "not", []Expr{r})
		}
		return r
	case *sqlparse.IntervalLit:
		unit, ok := types.ParseDatePart(e.Unit)
		if !ok || unit.FixedMicros() == 0 {
			b.fail(e.At, "INTERVAL unit must be one of MICROSECOND, MILLISECOND, SECOND, MINUTE, HOUR, DAY; found %s", e.Unit)
		}
		n := b.expr(e.Value, ctx)
		if b.symbolic {
			if _, ok := n.(*Const); !ok {
				return &Const{V: types.IntervalValue(0)}
			}
		}
		k, ok := n.(*Const)
		if ok && k.V.T.Kind == types.KindString {
			if c, err := types.Cast(k.V, types.Int64); err == nil {
				k = &Const{V: c, Param: k.Param}
			}
		}
		if !ok || k.V.T.Kind != types.KindInt64 {
			b.fail(e.At, "INTERVAL needs an integer constant")
		}
		if k.V.Null {
			return &Const{V: types.NullOf(types.Interval)}
		}
		if m := unit.FixedMicros(); k.V.I > math.MaxInt64/m || k.V.I < math.MinInt64/m {
			b.fail(e.At, "INTERVAL value %d is out of range", k.V.I)
		}
		return &Const{V: types.IntervalValue(k.V.I * unit.FixedMicros())}
	case *sqlparse.ArrayLit:
		args := make([]Expr, len(e.Elems))
		for i, x := range e.Elems {
			args[i] = b.expr(x, ctx)
		}
		return b.call(e.At, "make_array", args)
	case *sqlparse.StructLit:
		args := make([]Expr, len(e.Elems))
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
		return b.finish(e.At, &Call{Fn: "make_struct", Args: args, T: types.StructOf(fields...)})
	case *sqlparse.DatePartArg:
		b.fail(e.At, "unexpected date part %s", e.Unit)
	case *sqlparse.ExprSubquery:
		return b.exprSubquery(e, ctx)
	}
	b.fail(e.Pos(), "unsupported expression")
	return nil
}

func (b *binder) literal(e *sqlparse.Literal) Expr {
	switch e.Kind {
	case sqlparse.LitNull:
		return &Const{V: types.NullOf(types.Null)}
	case sqlparse.LitBool:
		return &Const{V: types.BoolValue(e.Value == "TRUE")}
	case sqlparse.LitInt:
		i, err := strconv.ParseInt(e.Value, 0, 64)
		if err != nil {
			b.fail(e.At, "integer %s is out of range", e.Value)
		}
		return &Const{V: types.IntValue(i)}
	case sqlparse.LitFloat:
		f, err := strconv.ParseFloat(e.Value, 64)
		if err != nil {
			b.fail(e.At, "bad number %s", e.Value)
		}
		return &Const{V: types.FloatValue(f)}
	case sqlparse.LitString:
		return &Const{V: types.StringValue(e.Value)}
	case sqlparse.LitBytes:
		return &Const{V: types.Value{T: types.Bytes, S: e.Value}}
	case sqlparse.LitTyped:
		t, _ := types.ParseTypeName(e.TypeName)
		v, err := types.Cast(types.StringValue(e.Value), t)
		if err == nil {
			v, err = inRange(v)
		}
		if err != nil {
			b.fail(e.At, "%v", err)
		}
		return &Const{V: v}
	}
	b.fail(e.At, "unsupported literal")
	return nil
}

// call builds, types and folds a call of a scalar function.
func (b *binder) call(pos int, fn string, args []Expr) Expr {
	return b.finish(pos, &Call{Fn: fn, Args: args})
}

// finish types a call (unless its type is already set) and folds it.
func (b *binder) finish(pos int, c *Call) Expr {
	def := funcs[c.Fn]
	if def == nil {
		b.fail(pos, "unknown function %s", strings.ToUpper(c.Fn))
	}
	if len(c.Args) < def.MinArgs || (def.MaxArgs >= 0 && len(c.Args) > def.MaxArgs) {
		b.fail(pos, "%s takes %s, got %d", strings.ToUpper(c.Fn), argCount(def), len(c.Args))
	}
	if b.symbolic {
		for _, a := range c.Args {
			if _, ok := a.(*paramRef); ok && def.Check != nil {
				// Unknown parameters are STRINGs that may become anything a
				// constant string coerces to; type the call optimistically.
				if _, err := def.Check(&Call{Fn: c.Fn, Args: constStrings(c.Args), Unit: c.Unit, T: c.T}); err == nil {
					if c.T.Kind == types.KindNull {
						c.T, _ = def.Check(&Call{Fn: c.Fn, Args: constStrings(c.Args), Unit: c.Unit})
					}
					return c
				}
			}
		}
	}
	if def.Check != nil {
		t, err := def.Check(c)
		if err != nil {
			b.failErr(pos, err)
		}
		c.T = t
	}
	out, err := fold(c)
	if err != nil {
		// Leave it unfolded: a branch that constants later cut away (the
		// right side of `TRUE OR …`) must not fail the query. checkConstants
		// raises the error if the call survives into the plan.
		return c
	}
	return out
}

func constStrings(args []Expr) []Expr {
	out := make([]Expr, len(args))
	for i, a := range args {
		if p, ok := a.(*paramRef); ok {
			out[i] = &Const{V: types.StringValue(""), Param: p.name}
		} else {
			out[i] = a
		}
	}
	return out
}

func argCount(d *Func) string {
	switch {
	case d.MaxArgs < 0:
		return "at least " + strconv.Itoa(d.MinArgs) + " arguments"
	case d.MinArgs == d.MaxArgs:
		return strconv.Itoa(d.MinArgs) + " arguments"
	}
	return strconv.Itoa(d.MinArgs) + " to " + strconv.Itoa(d.MaxArgs) + " arguments"
}

func (b *binder) funcCall(e *sqlparse.Call, ctx *exprCtx) Expr {
	name, safe := funcName(e.Name), false
	if strings.Contains(e.Name, ".") {
		lower := strings.ToLower(e.Name)
		// Only SAFE. and the NET. family are prefixes; anything else named
		// with a dot is not a function logq has.
		if rest, ok := strings.CutPrefix(lower, "safe."); ok {
			safe, lower = true, rest
		}
		switch {
		case !strings.Contains(lower, "."):
			name = lower
		case strings.HasPrefix(lower, "net.") && LookupFunc(lower) != nil:
			name = lower
		case name == "generate_timestamp_trunc_array":
			// the saved queries call it as a dataset-qualified UDF
		default:
			b.fail(e.At, "unknown function %s", e.Name)
		}
	}
	if e.Over != nil {
		return b.windowCall(e, name, safe, ctx) // bind_window.go
	}
	if IsAnalytic(name) {
		b.fail(e.At, "analytic function %s needs an OVER clause", strings.ToUpper(name))
	}
	if IsAggregate(name) {
		if safe {
			b.fail(e.At, "the SAFE. prefix is not supported on aggregate function %s", strings.ToUpper(name))
		}
		return b.aggregate(e, name, ctx)
	}
	if e.Star || e.Distinct {
		b.fail(e.At, "%s does not take * or DISTINCT", strings.ToUpper(name))
	}
	b.noAggModifiers(e, name) // bind_aggmods.go
	var unit types.DatePart
	var args []Expr
	for _, a := range e.Args {
		if dp, ok := a.(*sqlparse.DatePartArg); ok {
			if ext := "extract_" + strings.ToLower(dp.Unit); name == "extract" && LookupFunc(ext) != nil {
				name = ext // EXTRACT(DAYOFWEEK FROM …) and the other non-unit parts
				continue
			}
			p, ok := types.ParseDatePart(dp.Unit)
			if !ok {
				b.fail(dp.At, "unknown date part %s", dp.Unit)
			}
			unit = p
			continue
		}
		if x, u, ok := b.bindCalendar(name, a, ctx); ok { // funcs_calendar.go
			args, unit = append(args, x), u
			continue
		}
		args = append(args, b.expr(a, ctx))
	}
	switch name {
	case "current_timestamp":
		if len(args) > 0 {
			b.fail(e.At, "CURRENT_TIMESTAMP takes no arguments")
		}
		if b.symbolic {
			return &Const{V: types.TimestampValue(0)}
		}
		return &Const{V: types.TimestampValue(b.opts.Now)}
	case "generate_timestamp_trunc_array":
		if len(args) != 2 {
			b.fail(e.At, "generate_timestamp_trunc_array takes 2 arguments (count, spec), got %d", len(args))
		}
		args = append(args, &Const{V: types.TimestampValue(b.opts.Now)})
	}
	f := LookupFunc(name)
	if f == nil || (f.Internal && !(strings.EqualFold(e.Name, "extract") && name != "extract")) {
		b.fail(e.At, "unknown function %s", e.Name)
	}
	return b.finish(e.At, &Call{Fn: f.Name, Args: args, Unit: unit, Safe: safe})
}

func (b *binder) aggregate(e *sqlparse.Call, name string, ctx *exprCtx) Expr {
	if ctx.aggs == nil {
		b.fail(e.At, "aggregate function %s is not allowed here", strings.ToUpper(name))
	}
	return ctx.aggs.add(b.aggCall(e, name, &exprCtx{sc: ctx.sc}))
}

// aggCall binds an aggregate call's arguments in inner and types it. Only
// an analytic aggregate's inner context collects aggregates: SUM(COUNT(*))
// OVER () in a grouped SELECT.
func (b *binder) aggCall(e *sqlparse.Call, name string, inner *exprCtx) AggCall {
	def := aggs[name]
	up := strings.ToUpper(name)
	switch {
	case e.Star && !def.Star:
		b.fail(e.At, "only COUNT takes *")
	case !e.Star && (len(e.Args) < def.MinArgs || len(e.Args) > def.MaxArgs):
		b.fail(e.At, "%s takes %s, got %d", up, def.arity(), len(e.Args))
	case e.Distinct && !def.Distinct:
		b.fail(e.At, "DISTINCT is not supported in %s (%s take it)", up, strings.Join(aggsWith(func(a *Agg) bool { return a.Distinct }), ", "))
	}
	call := AggCall{Fn: name, Star: e.Star, Distinct: e.Distinct}
	for _, a := range e.Args {
		if inner.aggs == nil && hasAggregate(a) {
			b.fail(a.Pos(), "aggregate functions cannot be nested")
		}
		call.Args = append(call.Args, b.expr(a, inner))
	}
	if !e.Star {
		t, err := def.Check(&call, b.symbolic)
		if err != nil {
			b.fail(e.At, "%s", err)
		}
		call.T = t
	} else {
		call.T = types.Int64
	}
	b.aggModifiers(e, def, &call, inner) // bind_aggmods.go
	return call
}

// aggsWith names the aggregates def says yes to, upper case, sorted.
func aggsWith(yes func(*Agg) bool) []string {
	var out []string
	for _, n := range AggregateNames() {
		if yes(aggs[n]) {
			out = append(out, strings.ToUpper(n))
		}
	}
	return out
}

func (b *binder) caseExpr(e *sqlparse.Case, ctx *exprCtx) Expr {
	c := &Case{}
	var operand Expr
	if e.Operand != nil {
		operand = b.expr(e.Operand, ctx)
	}
	var results []Expr
	for _, w := range e.Whens {
		var cond Expr
		if operand != nil {
			cond = b.call(w.Cond.Pos(), "=", []Expr{operand, b.expr(w.Cond, ctx)})
		} else {
			cond = b.boolExpr(w.Cond, ctx, "WHEN")
		}
		then := b.expr(w.Then, ctx)
		c.Whens = append(c.Whens, When{Cond: cond, Then: then})
		results = append(results, then)
	}
	if e.Else != nil {
		c.Else = b.expr(e.Else, ctx)
	} else {
		c.Else = &Const{V: types.NullOf(types.Null)}
	}
	results = append(results, c.Else)
	if err := unify(&Call{Fn: "case"}, results); err != nil {
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
	out, err := fold(c)
	if err != nil {
		return c
	}
	return out
}

// ident resolves a (possibly dotted) name.
func (b *binder) ident(e *sqlparse.Ident, ctx *exprCtx) Expr {
	if ctx.sc == nil {
		b.fail(e.At, "unrecognized name %s", e.Parts[0])
	}
	parts := e.Parts
	// A range variable's alias takes precedence over a column of the same name.
	rv := ctx.sc.find(parts[0])
	if rv == nil && len(parts) == 1 {
		// QUALIFY reads select-list aliases first, as ORDER BY does.
		if i := aliasIndex(ctx.aliases, parts[0]); i >= 0 {
			return ctx.aliases[i].expr
		}
	}
	if rv != nil {
		if len(parts) == 1 {
			return b.rowValue(rv, e.At)
		}
		return b.member(rv, parts[1:], e.At)
	}
	// A column merged by JOIN … USING is not ambiguous (bind_using.go).
	if u := ctx.sc.using.lookup(parts[0]); u != nil && u.first >= ctx.sc.inner {
		return b.fields(u.expr, parts[1:], e.At)
	}
	// An unqualified column of exactly one FROM item.
	var found []Expr
	for _, rv := range ctx.sc.visible() {
		if x := b.columnOf(rv, parts[0]); x != nil {
			found = append(found, x)
		}
	}
	switch {
	case len(found) > 1:
		b.fail(e.At, "column name %s is ambiguous", parts[0])
	case len(found) == 1:
		return b.fields(found[0], parts[1:], e.At)
	}
	if x := b.outerName(e); x != nil { // bind_subquery.go
		return x
	}
	if ctx.sc.outside(parts[0], func(rv *rangeVar) bool { return b.columnOf(rv, parts[0]) != nil }) {
		b.fail(e.At, "%s is not visible inside a parenthesized join: only its own FROM items are (move the condition to the join's ON)", parts[0])
	}
	var scans []*rangeVar
	for _, rv := range ctx.sc.visible() {
		if rv.kind == rvScan {
			scans = append(scans, rv)
		}
	}
	if len(scans) == 1 {
		// A field no event has yet: NULL until one does.
		return b.fields(scanField(scans[0], parts[0], types.Null, false), parts[1:], e.At)
	}
	b.fail(e.At, "unrecognized name %s", parts[0])
	return nil
}

// columnOf returns the column name of rv as an expression, or nil.
func (b *binder) columnOf(rv *rangeVar, name string) Expr {
	switch rv.kind {
	case rvScan:
		if t, _, ok := fieldOf(rv, name); ok {
			return scanField(rv, name, t, false)
		}
	case rvPath:
		path := rv.prefix + "." + name
		if t, _, ok := fieldOf(rv.scanRV, path); ok {
			return scanField(rv.scanRV, path, t, false)
		}
	case rvView:
		if c := rv.viewColumn(name); c != "" {
			return viewField(rv, c)
		}
	case rvPlan:
		for i, c := range rv.cols {
			if strings.EqualFold(c.Name, name) {
				return &sym{rv: rv, idx: i, T: c.T, nm: c.Name}
			}
		}
	case rvConst:
		for i, c := range rv.cols {
			if strings.EqualFold(c.Name, name) {
				return rv.consts[i]
			}
		}
	case rvElem:
		// A STRUCT element's fields are columns of its UNNEST, aliased or
		// not (a value table, as BigQuery reads one; Studio writes
		// `UNNEST(metadata) AS m … WHERE function_id = …`).
		if rv.cols[0].T.Kind == types.KindStruct {
			if i := rv.cols[0].T.FieldIndex(name); i >= 0 {
				return &Call{Fn: "field", Args: []Expr{&sym{rv: rv, idx: 0, T: rv.cols[0].T}}, Idx: i, T: rv.cols[0].T.Fields[i].Type}
			}
		}
	}
	return nil
}

// member resolves alias.rest.
func (b *binder) member(rv *rangeVar, rest []string, pos int) Expr {
	switch rv.kind {
	case rvScan, rvPath:
		srv, path := rv, rest[0]
		if rv.kind == rvPath {
			srv, path = rv.scanRV, rv.prefix+"."+rest[0]
		}
		t, _, ok := fieldOf(srv, path)
		if !ok {
			t = types.Null
		}
		return b.fields(scanField(srv, path, t, false), rest[1:], pos)
	case rvPlan, rvConst, rvView:
		x := b.columnOf(rv, rest[0])
		if x == nil {
			b.fail(pos, "%s has no column %s", rv.alias, rest[0])
		}
		return b.fields(x, rest[1:], pos)
	}
	return b.fields(&sym{rv: rv, idx: 0, T: rv.cols[0].T, nm: rv.cols[0].Name}, rest, pos)
}

// rowValue is a range variable used as a value: its element, or a STRUCT of its row.
func (b *binder) rowValue(rv *rangeVar, pos int) Expr {
	if rv.kind == rvElem {
		return &sym{rv: rv, idx: 0, T: rv.cols[0].T, nm: rv.cols[0].Name}
	}
	var args []Expr
	var fields []types.Field
	for _, it := range b.rangeVarColumns(rv) {
		args = append(args, it.expr)
		fields = append(fields, types.Field{Name: it.name, Type: it.expr.Type()})
	}
	if len(args) == 0 && rv.kind == rvPath {
		// A path with no field known yet (at load, before any data: an
		// UNNEST of what may be an array): a field no event has, NULL.
		return scanField(rv.scanRV, rv.prefix, types.Null, false)
	}
	return b.finish(pos, &Call{Fn: "make_struct", Args: args, T: types.StructOf(fields...)})
}

// fields applies struct field accesses.
func (b *binder) fields(x Expr, names []string, pos int) Expr {
	for _, n := range names {
		x = b.field(x, n, pos)
	}
	return x
}

func (b *binder) field(x Expr, name string, pos int) Expr {
	t := x.Type()
	switch t.Kind {
	case types.KindStruct:
		i := t.FieldIndex(name)
		if i < 0 {
			b.fail(pos, "field %s not found in %s", name, t)
		}
		return b.finish(pos, &Call{Fn: "field", Args: []Expr{x}, Idx: i, T: t.Fields[i].Type})
	case types.KindNull:
		return &Const{V: types.NullOf(types.Null)}
	case types.KindArray:
		b.fail(pos, "cannot access field %s on a value of type %s; use UNNEST", name, t)
	}
	b.fail(pos, "cannot access field %s on a value of type %s", name, t)
	return nil
}

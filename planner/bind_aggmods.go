package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Modifiers inside an aggregate call, as BigQuery has them for the
// aggregates logq implements (which takes which is in its Agg):
//
//	ARRAY_AGG(x [IGNORE NULLS | RESPECT NULLS] [HAVING MAX|MIN y] [ORDER BY key [DESC] …] [LIMIT n])
//	STRING_AGG(s [, delim] [HAVING MAX|MIN y] [ORDER BY key [DESC] …] [LIMIT n])
//	agg(x [HAVING MAX|MIN y]) for every other aggregate
//	agg(x … [WHERE cond] …) (ZetaSQL's) in any aggregate, not analytic
//
// ORDER BY orders the values (ties in an unspecified order), LIMIT keeps the
// first n (n a non-negative INT64 constant), HAVING MAX|MIN y reads only
// the rows whose y equals its maximum (minimum) in the group (the last
// argument; exec/op_agg_having.go), IGNORE NULLS drops NULL values
// (without it a NULL makes ARRAY_AGG fail, as BigQuery does). Any other call
// with a modifier is refused, naming it. The ORDER BY keys become the last
// arguments of the AggCall (so pruning and remapping treat them as any
// argument) and AggCall.Order their directions.

// noAggModifiers refuses modifiers on a scalar function.
func (b *binder) noAggModifiers(e *sqlparse.Call, name string) {
	switch {
	case e.Nulls != "":
		b.fail(e.At, "%s NULLS is not supported in %s", e.Nulls, strings.ToUpper(name))
	case len(e.OrderBy) > 0:
		b.fail(e.OrderBy[0].At, "ORDER BY inside a call of %s is not supported", strings.ToUpper(name))
	case e.Limit != nil:
		b.fail(e.Limit.Pos(), "LIMIT inside a call of %s is not supported", strings.ToUpper(name))
	case e.Having != "":
		b.fail(e.HavingX.Pos(), "HAVING %s inside a call of %s is not supported", e.Having, strings.ToUpper(name))
	case e.Where != nil:
		b.fail(e.Where.Pos(), "WHERE inside a call of %s is not supported", strings.ToUpper(name))
	}
}

// whereModifier binds agg(x WHERE cond): cond, over the aggregate's input
// rows, becomes the call's last argument, after every other (aggCall binds
// it last).
func (b *binder) whereModifier(e *sqlparse.Call, call *expr.AggCall, inner *exprCtx) {
	if e.Where == nil {
		return
	}
	if e.Over != nil {
		b.fail(e.Where.Pos(), "WHERE inside an analytic function call is not supported")
	}
	if hasAggregate(e.Where) {
		b.fail(e.Where.Pos(), "aggregate functions cannot be nested")
	}
	call.Args = append(call.Args, b.boolExpr(e.Where, inner, "WHERE inside "+strings.ToUpper(call.Fn)))
	call.Filtered = true
}

// havingModifier binds HAVING MAX|MIN expr of an aggregate call: expr, an
// orderable value other than an ARRAY, becomes the call's last argument.
func (b *binder) havingModifier(e *sqlparse.Call, call *expr.AggCall, inner *exprCtx) {
	if e.Having == "" {
		return
	}
	if e.Over != nil {
		b.fail(e.HavingX.Pos(), "HAVING %s is not supported in an analytic function call", e.Having)
	}
	if hasAggregate(e.HavingX) {
		b.fail(e.HavingX.Pos(), "aggregate functions cannot be nested")
	}
	x := b.expr(e.HavingX, inner)
	if t := x.Type(); t.Kind == types.KindArray || t.Kind == types.KindStruct {
		b.fail(e.HavingX.Pos(), "HAVING %s cannot order %s", e.Having, t)
	}
	call.Args = append(call.Args, x)
	call.Having = 1
	if e.Having == "MIN" {
		call.Having = -1
	}
}

// aggModifiers binds the modifiers of an aggregate call into call.
func (b *binder) aggModifiers(e *sqlparse.Call, def *expr.Agg, call *expr.AggCall, inner *exprCtx) {
	name := def.Name
	switch {
	case name == "approx_quantiles":
		// IGNORE NULLS is what it does anyway; RESPECT NULLS ranks them
		// first.
		call.RespectNulls = e.Nulls == "RESPECT"
	case e.Nulls != "" && !def.IgnoreNulls:
		b.fail(e.At, "%s NULLS is not supported in %s", e.Nulls, strings.ToUpper(name))
	default:
		call.IgnoreNulls = e.Nulls == "IGNORE"
	}
	if !def.OrderLimit {
		b.noAggModifiers(&sqlparse.Call{At: e.At, OrderBy: e.OrderBy, Limit: e.Limit}, name)
		b.havingModifier(e, call, inner)
		return
	}
	for _, o := range e.OrderBy {
		if hasAggregate(o.Expr) {
			b.fail(o.Expr.Pos(), "aggregate functions cannot be nested")
		}
		k := b.expr(o.Expr, inner)
		if t := k.Type(); !t.Orderable() {
			b.fail(o.Expr.Pos(), "ORDER BY inside %s cannot order %s", strings.ToUpper(name), t)
		}
		if call.Distinct && k.String() != call.Args[0].String() {
			b.fail(o.Expr.Pos(), "with DISTINCT, ORDER BY inside %s must order by the aggregated expression", strings.ToUpper(name))
		}
		sk := b.sortKey(o, k)
		call.Args = append(call.Args, sk.Expr) // its collation key, with COLLATE
		call.Order = append(call.Order, expr.AggOrder{Desc: sk.Desc, NullsFirst: sk.NullsFirst})
	}
	if e.Limit != nil {
		call.Limit, call.HasLimit = b.constInt(e.Limit, "LIMIT inside "+strings.ToUpper(name)), true
	}
	b.havingModifier(e, call, inner)
}

// approxTopCountType checks APPROX_TOP_COUNT(x, n) and returns its type,
// ARRAY<STRUCT<value, count INT64>>. n is a constant from 1 to 100000.
func (b *binder) approxTopCountType(e *sqlparse.Call, call expr.AggCall, argT types.Type) types.Type {
	k, ok := call.Args[1].(*expr.Const)
	if !ok && !b.symbolic {
		b.fail(e.At, "the number of APPROX_TOP_COUNT values must be a constant")
	}
	if ok && (k.V.T.Kind != types.KindInt64 || k.V.Null || k.V.I < 1 || k.V.I > 100000) {
		b.fail(e.At, "the number of APPROX_TOP_COUNT values must be an integer from 1 to 100000")
	}
	if argT.Kind == types.KindArray {
		b.fail(e.At, "APPROX_TOP_COUNT cannot group %s", argT)
	}
	if argT.Kind == types.KindNull {
		argT = types.Int64
	}
	return types.ArrayOf(types.StructOf(types.Field{Name: "value", Type: argT}, types.Field{Name: "count", Type: types.Int64}))
}

package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
	"strings"
)

// collateKey applies an ORDER BY item's COLLATE to its key e.
func (b *binder) collateKey(o *sqlparse.OrderItem, e expr.Expr) expr.Expr {
	if o.Collate == nil {
		if spec := e.Type().Collation(); spec != "" && e.Type().Kind == types.KindString {
			// a collated value sorts by its collation
			return b.keyOf(o.Expr.Pos(), e, spec)
		}
		b.noCollation(o.Expr.Pos(), "ORDER BY", e.Type())
		return e
	}
	if t := e.Type(); t.Kind != types.KindString && t.Kind != types.KindNull {
		b.fail(o.Expr.Pos(), "COLLATE applies to a STRING, not %s", t)
	}
	return b.keyOf(o.Expr.Pos(), e, *o.Collate)
}

// keyOf is e's collation key under spec (e itself for a binary one); the
// library's collation_key checks the spec.
func (b *binder) keyOf(pos int, e expr.Expr, spec string) expr.Expr {
	return b.call(pos, "collation_key", []expr.Expr{e, &expr.Const{V: types.StringValue(spec)}})
}

// collateAsAll gives x the collation that all (x among them) agree on, for
// the forms BigQuery compares under one collation: a simple CASE's operand
// and WHEN values, LIKE ANY/ALL's left side and patterns.
func (b *binder) collateAsAll(pos int, fn string, x expr.Expr, all []expr.Expr) expr.Expr {
	spec, err := expr.ArgCollation(fn, all)
	if err != nil {
		b.failErr(pos, err)
	}
	if spec == "" || x.Type().Kind != types.KindString || x.Type().Collation() == spec {
		return x
	}
	return b.call(pos, "collate", []expr.Expr{x, &expr.Const{V: types.StringValue(spec)}})
}

// noCollation refuses a collated type where logq does not yet group or
// combine by a collation (GROUP BY, DISTINCT, set operations, …). A binary
// collation compares as no collation does: it passes.
func (b *binder) noCollation(pos int, what string, t types.Type) {
	if t.Collated() && !expr.BinaryCollated(t) {
		b.fail(pos, "%s of a collated STRING is not supported", what)
	}
}

// aggCollation lets the aggregates that do not compare their argument take
// a collated one (COUNT, and COUNT(DISTINCT) over its collation key; ANY_VALUE,
// ARRAY_AGG and STRING_AGG keep the collation on their result) and refuses
// the others (MIN, MAX, APPROX_*, …).
func (b *binder) aggCollation(pos int, call *expr.AggCall) {
	spec, err := expr.ArgCollation(call.Fn, call.Args)
	if err != nil {
		b.failErr(pos, err)
	}
	collatedArg := false
	for _, a := range call.Args {
		collatedArg = collatedArg || a.Type().Collated()
	}
	if !collatedArg {
		return
	}
	switch {
	case (call.Fn == "min" || call.Fn == "max") && call.Having == 0 && call.Args[0].Type().Kind == types.KindString:
		// the value of the least (greatest) collation key (exec's extremeState)
		x := call.Args[0]
		call.Args = append(call.Args, b.keyOf(pos, x, x.Type().Collation()))
		call.T.SetCollation(x.Type().Collation())
	case call.Fn == "count" || call.Fn == "any_value":
	case (call.Fn == "array_agg" || call.Fn == "string_agg") && (!call.Distinct || expr.BinaryCollated(call.Args[0].Type())):
		if call.Fn == "string_agg" && spec != "" {
			call.T.SetCollation(spec)
		}
	default:
		b.fail(pos, "%s of a collated STRING is not supported", strings.ToUpper(call.Fn))
	}
}

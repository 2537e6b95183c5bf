package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// bindCalendar binds argument a of a call of fn when it is a calendar
// INTERVAL: the count as an INT64 expression and its unit.
func (b *binder) bindCalendar(fn string, a sqlparse.Expr, ctx *exprCtx) (expr.Expr, types.DatePart, bool) {
	il, ok := a.(*sqlparse.IntervalLit)
	if !ok || !expr.TakesCalendarUnit(fn) || il.To != "" {
		return nil, 0, false
	}
	unit, ok := types.ParseDatePart(il.Unit)
	// GENERATE_DATE_ARRAY counts days as an INT64 too (any INT64 step).
	if !ok || !expr.IsCalendarUnit(unit) && !(fn == "generate_date_array" && unit == types.PartDay) {
		return nil, 0, false
	}
	n := b.expr(il.Value, ctx)
	if _, isParam := n.(*paramRef); isParam {
		return &expr.Const{V: types.IntValue(0)}, unit, true
	}
	k, ok := n.(*expr.Const)
	if !ok {
		// A count read per row (INTERVAL n DAY of a column n), as an INT64:
		// a log source's field is typed by its values, not when bound.
		if x, err := expr.CoerceTo(n, types.Int64); err == nil {
			return x, unit, true
		}
	}
	if ok && k.V.T.Kind == types.KindString {
		if c, err := types.Cast(k.V, types.Int64); err == nil {
			k = &expr.Const{V: c, Param: k.Param}
		}
	}
	if !ok || (k.V.T.Kind != types.KindInt64 && k.V.T.Kind != types.KindNull) {
		b.fail(il.At, "INTERVAL needs an INT64 count")
	}
	if k.V.Null {
		k = &expr.Const{V: types.NullOf(types.Int64), Param: k.Param}
	}
	return k, unit, true
}

package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// intervalLit binds INTERVAL n part (n an INT64, or a STRING constant
// holding one, with a fraction for SECOND) and INTERVAL 'text' part TO
// part (the canonical text's fields from one part to the other).
func (b *binder) intervalLit(e *sqlparse.IntervalLit, ctx *exprCtx) expr.Expr {
	unit, ok := types.ParseDatePart(e.Unit)
	if !ok {
		b.fail(e.At, "INTERVAL needs a part such as DAY or HOUR, found %s", e.Unit)
	}
	to := unit
	if e.To != "" {
		if to, ok = types.ParseDatePart(e.To); !ok || to == unit {
			b.fail(e.At, "INTERVAL %s TO %s is not a range of parts", e.Unit, e.To)
		}
	}
	n := b.expr(e.Value, ctx)
	if _, param := n.(*paramRef); param {
		// Bound again with the parameter's value; now only the type counts.
		return &expr.Const{V: types.Value{T: types.Interval}}
	}
	k, ok := n.(*expr.Const)
	switch {
	case !ok && e.To == "":
		// INTERVAL expr part: an INT64 computed per row.
		x, err := expr.CoerceTo(n, types.Int64)
		if err != nil {
			b.fail(e.At, "INTERVAL needs an INT64, not %s", n.Type())
		}
		return b.finish(e.At, &expr.Call{Fn: "interval_part", Args: []expr.Expr{x}, Unit: unit})
	case !ok:
		b.fail(e.At, "INTERVAL 'text' … TO … needs a constant STRING")
	case k.V.Null:
		return &expr.Const{V: types.NullOf(types.Interval)}
	case k.V.T.Kind == types.KindString:
		v, err := types.ParseIntervalParts(k.V.S, unit, to)
		if err != nil {
			b.fail(e.At, "%v", err)
		}
		return &expr.Const{V: v, Param: k.Param}
	case k.V.T.Kind != types.KindInt64 || e.To != "":
		b.fail(e.At, "INTERVAL needs an integer constant, or a STRING with TO")
	}
	v, err := types.IntervalOfPart(k.V.I, unit)
	if err != nil {
		b.fail(e.At, "%v", err)
	}
	return &expr.Const{V: v, Param: k.Param}
}

package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// fitTypeParams checks the parameters of CAST(x AS T(params)) and wraps
// the cast in fit_type(cast, params…).
func (b *binder) fitTypeParams(e *sqlparse.Cast, cast expr.Expr, t types.Type, params []int64) expr.Expr {
	name := e.Type.String()
	switch t.Kind {
	case types.KindString, types.KindBytes:
		if len(params) != 1 || params[0] < 1 {
			b.fail(e.Type.At, "%s: the maximum length must be a positive integer", name)
		}
	case types.KindNumeric, types.KindBigNumeric:
		maxScale, digits := int64(9), int64(29)
		if t.Kind == types.KindBigNumeric {
			maxScale, digits = 38, 38
		}
		p, s := params[0], int64(0)
		if len(params) == 2 {
			s = params[1]
		}
		if s < 0 || s > maxScale {
			b.fail(e.Type.At, "%s: the scale must be from 0 to %d", name, maxScale)
		}
		if p < max(1, s) || p > s+digits {
			b.fail(e.Type.At, "%s: the precision must be from %d to %d for scale %d", name, max(1, s), s+digits, s)
		}
	}
	args := []expr.Expr{cast}
	for _, n := range params {
		args = append(args, &expr.Const{V: types.IntValue(n)})
	}
	return b.finish(e.At, &expr.Call{Fn: "fit_type", Args: args, T: t, Safe: e.Safe})
}

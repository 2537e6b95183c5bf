package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
	"math"
	"math/big"
	"strings"
)

// Binding the arguments of analytic functions (the table of them is
// analytic.go).

// analyticArgs checks a call of def against its definition, binds its
// arguments, and reports whether it takes a frame.
func (b *binder) analyticArgs(e *sqlparse.Call, def *expr.Analytic, inner *exprCtx, call *WindowCall) bool {
	up := strings.ToUpper(def.Name)
	switch {
	case e.Star || e.Distinct || len(e.OrderBy) > 0 || e.Limit != nil || e.Where != nil:
		b.fail(e.At, "%s does not take *, DISTINCT, WHERE, ORDER BY or LIMIT in its arguments", up)
	case len(e.Args) < def.MinArgs || len(e.Args) > def.MaxArgs:
		if def.MinArgs == def.MaxArgs {
			b.fail(e.At, "%s takes %d argument(s), got %d", up, def.MaxArgs, len(e.Args))
		}
		b.fail(e.At, "%s takes %d to %d argument(s), got %d", up, def.MinArgs, def.MaxArgs, len(e.Args))
	case e.Nulls == "IGNORE" && !def.IgnoreNulls, e.Nulls == "RESPECT" && !def.RespectNulls:
		b.fail(e.At, "%s does not take %s NULLS", up, e.Nulls)
	case def.NeedsOrder && len(call.Order) == 0:
		b.fail(e.At, "%s needs an ORDER BY in its window", up)
	case def.NoOrder && len(call.Order) > 0:
		b.fail(e.At, "%s takes no ORDER BY in its window", up)
	}
	call.IgnoreNulls = e.Nulls == "IGNORE"
	call.RespectNulls = e.Nulls == "RESPECT" && def.Args == expr.Percentile // the others respect them anyway
	b.analyticCallArgs(e, def, inner, call)
	if !def.PassesCollation {
		for _, a := range call.Args {
			b.noCollation(e.At, up, a.Type())
		}
	}
	return def.Framed
}

// analyticCallArgs binds the arguments of a call of def by their form.
func (b *binder) analyticCallArgs(e *sqlparse.Call, def *expr.Analytic, inner *exprCtx, call *WindowCall) {
	switch def.Args {
	case expr.NumberingInt64:
		call.T = types.Int64
	case expr.NumberingFloat64:
		call.T = types.Float64
	case expr.BucketCount:
		n := b.constAtLeast(e.Args[0], "NTILE's bucket count", 1)
		call.T, call.Args = types.Int64, []expr.Expr{&expr.Const{V: types.IntValue(n)}}
	case expr.Percentile:
		b.bindPercentile(e, def.Name == "percentile_cont", inner, call)
	case expr.Navigation:
		b.bindLagLead(e, inner, call)
	case expr.ValueArg:
		b.bindValueArg(e, inner, call)
	case expr.NthValue:
		b.bindValueArg(e, inner, call)
		n := b.constAtLeast(e.Args[1], "NTH_VALUE's position", 1)
		call.Args = append(call.Args, &expr.Const{V: types.IntValue(n)})
	}
}

// bindValueArg binds the value argument, whose type the result has (an
// untyped NULL reads as INT64).
func (b *binder) bindValueArg(e *sqlparse.Call, inner *exprCtx, call *WindowCall) {
	x := b.expr(e.Args[0], inner)
	call.T = x.Type()
	if call.T.Kind == types.KindNull {
		call.T = types.Int64
		x = &expr.Const{V: types.NullOf(types.Int64)}
	}
	call.Args = []expr.Expr{x}
}

// bindPercentile binds PERCENTILE_CONT (cont: a number, interpolated, a
// FLOAT64) or PERCENTILE_DISC (any orderable value, one of the values)
// with a constant percentile in [0, 1]. NULLs are ignored (RESPECT NULLS is
// refused).
func (b *binder) bindPercentile(e *sqlparse.Call, cont bool, inner *exprCtx, call *WindowCall) {
	up := "PERCENTILE_DISC"
	if cont {
		up = "PERCENTILE_CONT"
	}
	x := b.expr(e.Args[0], inner)
	pc, ok := b.expr(e.Args[1], inner).(*expr.Const)
	decimalP := ok && !pc.V.Null && pc.V.T.IsDecimal()
	switch t := x.Type(); {
	case cont && t.IsDecimal() && decimalP:
		// BigQuery's NUMERIC and BIGNUMERIC signatures take a decimal
		// value and a decimal percentile: exact, in the wider of their
		// types. (A FLOAT64 percentile makes it the FLOAT64 one.)
		if pc.V.T.Kind == types.KindBigNumeric {
			t = pc.V.T
		}
		xc, err := expr.CoerceTo(x, t)
		if err != nil {
			b.fail(e.Args[0].Pos(), "%s: %v", up, err)
		}
		p, err := types.DecimalFromRat(t, pc.V.Rat())
		if err != nil || p.Rat().Sign() < 0 || p.Rat().Cmp(big.NewRat(1, 1)) > 0 {
			b.fail(e.Args[1].Pos(), "%s's percentile must be a constant from 0 to 1", up)
		}
		call.T = t
		call.Args = []expr.Expr{xc, &expr.Const{V: p}}
		return
	case cont:
		c, err := expr.CoerceTo(x, types.Float64)
		if err != nil {
			b.fail(e.Args[0].Pos(), "%s needs a number, not %s", up, t)
		}
		x = c
	case t.Kind == types.KindNull:
		x = &expr.Const{V: types.NullOf(types.Int64)}
	case t.Kind == types.KindArray || t.Kind == types.KindStruct:
		b.fail(e.Args[0].Pos(), "%s cannot order %s", up, t)
	}
	if decimalP {
		// A NUMERIC percentile: DISC ranks by it exactly (a BIGNUMERIC
		// 0.4 + 1e-38 is past 2 of 5 values), CONT by its FLOAT64.
		if r := pc.V.Rat(); r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
			b.fail(e.Args[1].Pos(), "%s's percentile must be a constant from 0 to 1", up)
		}
		call.T = x.Type()
		if cont {
			call.Args = []expr.Expr{x, &expr.Const{V: types.FloatValue(types.DecimalToFloat(pc.V))}}
		} else {
			call.Args = []expr.Expr{x, pc}
		}
		return
	}
	if !ok || pc.V.Null || !pc.V.T.IsNumeric() || pc.V.Float() < 0 || pc.V.Float() > 1 || math.IsNaN(pc.V.Float()) {
		b.fail(e.Args[1].Pos(), "%s's percentile must be a constant from 0 to 1", up)
	}
	call.T = x.Type()
	call.Args = []expr.Expr{x, &expr.Const{V: types.FloatValue(pc.V.Float())}}
}

// bindLagLead binds LAG/LEAD(x [, offset [, default]]): the offset a
// constant of at least 0 (1 when absent), the default an expression of x's
// type (NULL when absent).
func (b *binder) bindLagLead(e *sqlparse.Call, inner *exprCtx, call *WindowCall) {
	b.bindValueArg(e, inner, call)
	up := strings.ToUpper(call.Fn)
	off := int64(1)
	if len(e.Args) > 1 {
		off = b.constAtLeast(e.Args[1], up+"'s offset", 0)
	}
	call.Args = append(call.Args, &expr.Const{V: types.IntValue(off)})
	def := expr.Expr(&expr.Const{V: types.NullOf(call.T)})
	if len(e.Args) > 2 {
		d := b.expr(e.Args[2], inner)
		c, err := expr.CoerceTo(d, call.T)
		if err != nil || !c.Type().Equal(call.T) {
			b.fail(e.Args[2].Pos(), "the default of %s must be a %s, not %s", up, call.T, d.Type())
		}
		if _, ok := c.(*expr.Const); !ok && !b.symbolic {
			b.fail(e.Args[2].Pos(), "the default of %s must be a constant", up)
		}
		def = c
	}
	call.Args = append(call.Args, def)
}

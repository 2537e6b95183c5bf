package planner

import (
	"math"
	"math/big"
	"sort"
	"strings"

	"logq/sqlparse"
	"logq/types"
)

// Analytic defines a function that exists only with OVER (a numbering or a
// navigation function; an aggregate with OVER is an Agg): its arguments,
// what its window must have, whether it takes a frame and IGNORE NULLS,
// and how its arguments bind. The binder reads this table; exec attaches
// the computation of each (exec/op_window_funcs.go windowFuncs), and its
// registry test checks that the two name the same functions.
type Analytic struct {
	Name             string
	MinArgs, MaxArgs int
	NeedsOrder       bool // its window needs an ORDER BY
	NoOrder          bool // its window must not have one
	Framed           bool // it takes a window frame (else one is refused)
	IgnoreNulls      bool // it takes IGNORE NULLS
	RespectNulls     bool // it takes RESPECT NULLS (which it does anyway)
	// Bind binds the arguments into call.Args (the value first, then the
	// constants the executor reads) and sets call.T.
	Bind func(b *binder, e *sqlparse.Call, inner *exprCtx, call *WindowCall)
}

var analytics = map[string]*Analytic{}

func init() {
	for _, a := range []*Analytic{
		{Name: "row_number", Bind: numbering(types.Int64)},
		{Name: "rank", NeedsOrder: true, Bind: numbering(types.Int64)},
		{Name: "dense_rank", NeedsOrder: true, Bind: numbering(types.Int64)},
		{Name: "percent_rank", NeedsOrder: true, Bind: numbering(types.Float64)},
		{Name: "cume_dist", NeedsOrder: true, Bind: numbering(types.Float64)},
		{Name: "ntile", MinArgs: 1, MaxArgs: 1, NeedsOrder: true, Bind: func(b *binder, e *sqlparse.Call, _ *exprCtx, call *WindowCall) {
			n := b.constAtLeast(e.Args[0], "NTILE's bucket count", 1)
			call.T, call.Args = types.Int64, []Expr{&Const{V: types.IntValue(n)}}
		}},
		{Name: "percentile_cont", MinArgs: 2, MaxArgs: 2, NoOrder: true, IgnoreNulls: true, Bind: bindPercentile(true)},
		{Name: "percentile_disc", MinArgs: 2, MaxArgs: 2, NoOrder: true, IgnoreNulls: true, Bind: bindPercentile(false)},
		{Name: "lag", MinArgs: 1, MaxArgs: 3, NeedsOrder: true, RespectNulls: true, Bind: bindLagLead},
		{Name: "lead", MinArgs: 1, MaxArgs: 3, NeedsOrder: true, RespectNulls: true, Bind: bindLagLead},
		{Name: "first_value", MinArgs: 1, MaxArgs: 1, Framed: true, IgnoreNulls: true, RespectNulls: true, Bind: bindValueArg},
		{Name: "last_value", MinArgs: 1, MaxArgs: 1, Framed: true, IgnoreNulls: true, RespectNulls: true, Bind: bindValueArg},
		{Name: "nth_value", MinArgs: 2, MaxArgs: 2, Framed: true, IgnoreNulls: true, RespectNulls: true, Bind: func(b *binder, e *sqlparse.Call, inner *exprCtx, call *WindowCall) {
			bindValueArg(b, e, inner, call)
			n := b.constAtLeast(e.Args[1], "NTH_VALUE's position", 1)
			call.Args = append(call.Args, &Const{V: types.IntValue(n)})
		}},
	} {
		analytics[a.Name] = a
	}
}

// IsAnalytic reports whether name is a function that exists only with OVER.
func IsAnalytic(name string) bool { return analytics[name] != nil }

// AnalyticNames lists the functions that exist only with OVER, sorted (for
// tests and docs).
func AnalyticNames() []string {
	out := make([]string, 0, len(analytics))
	for n := range analytics {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// analyticArgs checks a call of def against its definition, binds its
// arguments, and reports whether it takes a frame.
func (b *binder) analyticArgs(e *sqlparse.Call, def *Analytic, inner *exprCtx, call *WindowCall) bool {
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
	def.Bind(b, e, inner, call)
	if !collationNeutralAnalytic[def.Name] {
		for _, a := range call.Args {
			b.noCollation(e.At, up, a.Type())
		}
	}
	return def.Framed
}

// numbering binds a numbering function of result type t (no arguments).
func numbering(t types.Type) func(*binder, *sqlparse.Call, *exprCtx, *WindowCall) {
	return func(_ *binder, _ *sqlparse.Call, _ *exprCtx, call *WindowCall) { call.T = t }
}

// bindValueArg binds the value argument, whose type the result has (an
// untyped NULL reads as INT64).
func bindValueArg(b *binder, e *sqlparse.Call, inner *exprCtx, call *WindowCall) {
	x := b.expr(e.Args[0], inner)
	call.T = x.Type()
	if call.T.Kind == types.KindNull {
		call.T = types.Int64
		x = &Const{V: types.NullOf(types.Int64)}
	}
	call.Args = []Expr{x}
}

// bindPercentile binds PERCENTILE_CONT (cont: a number, interpolated, a
// FLOAT64) or PERCENTILE_DISC (any orderable value, one of the values)
// with a constant percentile in [0, 1]. NULLs are ignored (RESPECT NULLS is
// refused).
func bindPercentile(cont bool) func(*binder, *sqlparse.Call, *exprCtx, *WindowCall) {
	return func(b *binder, e *sqlparse.Call, inner *exprCtx, call *WindowCall) {
		up := "PERCENTILE_DISC"
		if cont {
			up = "PERCENTILE_CONT"
		}
		x := b.expr(e.Args[0], inner)
		pc, ok := b.expr(e.Args[1], inner).(*Const)
		decimalP := ok && !pc.V.Null && pc.V.T.IsDecimal()
		switch t := x.Type(); {
		case cont && t.IsDecimal() && decimalP:
			// BigQuery's NUMERIC and BIGNUMERIC signatures take a decimal
			// value and a decimal percentile: exact, in the wider of their
			// types. (A FLOAT64 percentile makes it the FLOAT64 one.)
			if pc.V.T.Kind == types.KindBigNumeric {
				t = pc.V.T
			}
			xc, err := coerceTo(x, t)
			if err != nil {
				b.fail(e.Args[0].Pos(), "%s: %v", up, err)
			}
			p, err := types.DecimalFromRat(t, pc.V.Rat())
			if err != nil || p.Rat().Sign() < 0 || p.Rat().Cmp(big.NewRat(1, 1)) > 0 {
				b.fail(e.Args[1].Pos(), "%s's percentile must be a constant from 0 to 1", up)
			}
			call.T = t
			call.Args = []Expr{xc, &Const{V: p}}
			return
		case cont:
			c, err := coerceTo(x, types.Float64)
			if err != nil {
				b.fail(e.Args[0].Pos(), "%s needs a number, not %s", up, t)
			}
			x = c
		case t.Kind == types.KindNull:
			x = &Const{V: types.NullOf(types.Int64)}
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
				call.Args = []Expr{x, &Const{V: types.FloatValue(types.DecimalToFloat(pc.V))}}
			} else {
				call.Args = []Expr{x, pc}
			}
			return
		}
		if !ok || pc.V.Null || !pc.V.T.IsNumeric() || pc.V.Float() < 0 || pc.V.Float() > 1 || math.IsNaN(pc.V.Float()) {
			b.fail(e.Args[1].Pos(), "%s's percentile must be a constant from 0 to 1", up)
		}
		call.T = x.Type()
		call.Args = []Expr{x, &Const{V: types.FloatValue(pc.V.Float())}}
	}
}

// bindLagLead binds LAG/LEAD(x [, offset [, default]]): the offset a
// constant of at least 0 (1 when absent), the default an expression of x's
// type (NULL when absent).
func bindLagLead(b *binder, e *sqlparse.Call, inner *exprCtx, call *WindowCall) {
	bindValueArg(b, e, inner, call)
	up := strings.ToUpper(call.Fn)
	off := int64(1)
	if len(e.Args) > 1 {
		off = b.constAtLeast(e.Args[1], up+"'s offset", 0)
	}
	call.Args = append(call.Args, &Const{V: types.IntValue(off)})
	def := Expr(&Const{V: types.NullOf(call.T)})
	if len(e.Args) > 2 {
		d := b.expr(e.Args[2], inner)
		c, err := coerceTo(d, call.T)
		if err != nil || !c.Type().Equal(call.T) {
			b.fail(e.Args[2].Pos(), "the default of %s must be a %s, not %s", up, call.T, d.Type())
		}
		if _, ok := c.(*Const); !ok && !b.symbolic {
			b.fail(e.Args[2].Pos(), "the default of %s must be a constant", up)
		}
		def = c
	}
	call.Args = append(call.Args, def)
}

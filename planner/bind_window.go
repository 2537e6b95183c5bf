package planner

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Analytic (window) functions, as BigQuery has them:
//
//	ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE(n)
//	LAG(x [, offset [, default]]), LEAD(…)
//	FIRST_VALUE(x [IGNORE NULLS]), LAST_VALUE(…), NTH_VALUE(x, n [IGNORE NULLS])
//	any aggregate but APPROX_QUANTILES and APPROX_TOP_COUNT
//
// each with OVER ([named window] [PARTITION BY …] [ORDER BY …] [frame]) or
// OVER name, names coming from the SELECT's WINDOW clause. They may appear
// in the select list, ORDER BY and QUALIFY, are computed after GROUP BY and
// HAVING (so their arguments may read group keys and aggregates:
// SUM(COUNT(*)) OVER ()), and do not nest. Numbering functions but
// ROW_NUMBER, and LAG/LEAD, need an ORDER BY; only aggregates and
// FIRST_VALUE/LAST_VALUE/NTH_VALUE take a frame. The default frame is the
// whole partition without ORDER BY, and RANGE BETWEEN UNBOUNDED PRECEDING
// AND CURRENT ROW with it. RANGE with an offset needs exactly one numeric
// ORDER BY key. DISTINCT (COUNT(DISTINCT x) OVER …) is taken without ORDER BY
// and frame only; ORDER BY and LIMIT inside an aggregate are refused.

// winCollector gathers the analytic calls of one SELECT, sharing identical
// ones, and holds the SELECT's WINDOW clause.
type winCollector struct {
	calls []WindowCall
	keys  []string
	pos   []int
	named map[string]*sqlparse.WindowSpec
}

// winRef stands for an analytic call's result until the Window node that
// computes it is built (placeWins).
type winRef struct {
	i int
	T types.Type
}

func (w *winRef) Type() types.Type                   { return w.T }
func (w *winRef) Children() []expr.Expr              { return nil }
func (w *winRef) WithChildren([]expr.Expr) expr.Expr { return w }
func (w *winRef) String() string                     { return fmt.Sprintf("$win%d", w.i) }

func (c *winCollector) add(call WindowCall, pos int) *winRef {
	key := call.String()
	for i, k := range c.keys {
		if k == key {
			return &winRef{i: i, T: call.T}
		}
	}
	c.calls = append(c.calls, call)
	c.keys = append(c.keys, key)
	c.pos = append(c.pos, pos)
	return &winRef{i: len(c.calls) - 1, T: call.T}
}

// namedWindows binds a WINDOW clause: each name to its full specification
// (a window may refine one named before it).
func (b *binder) namedWindows(ws []*sqlparse.NamedWindow) map[string]*sqlparse.WindowSpec {
	named := map[string]*sqlparse.WindowSpec{}
	for _, w := range ws {
		key := strings.ToLower(w.Name)
		if named[key] != nil {
			b.fail(w.At, "window %s is defined twice", w.Name)
		}
		named[key] = b.resolveWindow(w.Spec, named)
	}
	return named
}

// resolveWindow merges a specification with the named window it refines:
// the refinement may add an ORDER BY or a frame the base lacks, never a
// PARTITION BY.
func (b *binder) resolveWindow(s *sqlparse.WindowSpec, named map[string]*sqlparse.WindowSpec) *sqlparse.WindowSpec {
	if s.Base == "" {
		return s
	}
	base := named[strings.ToLower(s.Base)]
	if base == nil {
		b.fail(s.At, "unrecognized window name %s", s.Base)
	}
	out := *base
	out.At, out.Base = s.At, ""
	if len(s.PartitionBy) > 0 {
		b.fail(s.PartitionBy[0].Pos(), "PARTITION BY cannot refine window %s", s.Base)
	}
	if len(s.OrderBy) > 0 {
		if len(base.OrderBy) > 0 {
			b.fail(s.OrderBy[0].At, "window %s already has an ORDER BY", s.Base)
		}
		out.OrderBy = s.OrderBy
	}
	if s.Frame != nil {
		if base.Frame != nil {
			b.fail(s.Frame.At, "window %s already has a frame", s.Base)
		}
		out.Frame = s.Frame
	}
	return &out
}

// windowCall binds f(…) OVER (…) into the SELECT's winCollector.
func (b *binder) windowCall(e *sqlparse.Call, name string, safe bool, ctx *exprCtx) expr.Expr {
	up := strings.ToUpper(name)
	if ctx.wins == nil {
		b.fail(e.At, "analytic function %s is not allowed here (only in the select list, ORDER BY and QUALIFY)", up)
	}
	if safe {
		b.fail(e.At, "the SAFE. prefix is not supported on analytic function %s", up)
	}
	spec := b.resolveWindow(e.Over, ctx.wins.named)
	// Arguments, partitions and keys read the row the window sees (group
	// keys and aggregates in a grouped SELECT); analytic calls do not nest.
	// In ORDER BY and QUALIFY they may name select-list aliases (never an
	// analytic one: ident refuses it); in the select list there are none.
	inner := &exprCtx{sc: ctx.sc, aggs: ctx.aggs, aliases: ctx.aliases, inWindow: true}
	// The function's arguments may not read a WITH expression's variable
	// (BigQuery's rule); its PARTITION BY and ORDER BY are bound as the
	// window reads them (a named window's may be written outside the WITH).
	args := *inner
	args.noLets = ctx.lets
	call := WindowCall{Fn: name}
	for _, p := range spec.PartitionBy {
		x := b.expr(p, inner)
		if t := x.Type(); t.Kind == types.KindString && t.Collation() != "" {
			x = b.keyOf(p.Pos(), x, t.Collation()) // partitions of the collation's equal strings
		}
		b.orderable(p.Pos(), "PARTITION BY", x.Type())
		if k := x.Type().Kind; k == types.KindArray || k == types.KindStruct {
			b.fail(p.Pos(), "PARTITION BY cannot group by %s", x.Type())
		}
		call.Partition = append(call.Partition, x)
	}
	for _, o := range spec.OrderBy {
		x := b.expr(o.Expr, inner)
		if !x.Type().Orderable() {
			b.fail(o.Expr.Pos(), "ORDER BY in a window cannot order %s", x.Type())
		}
		call.Order = append(call.Order, b.sortKey(o, x))
	}
	framed := true
	switch {
	case expr.IsAggregate(name):
		if !expr.LookupAgg(name).Window {
			b.fail(e.At, "%s is not supported as an analytic function", up)
		}
		agg := b.aggCall(e, name, &args)
		if len(agg.Order) > 0 || agg.HasLimit {
			b.fail(e.At, "ORDER BY and LIMIT inside %s are not allowed with OVER", up)
		}
		if agg.Distinct && (len(call.Order) > 0 || spec.Frame != nil) {
			b.fail(e.At, "%s(DISTINCT …) OVER takes no ORDER BY and no frame", up)
		}
		call.Fn, call.Agg, call.T = "aggregate", agg, agg.T
	case expr.IsAnalytic(name):
		b.bound(name)
		framed = b.analyticArgs(e, expr.LookupAnalytic(name), &args, &call) // analytic.go
	default:
		if expr.LookupFunc(name) != nil {
			b.fail(e.At, "%s is not an analytic function: it cannot take OVER", up)
		}
		b.fail(e.At, "unknown function %s", e.Name)
	}
	call.Frame = b.windowFrame(spec, &call, framed, up)
	return ctx.wins.add(call, e.At)
}

// windowFrame resolves the frame of a call: written, or the default.
func (b *binder) windowFrame(spec *sqlparse.WindowSpec, call *WindowCall, framed bool, up string) WindowFrame {
	f := spec.Frame
	if f == nil {
		if len(call.Order) == 0 {
			return WindowFrame{Rows: true, Start: FrameBound{Kind: sqlparse.UnboundedPreceding}, End: FrameBound{Kind: sqlparse.UnboundedFollowing}}
		}
		return WindowFrame{Start: FrameBound{Kind: sqlparse.UnboundedPreceding}, End: FrameBound{Kind: sqlparse.CurrentRow}}
	}
	if !framed {
		b.fail(f.At, "%s does not take a window frame", up)
	}
	switch {
	case f.Start.Kind == sqlparse.UnboundedFollowing:
		b.fail(f.Start.At, "a window frame cannot start at UNBOUNDED FOLLOWING")
	case f.End.Kind == sqlparse.UnboundedPreceding:
		b.fail(f.End.At, "a window frame cannot end at UNBOUNDED PRECEDING")
	case f.Start.Kind > f.End.Kind:
		b.fail(f.Start.At, "a window frame cannot start after its end")
	}
	out := WindowFrame{Rows: f.Rows, Start: FrameBound{Kind: f.Start.Kind}, End: FrameBound{Kind: f.End.Kind}}
	offset := func(fb sqlparse.FrameBound) types.Value {
		x := b.expr(fb.Offset, &exprCtx{})
		c, ok := x.(*expr.Const)
		if !ok && b.symbolic {
			return types.IntValue(0)
		}
		if !ok || c.V.Null {
			b.fail(fb.Offset.Pos(), "a window frame offset must be a constant, not NULL")
		}
		if f.Rows {
			if c.V.T.Kind != types.KindInt64 || c.V.I < 0 {
				b.fail(fb.Offset.Pos(), "a ROWS frame offset must be a non-negative integer")
			}
			return c.V
		}
		if len(call.Order) != 1 || !call.Order[0].Expr.Type().IsNumeric() && !call.Order[0].Expr.Type().IsDecimal() && call.Order[0].Expr.Type().Kind != types.KindNull {
			b.fail(f.At, "a RANGE frame with an offset needs exactly one numeric ORDER BY key")
		}
		if kt := call.Order[0].Expr.Type(); kt.IsDecimal() {
			// The offset is a decimal of the key's type (a literal converts).
			d, err := expr.CoerceTo(c, kt)
			k, ok := d.(*expr.Const)
			if err != nil || !ok || k.V.Null || k.V.Scaled().Sign() < 0 {
				b.fail(fb.Offset.Pos(), "a RANGE frame offset must be a non-negative number of the key's type %s", kt)
			}
			return k.V
		}
		if !c.V.T.IsNumeric() || !(c.V.Float() >= 0) { // NaN is not an offset either
			b.fail(fb.Offset.Pos(), "a RANGE frame offset must be a non-negative number, not %s", c.V)
		}
		return c.V
	}
	if f.Start.Kind == sqlparse.OffsetPreceding || f.Start.Kind == sqlparse.OffsetFollowing {
		out.Start.Offset = offset(f.Start)
	}
	if f.End.Kind == sqlparse.OffsetPreceding || f.End.Kind == sqlparse.OffsetFollowing {
		out.End.Offset = offset(f.End)
	}
	if !f.Rows && len(call.Order) == 0 && (out.Start.Kind != sqlparse.UnboundedPreceding || out.End.Kind != sqlparse.UnboundedFollowing) {
		// Without ORDER BY every row is a peer of every other, so a RANGE
		// frame could only be the whole partition: GoogleSQL accepts only
		// the frame that says so, rather than one that reads narrower.
		b.fail(f.At, "a RANGE frame without ORDER BY takes every row: only RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING is allowed (add an ORDER BY, or use ROWS)")
	}
	return out
}

// windowNode builds the Window over plan (the FROM row, or the Aggregate's
// output when grouped) for the collected calls; place moves each call's
// expressions onto plan's columns. It returns the node and the index of the
// first call's column.
func (b *binder) windowNode(plan Node, wins *winCollector, place func(e expr.Expr, pos int) expr.Expr) (Node, int) {
	if len(wins.calls) == 0 {
		return plan, 0
	}
	base := len(plan.Columns())
	w := &Window{In: plan, Cols: append([]Column(nil), plan.Columns()...)}
	for i, c := range wins.calls {
		pos := wins.pos[i]
		c.mapExprs(func(e expr.Expr) expr.Expr { return place(e, pos) })
		w.Calls = append(w.Calls, c)
		w.Cols = append(w.Cols, Column{Name: fmt.Sprintf("$win%d", i), T: c.T})
	}
	return w, base
}

// placeWins replaces each winRef by a read of its Window column.
func placeWins(e expr.Expr, base int) expr.Expr {
	return expr.MapExpr(e, func(x expr.Expr) expr.Expr {
		if w, ok := x.(*winRef); ok {
			return &expr.ColRef{Idx: base + w.i, T: w.T, Name: w.String()}
		}
		return x
	})
}

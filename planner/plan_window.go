package planner

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Window computes analytic functions: its output is every input column,
// unchanged and in input order, then one column per call. A SELECT's
// window functions are computed after its GROUP BY and HAVING and before
// QUALIFY, DISTINCT and ORDER BY (bind_window.go).
type Window struct {
	In    Node
	Calls []WindowCall
	Cols  []Column
	// TopN > 0 says that a filter above keeps only rows whose one call,
	// a ROW_NUMBER, is at most TopN: the executor may keep just the first
	// TopN rows of each partition while it reads (windowTopN).
	TopN int64
}

// WindowCall is one analytic function over the Window's input rows.
type WindowCall struct {
	// Fn is a numbering function (row_number, rank, dense_rank,
	// percent_rank, cume_dist, ntile), a navigation function (lag, lead,
	// first_value, last_value, nth_value) or "aggregate", in which case Agg
	// is the aggregate computed over each row's frame.
	Fn          string
	Args        []expr.Expr // over the input row; constants where the function asks for them
	Agg         expr.AggCall
	Partition   []expr.Expr
	Order       []SortKey
	Frame       WindowFrame
	IgnoreNulls bool // FIRST_VALUE, LAST_VALUE, NTH_VALUE … IGNORE NULLS
	// RespectNulls: PERCENTILE_CONT/DISC(x, p RESPECT NULLS), which count
	// NULLs (ordered first) where they otherwise skip them.
	RespectNulls bool
	T            types.Type
}

// WindowFrame is the set of rows of its partition an aggregate or a
// FIRST_VALUE/LAST_VALUE/NTH_VALUE reads for the current row. ROWS bounds
// count rows; RANGE bounds are offsets from the current row's ORDER BY key
// (CURRENT ROW takes in its peers, the rows with an equal key).
type WindowFrame struct {
	Rows       bool
	Start, End FrameBound
}

// FrameBound is one end of a frame. Offset is an INT64 (ROWS) or a number of
// the ORDER BY key's type (RANGE), set for the offset kinds.
type FrameBound struct {
	Kind   sqlparse.BoundKind
	Offset types.Value
}

// WholePartition reports whether the frame is every row of the partition.
func (f WindowFrame) WholePartition() bool {
	return f.Start.Kind == sqlparse.UnboundedPreceding && f.End.Kind == sqlparse.UnboundedFollowing
}

func (n *Window) Columns() []Column           { return n.Cols }
func (n *Window) Children() []Node            { return []Node{n.In} }
func (n *Window) WithChildren(ch []Node) Node { n.In = oneChild(n, ch); return n }

func (n *Window) explain() string {
	var calls []string
	for _, c := range n.Calls {
		calls = append(calls, c.String())
	}
	top := ""
	if n.TopN > 0 {
		top = fmt.Sprintf(" topN=%d", n.TopN)
	}
	return "Window [" + strings.Join(calls, ", ") + "]" + top
}

// String renders the call for plans and for sharing identical calls.
func (c *WindowCall) String() string {
	var b strings.Builder
	fn, args := c.Fn, c.Args
	if c.Fn == "aggregate" {
		fn, args = c.Agg.Fn, c.Agg.Args
		if c.Agg.Distinct {
			fn += " distinct"
		}
		if c.Agg.Star {
			fn += " *"
		}
	}
	b.WriteString(fn + "(" + exprList(args, nil) + ")")
	if c.IgnoreNulls {
		b.WriteString(" ignore nulls")
	}
	if c.RespectNulls {
		b.WriteString(" respect nulls")
	}
	b.WriteString(" over (")
	if len(c.Partition) > 0 {
		b.WriteString("partition " + exprList(c.Partition, nil) + " ")
	}
	if len(c.Order) > 0 {
		var keys []string
		for _, k := range c.Order {
			s := k.Expr.String()
			if k.Desc {
				s += " desc"
			}
			if k.NullsFirst != !k.Desc {
				s += fmt.Sprintf(" nullsfirst=%v", k.NullsFirst)
			}
			keys = append(keys, s)
		}
		b.WriteString("order " + strings.Join(keys, ", ") + " ")
	}
	unit := "range"
	if c.Frame.Rows {
		unit = "rows"
	}
	fmt.Fprintf(&b, "%s %s..%s)", unit, c.Frame.Start, c.Frame.End)
	return b.String()
}

func (fb FrameBound) String() string {
	switch fb.Kind {
	case sqlparse.UnboundedPreceding:
		return "unbounded"
	case sqlparse.UnboundedFollowing:
		return "unbounded"
	case sqlparse.CurrentRow:
		return "current"
	case sqlparse.OffsetPreceding:
		return fb.Offset.String() + " preceding"
	}
	return fb.Offset.String() + " following"
}

// mapExprs replaces every expression the call holds by f(expression).
func (c *WindowCall) mapExprs(f func(expr.Expr) expr.Expr) {
	for _, es := range [][]expr.Expr{c.Args, c.Agg.Args, c.Partition} {
		for i, e := range es {
			es[i] = f(e)
		}
	}
	for i := range c.Order {
		c.Order[i].Expr = f(c.Order[i].Expr)
	}
}

// windowTopN marks a Window whose only call is ROW_NUMBER when a Filter right
// above it keeps rows numbered at most k (rn = 1, rn <= k, rn < k+1, as
// QUALIFY or a WHERE over a derived table writes "the newest k per group"):
// the rows past k in each partition can then be dropped as they are read,
// instead of all being kept and sorted. The filter stays.
func windowTopN(n Node) Node {
	mapInputs(n, windowTopN)
	f, ok := n.(*Filter)
	if !ok {
		return n
	}
	w, ok := f.In.(*Window)
	if !ok || len(w.Calls) != 1 || w.Calls[0].Fn != "row_number" {
		return n
	}
	col := len(w.Cols) - 1
	for _, c := range expr.SplitAnd(f.Cond) {
		call, ok := c.(*expr.Call)
		if !ok || len(call.Args) != 2 {
			continue
		}
		fn, a, b := call.Fn, call.Args[0], call.Args[1]
		if _, ok := a.(*expr.Const); ok { // k >= rn is rn <= k
			a, b = b, a
			fn = map[string]string{"=": "=", ">=": "<=", ">": "<"}[fn]
		}
		ref, isRef := a.(*expr.ColRef)
		k, isConst := b.(*expr.Const)
		if !isRef || !isConst || ref.Idx != col || k.V.Null || k.V.T.Kind != types.KindInt64 {
			continue
		}
		limit := int64(0)
		switch fn {
		case "=", "<=":
			limit = k.V.I
		case "<":
			limit = k.V.I - 1
		}
		if limit > 0 && (w.TopN == 0 || limit < w.TopN) {
			w.TopN = limit
		}
	}
	return n
}

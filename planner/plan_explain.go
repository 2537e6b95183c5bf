package planner

import (
	"fmt"
	"logq/expr"
	"strings"
)

// Explain renders a plan as an indented tree, one node per line (each
// node's explain), its inputs below it.
func Explain(n Node) string {
	var b strings.Builder
	explainTree(&b, n, 0)
	return b.String()
}

func explainTree(b *strings.Builder, n Node, depth int) {
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(n.explain())
	b.WriteByte('\n')
	for _, in := range n.Children() {
		explainTree(b, in, depth+1)
	}
}

func (n *Scan) explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scan %s", n.Source)
	var f []string
	for _, sf := range n.Fields {
		switch {
		case sf.Presence:
			f = append(f, "present("+sf.Path+")")
		case sf.Late:
			f = append(f, "late("+sf.Path+")")
		default:
			f = append(f, sf.Path)
		}
	}
	fmt.Fprintf(&b, " [%s]", strings.Join(f, ", "))
	if n.TimeLo != minTime || n.TimeHi != maxTime {
		fmt.Fprintf(&b, " time=[%s, %s]", fmtBound(n.TimeLo), fmtBound(n.TimeHi))
	}
	for _, e := range n.Eq {
		fmt.Fprintf(&b, " %s=%q", n.Fields[e.Field].Path, e.Value)
	}
	for _, p := range n.Present {
		fmt.Fprintf(&b, " present(%s)", p)
	}
	if n.Filter != nil {
		fmt.Fprintf(&b, " filter=%s", n.Filter)
	}
	if n.Empty {
		b.WriteString(" EMPTY")
	}
	return b.String()
}

func (n *Values) explain() string  { return fmt.Sprintf("Values rows=%d", len(n.Rows)) }
func (n *Filter) explain() string  { return fmt.Sprintf("Filter %s", n.Cond) }
func (n *Project) explain() string { return "Project " + exprList(n.Exprs, n.Cols) }
func (n *Unnest) explain() string {
	if n.Cond != nil {
		return fmt.Sprintf("Unnest %s left=%v offset=%v on=%s", n.Expr, n.Left, n.WithOffset, n.Cond)
	}
	return fmt.Sprintf("Unnest %s left=%v offset=%v", n.Expr, n.Left, n.WithOffset)
}
func (n *Limit) explain() string {
	if n.N == noLimit {
		return fmt.Sprintf("Limit ALL offset=%d", n.Offset)
	}
	return fmt.Sprintf("Limit %d offset=%d", n.N, n.Offset)
}
func (n *Union) explain() string { return "UnionAll" }

func (n *Aggregate) explain() string {
	var aggs []string
	for _, a := range n.Aggs {
		s := a.Fn + "("
		if a.Distinct {
			s += "DISTINCT "
		}
		if a.Star {
			s += "*"
		}
		var args []string
		for _, x := range a.Args {
			args = append(args, x.String())
		}
		s += strings.Join(args, ", ")
		if a.RespectNulls {
			s += " RESPECT NULLS"
		}
		s += ")"
		if a.Ranks != nil {
			// The array holds these ranks alone; the reads index it.
			s += fmt.Sprintf("ranks%v at [0..%d]", a.Ranks, len(a.Ranks)-1)
		}
		aggs = append(aggs, s)
	}
	var keys []string
	for _, k := range n.Keys {
		keys = append(keys, k.String())
	}
	out := fmt.Sprintf("Aggregate keys=[%s] aggs=[%s]", strings.Join(keys, ", "), strings.Join(aggs, ", "))
	if n.Sets != nil {
		out += explainSets(n.Sets)
	}
	return out
}

func (n *Sort) explain() string {
	var keys []string
	for _, k := range n.Keys {
		s := k.Expr.String()
		if k.Desc {
			s += " DESC"
		}
		keys = append(keys, s)
	}
	if n.Limit >= 0 {
		return fmt.Sprintf("TopK %d offset=%d [%s]", n.Limit, n.Offset, strings.Join(keys, ", "))
	}
	return fmt.Sprintf("Sort [%s]", strings.Join(keys, ", "))
}

func (n *Join) explain() string {
	var b strings.Builder
	kind := [...]string{"Inner", "Left", "Cross", "Right", "Full"}[n.Kind]
	fmt.Fprintf(&b, "%sJoin", kind)
	if len(n.LeftKeys) > 0 {
		fmt.Fprintf(&b, " hash %s = %s", exprList(n.LeftKeys, nil), exprList(n.RightKeys, nil))
	}
	if n.Cond != nil {
		fmt.Fprintf(&b, " on %s", n.Cond)
	}
	return b.String()
}

func exprList(es []expr.Expr, cols []Column) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
		if cols != nil && cols[i].Name != "" {
			parts[i] += " AS " + cols[i].Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

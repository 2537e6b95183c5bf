package planner

import (
	"fmt"
	"logq/expr"
)

// RecursiveUnion is a recursive CTE, `base UNION ALL step`: the rows of
// Base, then the rows of Step run over the rows the run before it made
// (read in Step through Work), again and again until a run makes no row.
// BigQuery stops a recursion that has not ended after MaxRecursion runs
// of Step with an error, and so does the executor.
type RecursiveUnion struct {
	Base, Step Node
	Work       *WorkTable
	Cols       []Column
	// Distinct is UNION DISTINCT: a row made before (by the base or any
	// step, or earlier in the same run) is dropped, and only new rows feed
	// the next run.
	Distinct bool
}

// WorkTable is where Step of a RecursiveUnion reads the rows of the run
// before; the executor feeds it (exec/op_recursive.go).
type WorkTable struct {
	Name string // the CTE's name, for EXPLAIN
	Cols []Column
}

// MaxRecursion is how many times a recursive CTE's step may run, as in
// BigQuery ("Recursive query exceeded 500 iterations").
const MaxRecursion = 500

func (n *RecursiveUnion) Columns() []Column { return n.Cols }
func (n *RecursiveUnion) Children() []Node  { return []Node{n.Base, n.Step} }
func (n *RecursiveUnion) WithChildren(ch []Node) Node {
	mustChildren(n, ch, 2)
	n.Base, n.Step = ch[0], ch[1]
	return n
}
func (n *RecursiveUnion) Expressions() []expr.Expr { return nil }
func (n *RecursiveUnion) WithExpressions(es []expr.Expr) Node {
	setExprs(n, nil, es)
	return n
}
func (n *RecursiveUnion) explain() string {
	kind := "All"
	if n.Distinct {
		kind = "Distinct"
	}
	return fmt.Sprintf("RecursiveUnion%s %s (at most %d steps)", kind, n.Work.Name, MaxRecursion)
}

// prune keeps every column: Step's rows feed the next run in the layout
// Base made.
func (n *RecursiveUnion) prune(map[int]bool) (Node, map[int]int) {
	every := map[int]bool{}
	for i := range n.Cols {
		every[i] = true
	}
	n.Base, _ = prune(n.Base, every)
	n.Step, _ = prune(n.Step, every)
	return n, identity(len(n.Cols))
}

func (n *WorkTable) Columns() []Column                      { return n.Cols }
func (n *WorkTable) Children() []Node                       { return nil }
func (n *WorkTable) WithChildren(ch []Node) Node            { mustChildren(n, ch, 0); return n }
func (n *WorkTable) Expressions() []expr.Expr               { return nil }
func (n *WorkTable) WithExpressions(es []expr.Expr) Node    { setExprs(n, nil, es); return n }
func (n *WorkTable) explain() string                        { return "WorkTable " + n.Name }
func (n *WorkTable) prune(map[int]bool) (Node, map[int]int) { return n, identity(len(n.Cols)) }

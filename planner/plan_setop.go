package planner

import "strings"

// SetOpKind is the kind of a SetOp node.
type SetOpKind uint8

// Set operations other than UNION ALL (a Union node) and UNION DISTINCT (an
// Aggregate over a Union).
const (
	SetIntersect SetOpKind = iota // INTERSECT DISTINCT
	SetExcept                     // EXCEPT DISTINCT
)

// SetOp is INTERSECT or EXCEPT of two inputs of the same shape (the binder
// has coerced both to the same column types). DISTINCT: the distinct rows of
// Left that are (INTERSECT) or are not (EXCEPT) rows of Right, in the order
// of their first appearance in Left. ALL (ZetaSQL's; BigQuery has only
// DISTINCT) counts: a row m times in Left and n in Right comes out min(m, n)
// times (INTERSECT) or max(m - n, 0) times (EXCEPT). NULLs compare equal,
// as in GROUP BY.
type SetOp struct {
	Kind        SetOpKind
	All         bool
	Left, Right Node
	Cols        []Column
}

func (n *SetOp) Columns() []Column { return n.Cols }
func (n *SetOp) Children() []Node  { return []Node{n.Left, n.Right} }
func (n *SetOp) WithChildren(ch []Node) Node {
	mustChildren(n, ch, 2)
	n.Left, n.Right = ch[0], ch[1]
	return n
}

// String names the operation as SQL writes it.
// Name is the operation as SQL writes it: INTERSECT ALL, EXCEPT DISTINCT, …
func (n *SetOp) Name() string {
	op, mode := "EXCEPT", "DISTINCT"
	if n.Kind == SetIntersect {
		op = "INTERSECT"
	}
	if n.All {
		mode = "ALL"
	}
	return op + " " + mode
}

func (n *SetOp) explain() string {
	words := strings.Fields(strings.ToLower(n.Name()))
	return strings.ToUpper(words[0][:1]) + words[0][1:] + strings.ToUpper(words[1][:1]) + words[1][1:]
}

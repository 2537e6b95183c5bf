package planner

import (
	"fmt"

	"logq/expr"
	"logq/types"
)

// Node is a logical plan operator. Nodes are data; the executor builds one
// physical operator per node.
//
// A node walks and prints itself, so that generic passes need no type
// switch and a new node type cannot be forgotten by one: Children and
// WithChildren (its inputs: Inputs, mapInputs, the walks of bind and
// optimize), Expressions and WithExpressions (the expressions it holds:
// MapExprs, Subqueries; plan_exprs.go), explain (its line in Explain;
// plan_explain.go) and prune (column pruning; prune.go). Only planner
// defines nodes.
type Node interface {
	Columns() []Column
	// Children returns the node's inputs, in order.
	Children() []Node
	// WithChildren replaces the inputs by children (same number, same
	// order) and returns the node. It works in place: a plan is built per
	// call and its nodes are not shared between plans.
	WithChildren(children []Node) Node
	// Expressions returns the expressions the node holds itself (not its
	// inputs'), in a fixed order.
	Expressions() []expr.Expr
	// WithExpressions replaces them (same number, same order), in place,
	// and returns the node.
	WithExpressions(es []expr.Expr) Node
	// explain is the node's own line of Explain.
	explain() string
	// prune keeps the output columns in need, and what computing them
	// reads, and returns the node with a map from old to new positions.
	prune(need map[int]bool) (Node, map[int]int)
}

// Column is one output column of a node.
type Column struct {
	Name  string
	Table string // qualifier it can be reached by, lower-case ("" when none)
	T     types.Type
}

// ScanField is one value a Scan produces per event.
type ScanField struct {
	Path string
	T    types.Type
	// Presence reads whether the object at Path exists (BOOL, NULL when absent).
	Presence bool
	// Late (lateFields) says the field is only carried to an operator that
	// keeps a few rows of many: the scan may hand on references to the rows
	// and read the values of the kept ones only.
	Late bool
}

// Scan reads events of one log source. Filter is evaluated inside the scan
// over its own output columns; TimeLo/TimeHi (µs, inclusive) and Eq prune
// whole segments and are checked per event before anything else is read.
type Scan struct {
	Source         string
	Alias          string
	Fields         []ScanField
	Filter         expr.Expr // nil when none
	TimeLo, TimeHi int64
	Eq             []EqPred
	// Present lists nested objects every row must have (CROSS JOIN UNNEST of
	// a stored object), checked per segment before anything is read.
	Present []string
	Empty   bool // a predicate is constantly false: read nothing
	cols    []Column
	// nowBounds, in a template only, are bounds on the time made of the
	// query's time, applied to TimeLo/TimeHi once it is known (template.go).
	nowBounds []nowBound
}

// EqPred is `field = constant string`, answered from dictionaries.
type EqPred struct {
	Field int
	Value string
}

// Values produces constant rows (a SELECT without FROM has one empty row).
type Values struct {
	Rows [][]expr.Expr
	Cols []Column
}

// Filter keeps rows where Cond is TRUE.
type Filter struct {
	In   Node
	Cond expr.Expr
}

// Project computes Exprs over each input row.
type Project struct {
	In    Node
	Exprs []expr.Expr
	Cols  []Column
}

// JoinKind of a Join node.
type JoinKind uint8

// Join kinds the executor supports.
const (
	JoinInner JoinKind = iota
	JoinLeft
	JoinCross
	JoinRight // unmatched right rows too, NULL-extended on the left
	JoinFull  // unmatched rows of both sides
)

// Join combines two inputs. With LeftKeys/RightKeys it is a hash join on
// their equality; Cond is the rest of the ON condition, over the concatenated
// row. The output is left columns then right columns.
type Join struct {
	Left, Right         Node
	Kind                JoinKind
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
}

// Unnest emits one row per element of Expr (evaluated over the input row),
// appending the element (and, WithOffset, its 0-based offset). Left keeps a
// row with NULL for an empty or NULL array. Cond (LEFT JOIN UNNEST … ON
// cond; nil otherwise) is over the output row: an element row is kept only
// where it is TRUE, and an input row none of whose elements is kept gets
// the NULL row.
type Unnest struct {
	In         Node
	Expr       expr.Expr
	Left       bool
	WithOffset bool
	Cols       []Column
	Cond       expr.Expr
}

// Aggregate groups its input by Keys and computes Aggs; the output is the
// keys then the aggregates. With no keys it yields exactly one row.
//
// With Sets (GROUP BY ROLLUP, CUBE, GROUPING SETS) it groups each input row
// once per set: Sets[i][k] says whether set i groups by key k (a key it
// does not group by is NULL in that set's rows), and the last key, which
// has no entry in the sets, is the set's number i, filled in by the
// executor (its expression is a placeholder). A set grouping by nothing
// yields one row even from no input.
type Aggregate struct {
	In   Node
	Keys []expr.Expr
	Aggs []expr.AggCall
	Cols []Column
	Sets [][]bool
	// Kept is, in a plan copied from a Template, the template's node this
	// one was copied from, when the time bounds of the scan under it are
	// all that can differ from one call to the next (Template.steady): the
	// same node then stands for the same computation over any rows those
	// bounds cover. Nil otherwise, and in a plan bound directly.
	Kept *Aggregate
}

// SortKey orders rows.
type SortKey struct {
	Expr       expr.Expr
	Desc       bool
	NullsFirst bool
}

// Sort orders its input. Limit ≥ 0 makes it a top-k that keeps only the first
// Limit rows (after Offset).
type Sort struct {
	In     Node
	Keys   []SortKey
	Limit  int64
	Offset int64
}

// Limit passes at most N rows after skipping Offset.
type Limit struct {
	In        Node
	N, Offset int64
}

// Union concatenates inputs of the same shape (UNION ALL).
type Union struct {
	Inputs []Node
	Cols   []Column
}

func (n *Scan) Columns() []Column      { return n.cols }
func (n *Values) Columns() []Column    { return n.Cols }
func (n *Filter) Columns() []Column    { return n.In.Columns() }
func (n *Project) Columns() []Column   { return n.Cols }
func (n *Unnest) Columns() []Column    { return n.Cols }
func (n *Aggregate) Columns() []Column { return n.Cols }
func (n *Sort) Columns() []Column      { return n.In.Columns() }
func (n *Limit) Columns() []Column     { return n.In.Columns() }
func (n *Union) Columns() []Column     { return n.Cols }
func (n *Join) Columns() []Column {
	return append(append([]Column(nil), n.Left.Columns()...), n.Right.Columns()...)
}

// Inputs returns the children of a node.
func Inputs(n Node) []Node { return n.Children() }

// mapInputs replaces each input of n by f(input), in place.
func mapInputs(n Node, f func(Node) Node) {
	ch := n.Children() // a fresh slice, or Union's own Inputs: reuse it
	if len(ch) == 0 {
		return
	}
	for i, c := range ch {
		ch[i] = f(c)
	}
	n.WithChildren(ch)
}

func (n *Scan) Children() []Node      { return nil }
func (n *Values) Children() []Node    { return nil }
func (n *Filter) Children() []Node    { return []Node{n.In} }
func (n *Project) Children() []Node   { return []Node{n.In} }
func (n *Unnest) Children() []Node    { return []Node{n.In} }
func (n *Aggregate) Children() []Node { return []Node{n.In} }
func (n *Sort) Children() []Node      { return []Node{n.In} }
func (n *Limit) Children() []Node     { return []Node{n.In} }
func (n *Join) Children() []Node      { return []Node{n.Left, n.Right} }
func (n *Union) Children() []Node     { return n.Inputs }

func (n *Scan) WithChildren(ch []Node) Node      { mustChildren(n, ch, 0); return n }
func (n *Values) WithChildren(ch []Node) Node    { mustChildren(n, ch, 0); return n }
func (n *Filter) WithChildren(ch []Node) Node    { n.In = oneChild(n, ch); return n }
func (n *Project) WithChildren(ch []Node) Node   { n.In = oneChild(n, ch); return n }
func (n *Unnest) WithChildren(ch []Node) Node    { n.In = oneChild(n, ch); return n }
func (n *Aggregate) WithChildren(ch []Node) Node { n.In = oneChild(n, ch); return n }
func (n *Sort) WithChildren(ch []Node) Node      { n.In = oneChild(n, ch); return n }
func (n *Limit) WithChildren(ch []Node) Node     { n.In = oneChild(n, ch); return n }
func (n *Join) WithChildren(ch []Node) Node {
	mustChildren(n, ch, 2)
	n.Left, n.Right = ch[0], ch[1]
	return n
}
func (n *Union) WithChildren(ch []Node) Node {
	mustChildren(n, ch, len(n.Inputs))
	copy(n.Inputs, ch)
	return n
}

// oneChild is the only child of a node that has one.
func oneChild(n Node, ch []Node) Node {
	mustChildren(n, ch, 1)
	return ch[0]
}

func mustChildren(n Node, ch []Node, want int) {
	if len(ch) != want {
		panic(fmt.Sprintf("planner: %T takes %d children, got %d", n, want, len(ch)))
	}
}

const (
	minTime = int64(-1 << 63)
	maxTime = int64(1<<63 - 1)
)

func fmtBound(us int64) string {
	switch us {
	case minTime:
		return "-inf"
	case maxTime:
		return "+inf"
	}
	return types.FormatTimestamp(us)
}

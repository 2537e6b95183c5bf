package planner

import (
	"fmt"
	"logq/expr"
)

// The expressions each plan node holds itself (not its inputs'), for the
// generic passes that rewrite or read them in any node: MapExprs (the
// executor puts subqueries' values in), Subqueries, the ClickHouse
// translation. Each node lists them once, as slots (pointers to its
// fields), in a fixed order; Expressions and WithExpressions read and write
// through those.

// exprsOf reads the slots.
func exprsOf(slots []*expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(slots))
	for i, s := range slots {
		out[i] = *s
	}
	return out
}

// setExprs writes es into the slots of node n (same number).
func setExprs(n Node, slots []*expr.Expr, es []expr.Expr) {
	if len(es) != len(slots) {
		panic(fmt.Sprintf("planner: %T holds %d expressions, got %d", n, len(slots), len(es)))
	}
	for i, s := range slots {
		*s = es[i]
	}
}

func (n *Scan) slots() []*expr.Expr {
	if n.Filter == nil {
		return nil
	}
	return []*expr.Expr{&n.Filter}
}

func (n *Values) slots() []*expr.Expr {
	var out []*expr.Expr
	for _, row := range n.Rows {
		for i := range row {
			out = append(out, &row[i])
		}
	}
	return out
}

func (n *Filter) slots() []*expr.Expr  { return []*expr.Expr{&n.Cond} }
func (n *Project) slots() []*expr.Expr { return slotsOf(n.Exprs) }
func (n *Unnest) slots() []*expr.Expr {
	if n.Cond != nil {
		return []*expr.Expr{&n.Expr, &n.Cond}
	}
	return []*expr.Expr{&n.Expr}
}
func (n *Limit) slots() []*expr.Expr { return nil }
func (n *Union) slots() []*expr.Expr { return nil }
func (n *SetOp) slots() []*expr.Expr { return nil }

func (n *Aggregate) slots() []*expr.Expr {
	out := slotsOf(n.Keys)
	for i := range n.Aggs {
		out = append(out, slotsOf(n.Aggs[i].Args)...)
	}
	return out
}

func (n *Sort) slots() []*expr.Expr {
	out := make([]*expr.Expr, len(n.Keys))
	for i := range n.Keys {
		out[i] = &n.Keys[i].Expr
	}
	return out
}

func (n *Join) slots() []*expr.Expr {
	out := append(slotsOf(n.LeftKeys), slotsOf(n.RightKeys)...)
	if n.Cond != nil {
		out = append(out, &n.Cond)
	}
	return out
}

func (n *Window) slots() []*expr.Expr {
	var out []*expr.Expr
	for i := range n.Calls {
		out = append(out, n.Calls[i].slots()...)
	}
	return out
}

// slots of a call: its arguments, its aggregate's, its PARTITION BY and
// ORDER BY, in that order.
func (c *WindowCall) slots() []*expr.Expr {
	out := append(slotsOf(c.Args), slotsOf(c.Agg.Args)...)
	out = append(out, slotsOf(c.Partition)...)
	for i := range c.Order {
		out = append(out, &c.Order[i].Expr)
	}
	return out
}

func slotsOf(es []expr.Expr) []*expr.Expr {
	out := make([]*expr.Expr, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}

func (n *Scan) Expressions() []expr.Expr      { return exprsOf(n.slots()) }
func (n *Values) Expressions() []expr.Expr    { return exprsOf(n.slots()) }
func (n *Filter) Expressions() []expr.Expr    { return exprsOf(n.slots()) }
func (n *Project) Expressions() []expr.Expr   { return exprsOf(n.slots()) }
func (n *Unnest) Expressions() []expr.Expr    { return exprsOf(n.slots()) }
func (n *Aggregate) Expressions() []expr.Expr { return exprsOf(n.slots()) }
func (n *Sort) Expressions() []expr.Expr      { return exprsOf(n.slots()) }
func (n *Limit) Expressions() []expr.Expr     { return exprsOf(n.slots()) }
func (n *Join) Expressions() []expr.Expr      { return exprsOf(n.slots()) }
func (n *Union) Expressions() []expr.Expr     { return exprsOf(n.slots()) }
func (n *SetOp) Expressions() []expr.Expr     { return exprsOf(n.slots()) }
func (n *Window) Expressions() []expr.Expr    { return exprsOf(n.slots()) }

func (n *Scan) WithExpressions(es []expr.Expr) Node      { setExprs(n, n.slots(), es); return n }
func (n *Values) WithExpressions(es []expr.Expr) Node    { setExprs(n, n.slots(), es); return n }
func (n *Filter) WithExpressions(es []expr.Expr) Node    { setExprs(n, n.slots(), es); return n }
func (n *Project) WithExpressions(es []expr.Expr) Node   { setExprs(n, n.slots(), es); return n }
func (n *Unnest) WithExpressions(es []expr.Expr) Node    { setExprs(n, n.slots(), es); return n }
func (n *Aggregate) WithExpressions(es []expr.Expr) Node { setExprs(n, n.slots(), es); return n }
func (n *Sort) WithExpressions(es []expr.Expr) Node      { setExprs(n, n.slots(), es); return n }
func (n *Limit) WithExpressions(es []expr.Expr) Node     { setExprs(n, n.slots(), es); return n }
func (n *Join) WithExpressions(es []expr.Expr) Node      { setExprs(n, n.slots(), es); return n }
func (n *Union) WithExpressions(es []expr.Expr) Node     { setExprs(n, n.slots(), es); return n }
func (n *SetOp) WithExpressions(es []expr.Expr) Node     { setExprs(n, n.slots(), es); return n }
func (n *Window) WithExpressions(es []expr.Expr) Node    { setExprs(n, n.slots(), es); return n }

// MapExprs replaces every expression that node n holds itself (not those of
// its inputs) by mapExpr(e, f), i.e. bottom-up, in place. The executor uses
// it to put the values of subqueries into a plan before it runs.
func MapExprs(n Node, f func(expr.Expr) expr.Expr) {
	es := n.Expressions()
	if len(es) == 0 {
		return
	}
	for i, e := range es {
		es[i] = expr.MapExpr(e, f)
	}
	n.WithExpressions(es)
}

// MapSubqueryExprs is MapExprs for the executor, which puts the values of
// subqueries into a plan before it runs: only the slots whose expression
// holds a subquery are rewritten and written. A kept plan's copies
// (template.go) share their other expressions, and the slices holding
// them, between calls running at once.
func MapSubqueryExprs(n Node, f func(expr.Expr) expr.Expr) {
	s, ok := n.(interface{ slots() []*expr.Expr })
	if !ok {
		MapExprs(n, f) // a node that holds no expressions, or none kept
		return
	}
	for _, slot := range s.slots() {
		if holdsSubquery(*slot) {
			*slot = expr.MapExpr(*slot, f)
		}
	}
}

func holdsSubquery(e expr.Expr) bool {
	if _, ok := e.(*Subquery); ok {
		return true
	}
	for _, c := range e.Children() {
		if holdsSubquery(c) {
			return true
		}
	}
	return false
}

// Subqueries returns the subqueries in the expressions that n holds itself
// (not those of its inputs, nor those inside the subqueries' plans).
func Subqueries(n Node) []*Subquery {
	var out []*Subquery
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		if s, ok := e.(*Subquery); ok {
			out = append(out, s)
		}
		for _, c := range e.Children() {
			visit(c)
		}
	}
	for _, e := range n.Expressions() {
		visit(e)
	}
	return out
}

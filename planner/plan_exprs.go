package planner

import "fmt"

// The expressions each plan node holds itself (not its inputs'), for the
// generic passes that rewrite or read them in any node: MapExprs (the
// executor puts subqueries' values in), Subqueries, the ClickHouse
// translation. Each node lists them once, as slots (pointers to its
// fields), in a fixed order; Expressions and WithExpressions read and write
// through those.

// exprsOf reads the slots.
func exprsOf(slots []*Expr) []Expr {
	out := make([]Expr, len(slots))
	for i, s := range slots {
		out[i] = *s
	}
	return out
}

// setExprs writes es into the slots of node n (same number).
func setExprs(n Node, slots []*Expr, es []Expr) {
	if len(es) != len(slots) {
		panic(fmt.Sprintf("planner: %T holds %d expressions, got %d", n, len(slots), len(es)))
	}
	for i, s := range slots {
		*s = es[i]
	}
}

func (n *Scan) slots() []*Expr {
	if n.Filter == nil {
		return nil
	}
	return []*Expr{&n.Filter}
}

func (n *Values) slots() []*Expr {
	var out []*Expr
	for _, row := range n.Rows {
		for i := range row {
			out = append(out, &row[i])
		}
	}
	return out
}

func (n *Filter) slots() []*Expr  { return []*Expr{&n.Cond} }
func (n *Project) slots() []*Expr { return slotsOf(n.Exprs) }
func (n *Unnest) slots() []*Expr {
	if n.Cond != nil {
		return []*Expr{&n.Expr, &n.Cond}
	}
	return []*Expr{&n.Expr}
}
func (n *Limit) slots() []*Expr { return nil }
func (n *Union) slots() []*Expr { return nil }
func (n *SetOp) slots() []*Expr { return nil }

func (n *Aggregate) slots() []*Expr {
	out := slotsOf(n.Keys)
	for i := range n.Aggs {
		out = append(out, slotsOf(n.Aggs[i].Args)...)
	}
	return out
}

func (n *Sort) slots() []*Expr {
	out := make([]*Expr, len(n.Keys))
	for i := range n.Keys {
		out[i] = &n.Keys[i].Expr
	}
	return out
}

func (n *Join) slots() []*Expr {
	out := append(slotsOf(n.LeftKeys), slotsOf(n.RightKeys)...)
	if n.Cond != nil {
		out = append(out, &n.Cond)
	}
	return out
}

func (n *Window) slots() []*Expr {
	var out []*Expr
	for i := range n.Calls {
		out = append(out, n.Calls[i].slots()...)
	}
	return out
}

// slots of a call: its arguments, its aggregate's, its PARTITION BY and
// ORDER BY, in that order.
func (c *WindowCall) slots() []*Expr {
	out := append(slotsOf(c.Args), slotsOf(c.Agg.Args)...)
	out = append(out, slotsOf(c.Partition)...)
	for i := range c.Order {
		out = append(out, &c.Order[i].Expr)
	}
	return out
}

func slotsOf(es []Expr) []*Expr {
	out := make([]*Expr, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}

func (n *Scan) Expressions() []Expr      { return exprsOf(n.slots()) }
func (n *Values) Expressions() []Expr    { return exprsOf(n.slots()) }
func (n *Filter) Expressions() []Expr    { return exprsOf(n.slots()) }
func (n *Project) Expressions() []Expr   { return exprsOf(n.slots()) }
func (n *Unnest) Expressions() []Expr    { return exprsOf(n.slots()) }
func (n *Aggregate) Expressions() []Expr { return exprsOf(n.slots()) }
func (n *Sort) Expressions() []Expr      { return exprsOf(n.slots()) }
func (n *Limit) Expressions() []Expr     { return exprsOf(n.slots()) }
func (n *Join) Expressions() []Expr      { return exprsOf(n.slots()) }
func (n *Union) Expressions() []Expr     { return exprsOf(n.slots()) }
func (n *SetOp) Expressions() []Expr     { return exprsOf(n.slots()) }
func (n *Window) Expressions() []Expr    { return exprsOf(n.slots()) }

func (n *Scan) WithExpressions(es []Expr) Node      { setExprs(n, n.slots(), es); return n }
func (n *Values) WithExpressions(es []Expr) Node    { setExprs(n, n.slots(), es); return n }
func (n *Filter) WithExpressions(es []Expr) Node    { setExprs(n, n.slots(), es); return n }
func (n *Project) WithExpressions(es []Expr) Node   { setExprs(n, n.slots(), es); return n }
func (n *Unnest) WithExpressions(es []Expr) Node    { setExprs(n, n.slots(), es); return n }
func (n *Aggregate) WithExpressions(es []Expr) Node { setExprs(n, n.slots(), es); return n }
func (n *Sort) WithExpressions(es []Expr) Node      { setExprs(n, n.slots(), es); return n }
func (n *Limit) WithExpressions(es []Expr) Node     { setExprs(n, n.slots(), es); return n }
func (n *Join) WithExpressions(es []Expr) Node      { setExprs(n, n.slots(), es); return n }
func (n *Union) WithExpressions(es []Expr) Node     { setExprs(n, n.slots(), es); return n }
func (n *SetOp) WithExpressions(es []Expr) Node     { setExprs(n, n.slots(), es); return n }
func (n *Window) WithExpressions(es []Expr) Node    { setExprs(n, n.slots(), es); return n }

// MapExprs replaces every expression that node n holds itself (not those of
// its inputs) by mapExpr(e, f), i.e. bottom-up, in place. The executor uses
// it to put the values of subqueries into a plan before it runs.
func MapExprs(n Node, f func(Expr) Expr) {
	es := n.Expressions()
	if len(es) == 0 {
		return
	}
	for i, e := range es {
		es[i] = mapExpr(e, f)
	}
	n.WithExpressions(es)
}

// Subqueries returns the subqueries in the expressions that n holds itself
// (not those of its inputs, nor those inside the subqueries' plans).
func Subqueries(n Node) []*Subquery {
	var out []*Subquery
	var visit func(e Expr)
	visit = func(e Expr) {
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

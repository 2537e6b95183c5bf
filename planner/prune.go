package planner

import (
	"logq/expr"
	"sort"
)

// pruneRoot removes every column no ancestor reads: unused scan fields are
// never read from storage, unused aggregates never computed.
func pruneRoot(n Node) Node {
	all := map[int]bool{}
	for i := range n.Columns() {
		all[i] = true
	}
	out, _ := prune(n, all)
	return out
}

// prune (each node's, below) keeps the required output columns of a node
// (and whatever they need) and returns the new node with a map from old to
// new output positions. It is a method of every node, so that a new node
// type cannot be left out of pruning.
func prune(n Node, need map[int]bool) (Node, map[int]int) { return n.prune(need) }

func (x *Scan) prune(need map[int]bool) (Node, map[int]int) {
	keep := map[int]bool{}
	for i := range need {
		keep[i] = true
	}
	if x.Filter != nil {
		expr.ColsUsed(x.Filter, keep)
	}
	for _, e := range x.Eq {
		keep[e.Field] = true
	}
	m := keepIndexes(len(x.Fields), keep)
	var fields []ScanField
	var cols []Column
	for i, f := range x.Fields {
		if keep[i] {
			fields = append(fields, f)
			cols = append(cols, x.cols[i])
		}
	}
	x.Fields, x.cols = fields, cols
	if x.Filter != nil {
		x.Filter = expr.Remap(x.Filter, m)
	}
	for i := range x.Eq {
		x.Eq[i].Field = m[x.Eq[i].Field]
	}
	return x, m
}

func (x *Values) prune(map[int]bool) (Node, map[int]int) {
	return x, identity(len(x.Cols))
}

func (x *Filter) prune(need map[int]bool) (Node, map[int]int) {
	req := copySet(need)
	expr.ColsUsed(x.Cond, req)
	in, m := prune(x.In, req)
	x.In, x.Cond = in, expr.Remap(x.Cond, m)
	return x, m
}

func (x *Project) prune(need map[int]bool) (Node, map[int]int) {
	idx := sortedKeys(need)
	req := map[int]bool{}
	for _, i := range idx {
		expr.ColsUsed(x.Exprs[i], req)
	}
	in, m := prune(x.In, req)
	p := &Project{In: in}
	out := map[int]int{}
	for k, i := range idx {
		p.Exprs = append(p.Exprs, expr.Remap(x.Exprs[i], m))
		p.Cols = append(p.Cols, x.Cols[i])
		out[i] = k
	}
	return p, out
}

func (x *Aggregate) prune(need map[int]bool) (Node, map[int]int) {
	nk := len(x.Keys)
	req := map[int]bool{}
	for _, k := range x.Keys {
		expr.ColsUsed(k, req)
	}
	var aggs []expr.AggCall
	out := map[int]int{}
	for i := 0; i < nk; i++ {
		out[i] = i
	}
	cols := append([]Column(nil), x.Cols[:nk]...)
	for i, a := range x.Aggs {
		if !need[nk+i] {
			continue
		}
		for _, arg := range a.Args {
			expr.ColsUsed(arg, req)
		}
		out[nk+i] = nk + len(aggs)
		aggs = append(aggs, a)
		cols = append(cols, x.Cols[nk+i])
	}
	in, m := prune(x.In, req)
	for i := range x.Keys {
		x.Keys[i] = expr.Remap(x.Keys[i], m)
	}
	for i := range aggs {
		args := make([]expr.Expr, len(aggs[i].Args))
		for j, arg := range aggs[i].Args {
			args[j] = expr.Remap(arg, m)
		}
		aggs[i].Args = args
	}
	x.In, x.Aggs, x.Cols = in, aggs, cols
	return x, out
}

func (x *Window) prune(need map[int]bool) (Node, map[int]int) {
	nin := len(x.In.Columns())
	req := inputsNeeded(need, nin)
	var kept []int // the calls read above
	for i := range x.Calls {
		if need[nin+i] {
			kept = append(kept, i)
			x.Calls[i].mapExprs(func(e expr.Expr) expr.Expr { expr.ColsUsed(e, req); return e })
		}
	}
	in, m := prune(x.In, req)
	if len(kept) == 0 {
		return in, m
	}
	out := map[int]int{}
	for k, v := range m {
		out[k] = v
	}
	cols := append([]Column(nil), in.Columns()...)
	var calls []WindowCall
	for _, i := range kept {
		c := x.Calls[i]
		c.mapExprs(func(e expr.Expr) expr.Expr { return expr.Remap(e, m) })
		out[nin+i] = len(cols)
		calls = append(calls, c)
		cols = append(cols, x.Cols[nin+i])
	}
	x.In, x.Calls, x.Cols = in, calls, cols
	return x, out
}

func (x *Sort) prune(need map[int]bool) (Node, map[int]int) {
	req := copySet(need)
	for _, k := range x.Keys {
		expr.ColsUsed(k.Expr, req)
	}
	in, m := prune(x.In, req)
	x.In = in
	for i := range x.Keys {
		x.Keys[i].Expr = expr.Remap(x.Keys[i].Expr, m)
	}
	return x, m
}

func (x *Limit) prune(need map[int]bool) (Node, map[int]int) {
	in, m := prune(x.In, need)
	x.In = in
	return x, m
}

func (x *Unnest) prune(need map[int]bool) (Node, map[int]int) {
	nin := len(x.In.Columns())
	req := inputsNeeded(need, nin)
	expr.ColsUsed(x.Expr, req)
	if x.Cond != nil { // it reads the input and the element (and offset)
		condReq := map[int]bool{}
		expr.ColsUsed(x.Cond, condReq)
		for k := range condReq {
			if k < nin {
				req[k] = true
			}
		}
	}
	in, m := prune(x.In, req)
	x.In, x.Expr = in, expr.Remap(x.Expr, m)
	newIn := len(in.Columns())
	out := map[int]int{}
	for k, v := range m {
		out[k] = v
	}
	out[nin] = newIn
	if x.WithOffset {
		out[nin+1] = newIn + 1
	}
	if x.Cond != nil {
		x.Cond = expr.Remap(x.Cond, out)
	}
	cols := append([]Column(nil), in.Columns()...)
	x.Cols = append(cols, x.Cols[nin:]...)
	return x, out
}

func (x *Join) prune(need map[int]bool) (Node, map[int]int) {
	nl := len(x.Left.Columns())
	lreq, rreq := map[int]bool{}, map[int]bool{}
	all := copySet(need)
	if x.Cond != nil {
		expr.ColsUsed(x.Cond, all)
	}
	for i := range all {
		if i < nl {
			lreq[i] = true
		} else {
			rreq[i-nl] = true
		}
	}
	for _, k := range x.LeftKeys {
		expr.ColsUsed(k, lreq)
	}
	for _, k := range x.RightKeys {
		expr.ColsUsed(k, rreq)
	}
	l, lm := prune(x.Left, lreq)
	r, rm := prune(x.Right, rreq)
	newL := len(l.Columns())
	out := map[int]int{}
	for k, v := range lm {
		out[k] = v
	}
	for k, v := range rm {
		out[k+nl] = v + newL
	}
	for i := range x.LeftKeys {
		x.LeftKeys[i] = expr.Remap(x.LeftKeys[i], lm)
	}
	for i := range x.RightKeys {
		x.RightKeys[i] = expr.Remap(x.RightKeys[i], rm)
	}
	x.Left, x.Right = l, r
	if x.Cond != nil {
		x.Cond = expr.Remap(x.Cond, out)
	}
	return x, out
}

func (x *Union) prune(need map[int]bool) (Node, map[int]int) {
	all := map[int]bool{}
	for i := range x.Cols {
		all[i] = true
	}
	for i, in := range x.Inputs {
		x.Inputs[i], _ = prune(in, all)
	}
	return x, identity(len(x.Cols))
}

// prune of a SetOp keeps every column: each is part of a row's identity.
func (x *SetOp) prune(map[int]bool) (Node, map[int]int) {
	all := identity(len(x.Cols))
	every := map[int]bool{}
	for i := range all {
		every[i] = true
	}
	x.Left, _ = prune(x.Left, every)
	x.Right, _ = prune(x.Right, every)
	return x, all
}

// inputsNeeded is the part of need that names one of a node's first nin
// columns, its input's (an Unnest or a Window appends its own after them).
func inputsNeeded(need map[int]bool, nin int) map[int]bool {
	req := map[int]bool{}
	for i := range need {
		if i < nin {
			req[i] = true
		}
	}
	return req
}

func keepIndexes(n int, keep map[int]bool) map[int]int {
	m := map[int]int{}
	k := 0
	for i := 0; i < n; i++ {
		if keep[i] {
			m[i] = k
			k++
		}
	}
	return m
}

func identity(n int) map[int]int {
	m := make(map[int]int, n)
	for i := 0; i < n; i++ {
		m[i] = i
	}
	return m
}

func copySet(s map[int]bool) map[int]bool {
	out := make(map[int]bool, len(s))
	for k := range s {
		out[k] = true
	}
	return out
}

func sortedKeys(s map[int]bool) []int {
	out := make([]int, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

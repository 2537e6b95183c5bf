package exec

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// windowOp computes analytic functions (planner.Window). It keeps every
// input row, charged to the memory budget, with the values of each call's
// partition keys, order keys and arguments. Then, per distinct PARTITION BY
// and ORDER BY, it sorts the row numbers (ties in input order); per call it
// computes each row's
// value partition by partition, and finally emits the rows in input order
// with one new column per call.
//
// Aggregates over the whole partition use one aggregate state group per
// partition; frames that start at UNBOUNDED PRECEDING feed one state row by
// row and read it as the frame grows; any other frame is recomputed for
// each row from its frame's rows, so its cost is the sum of the frame sizes.
type windowOp struct {
	in     Operator
	plan   *planner.Window
	ev     *evaluator
	done   bool
	rows   *rowStore // the input columns
	vals   *rowStore // every call's expressions, evaluated (exprs gives the layout)
	exprs  []callExprs
	orders map[string]*windowOrder // by PARTITION BY and ORDER BY (sorted)
	out    []*Vector               // one result per call, in input order
	pos    int
	// partial makes the operator a worker's share of a parallel first-rows
	// window (op_window_parallel.go): it keeps the first TopN rows of each
	// partition of its input and emits them, without computing the calls.
	partial bool
	// top keeps each partition's first rows while consume reads, for a
	// Window with TopN; a newest-first scan asks it which segments cannot
	// matter any more (dominates, local_window_newest.go).
	top *topPerPartition
}

// callExprs says where a call's expressions sit among vals' columns.
type callExprs struct {
	part, order, args, agg []int
}

func newWindowOp(in Operator, p *planner.Window, ev *evaluator) *windowOp {
	return &windowOp{in: in, plan: p, ev: ev}
}

func (o *windowOp) Close() { o.in.Close() }

func (o *windowOp) Next(ctx context.Context) (*Batch, error) {
	if !o.done {
		if err := o.consume(ctx); err != nil {
			return nil, err
		}
		o.done = true
	}
	if o.pos >= o.rows.n {
		return nil, nil
	}
	end := min(o.pos+BatchSize, o.rows.n)
	idx := seq(end - o.pos)
	for i := range idx {
		idx[i] += int32(o.pos)
	}
	b := o.rows.batch(idx)
	for _, v := range o.out {
		b.Cols = append(b.Cols, gather(v, idx, nil))
	}
	o.pos = end
	return b, nil
}

func (o *windowOp) consume(ctx context.Context) error {
	var exprs []expr.Expr
	add := func(es []expr.Expr) []int {
		var at []int
		for _, e := range es {
			at = append(at, len(exprs))
			exprs = append(exprs, e)
		}
		return at
	}
	for _, c := range o.plan.Calls {
		var ce callExprs
		ce.part = add(c.Partition)
		for _, k := range c.Order {
			ce.order = append(ce.order, add([]expr.Expr{k.Expr})...)
		}
		ce.args = add(c.Args)
		ce.agg = add(c.Agg.Args)
		o.exprs = append(o.exprs, ce)
	}
	var ts, vts []types.Type
	for _, c := range o.plan.In.Columns() {
		ts = append(ts, c.T)
	}
	for _, e := range exprs {
		vts = append(vts, e.Type())
	}
	o.rows, o.vals = newRowStore(ts), newRowStore(vts)
	if o.plan.TopN > 0 {
		o.top = newTopPerPartition(o.plan.TopN, &o.plan.Calls[0], o.exprs[0])
	}
	top := o.top
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := o.in.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		vb := &Batch{N: b.N, Cols: make([]*Vector, len(exprs))}
		for i, e := range exprs {
			v, err := o.ev.eval(e, b)
			if err != nil {
				return err
			}
			vb.Cols[i] = v
		}
		var keep []int32
		if top != nil {
			keep = top.admit(vb, o.rows.n)
			if top.first() {
				keep = o.keepFirst(b, vb, keep, top)
			}
		} else {
			keep = seq(b.N)
		}
		o.rows.appendRows(b, keep)
		o.vals.appendRows(vb, keep)
		// Each row's results are kept too: one more value per call.
		if err := o.ev.mem.charge("window function", len(keep), len(b.Cols)+len(exprs)+len(o.plan.Calls)); err != nil {
			return err
		}
		if top != nil && top.dead > o.rows.n-top.dead+BatchSize {
			o.compact(top)
		}
	}
	if top != nil && top.dead > 0 {
		o.compact(top)
	}
	if o.partial {
		return nil
	}
	for i := range o.plan.Calls {
		v, err := o.compute(ctx, i)
		if err != nil {
			return err
		}
		o.out = append(o.out, v)
	}
	return nil
}

// colsAt returns the stored columns of the evaluated expressions at.
func (o *windowOp) colsAt(at []int) []*Vector {
	cols := make([]*Vector, len(at))
	for i, a := range at {
		cols[i] = o.vals.cols[a]
	}
	return cols
}

// order sorts the row numbers by partition (pid, nil for one partition)
// and the call's ORDER BY, ties in input order, and says whether two
// sorted positions are peers (equal ORDER BY keys). A single integer-like
// key (a timestamp, a count) is sorted as plain integers.
func (o *windowOp) order(c *planner.WindowCall, ce callExprs, pid []int32) ([]int32, func(j, k int) bool) {
	n := o.rows.n
	if len(ce.order) == 0 || len(ce.order) == 1 && o.vals.cols[ce.order[0]].storage() == inInts && o.vals.cols[ce.order[0]].Lazy == nil {
		type ent struct {
			pid  int32
			rank int8 // NULLs before (0) or after (2) the values (1)
			key  int64
			row  int32
		}
		ents := make([]ent, n)
		for r := range ents {
			e := ent{row: int32(r), rank: 1}
			if pid != nil {
				e.pid = pid[r]
			}
			if len(ce.order) == 1 {
				v, sk := o.vals.cols[ce.order[0]], c.Order[0]
				switch {
				case v.isNull(r) && sk.NullsFirst:
					e.rank = 0
				case v.isNull(r):
					e.rank = 2
				case sk.Desc:
					e.key = ^v.I[r] // reverses the order without overflow
				default:
					e.key = v.I[r]
				}
			}
			ents[r] = e
		}
		slices.SortFunc(ents, func(a, b ent) int {
			switch {
			case a.pid != b.pid:
				return cmp.Compare(a.pid, b.pid)
			case a.rank != b.rank:
				return cmp.Compare(a.rank, b.rank)
			case a.key != b.key:
				return cmp.Compare(a.key, b.key)
			}
			return cmp.Compare(a.row, b.row)
		})
		idx := make([]int32, n)
		for j, e := range ents {
			idx[j] = e.row
		}
		return idx, func(j, k int) bool { return ents[j].rank == ents[k].rank && ents[j].key == ents[k].key }
	}
	okeys := make([][]types.Value, len(ce.order))
	for k, at := range ce.order {
		okeys[k] = make([]types.Value, n)
		for r := 0; r < n; r++ {
			okeys[k][r] = o.vals.cols[at].Value(r)
		}
	}
	cmpOrder := func(a, b int32) int {
		for k, sk := range c.Order {
			if d := orderCompare(okeys[k][a], okeys[k][b], sk.Desc, sk.NullsFirst); d != 0 {
				return d
			}
		}
		return 0
	}
	idx := seq(n)
	slices.SortFunc(idx, func(a, b int32) int {
		if pid != nil && pid[a] != pid[b] {
			return cmp.Compare(pid[a], pid[b])
		}
		if d := cmpOrder(a, b); d != 0 {
			return d
		}
		return cmp.Compare(a, b)
	})
	return idx, func(j, k int) bool { return cmpOrder(idx[j], idx[k]) == 0 }
}

// partitionRun is one partition: positions [lo, hi) of the sorted order.
type partitionRun struct{ lo, hi int }

// compute evaluates call i for every row.
func (o *windowOp) compute(ctx context.Context, i int) (*Vector, error) {
	c := &o.plan.Calls[i]
	ce := o.exprs[i]
	ord := o.sorted(c, ce)
	w := &windowCalc{op: o, call: c, ce: ce, windowOrder: ord}
	out := newVector(c.T, o.rows.n)
	if c.Fn == "aggregate" && c.Frame.WholePartition() {
		return out, w.wholePartitions(out)
	}
	for pi, p := range ord.parts {
		if pi%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := w.partition(ctx, p, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// windowOrder is the rows of a Window in one call's order: idx lists the
// store rows by partition, then ORDER BY, then input order; parts are the
// partitions as runs of positions in idx; peerStart and peerEnd bound each
// position's peer group (equal ORDER BY keys).
type windowOrder struct {
	idx                []int32
	parts              []partitionRun
	peerStart, peerEnd []int32
}

// sorted returns the order of call c, sorting only once for the calls
// that share a PARTITION BY and ORDER BY (SUM(x) OVER w, COUNT(*) OVER w).
func (o *windowOp) sorted(c *planner.WindowCall, ce callExprs) *windowOrder {
	var key strings.Builder
	for _, e := range c.Partition {
		key.WriteString(e.String() + ";")
	}
	key.WriteString("|")
	for _, k := range c.Order {
		fmt.Fprintf(&key, "%s %v %v;", k.Expr, k.Desc, k.NullsFirst)
	}
	if ord := o.orders[key.String()]; ord != nil {
		return ord
	}
	n := o.rows.n
	var pid []int32
	if len(ce.part) > 0 {
		pid, _ = newGrouper().assign(o.colsAt(ce.part), n, nil, nil)
	}
	idx, samePeer := o.order(c, ce, pid)
	ord := &windowOrder{idx: idx, peerStart: make([]int32, n), peerEnd: make([]int32, n)}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && (pid == nil || pid[idx[hi]] == pid[idx[lo]]) {
			hi++
		}
		ord.parts = append(ord.parts, partitionRun{lo, hi})
		for j := lo; j < hi; {
			e := j + 1
			for e < hi && samePeer(j, e) {
				e++
			}
			for k := j; k < e; k++ {
				ord.peerStart[k], ord.peerEnd[k] = int32(j), int32(e)
			}
			j = e
		}
		lo = hi
	}
	if o.orders == nil {
		o.orders = map[string]*windowOrder{}
	}
	o.orders[key.String()] = ord
	return ord
}

package exec

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"logq/planner"
	"logq/sqlparse"
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
	// matter any more (dominates, op_window_newest.go).
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
	var exprs []planner.Expr
	add := func(es []planner.Expr) []int {
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
			ce.order = append(ce.order, add([]planner.Expr{k.Expr})...)
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

// topPerPartition keeps, while a Window reads, the first n rows of each
// partition in its order (planner.Window.TopN): a row enters when its
// partition has fewer than n rows or it comes before the partition's worst
// kept row, which is then dropped. A row dropped by a later row of its own
// batch never reaches the stores (input in time order with a DESC window
// order displaces nearly every row that way); one dropped from the stores
// stays there, marked dead, until compact removes it. The stores keep input
// order, so ties still go to the earlier row.
type topPerPartition struct {
	n       int64
	call    *planner.WindowCall
	ce      callExprs
	groups  *grouper
	parts   []*topK[topRow] // by partition number
	best    []firstRow      // by partition number, when first(): its first row (at -1: none yet)
	slot    []int32         // by partition number, when first(): its store row (-1: none yet)
	gid     []int32         // the batch's partition numbers
	seen    []int           // by partition number: the last batch that renumbered it
	batches int
	dead    int
	gone    []bool // by store row: dropped
	scratch []types.Value
	spare   [][]types.Value // the keys of displaced rows, for reuse
	lost    []bool          // by batch row: admitted, then displaced in the same batch
	// intKey: the order is one integer-like key (a timestamp, a count),
	// kept in topRow.ik and compared as an integer.
	intKey  bool
	renum   []int32 // by batch row: the store row it will have
	keep    []int32 // admit's result, reused: read before the next batch
	touched []int32 // admitFirst's partitions taken by the batch, reused
}

func newTopPerPartition(n int64, call *planner.WindowCall, ce callExprs) *topPerPartition {
	t := &topPerPartition{n: n, call: call, ce: ce, groups: newGrouper()}
	t.intKey = len(call.Order) == 1 && (&Vector{T: call.Order[0].Expr.Type()}).storage() == inInts
	return t
}

// firstRow is a partition's first row in first() mode: no pointers, so
// replacing it (once per input row, in time-ordered input) is a plain store.
type firstRow struct {
	ik    int64
	at    int32
	inull bool
}

type topRow struct {
	keys  []types.Value // the order keys, unless intKey
	ik    int64         // the order key when intKey
	inull bool          // … and whether it is NULL
	at    int32         // store row; base+r for row r of the batch being admitted
}

// before reports whether row a comes before row b in the window's order.
func (t *topPerPartition) before(a, b topRow) bool {
	if t.intKey {
		sk := t.call.Order[0]
		switch {
		case a.inull != b.inull:
			return a.inull == sk.NullsFirst
		case !a.inull && a.ik != b.ik:
			return a.ik < b.ik != sk.Desc
		}
		return a.at < b.at
	}
	for k, sk := range t.call.Order {
		if d := orderCompare(a.keys[k], b.keys[k], sk.Desc, sk.NullsFirst); d != 0 {
			return d < 0
		}
	}
	return a.at < b.at
}

// admit returns the rows of a batch (its evaluated expressions vb) that
// enter their partition's top n; base is the store row the first of them
// will have.
func (t *topPerPartition) admit(vb *Batch, base int) []int32 {
	t.batches++
	if len(t.ce.part) == 0 {
		t.gid = grow(t.gid, vb.N)
		clear(t.gid)
	} else {
		keys := make([]*Vector, len(t.ce.part))
		for i, at := range t.ce.part {
			keys[i] = vb.Cols[at]
		}
		t.gid, _ = t.groups.assign(keys, vb.N, t.gid, nil)
	}
	if t.first() {
		return t.admitFirst(vb, base) // keepFirst places them
	}
	t.lost = grow(t.lost, vb.N)
	clear(t.lost)
	keep := t.admitHeaps(vb, base)
	// The batch's rows still kept get the store rows they will have.
	n := 0
	for _, r := range keep {
		if !t.lost[r] {
			keep[n] = r
			n++
		}
	}
	keep = keep[:n]
	t.renum = grow(t.renum, vb.N)
	for i, r := range keep {
		t.renum[r] = int32(base + i)
	}
	for _, r := range keep {
		g := t.gid[r]
		if t.seen[g] == t.batches {
			continue
		}
		t.seen[g] = t.batches
		h := t.parts[g]
		for i := range h.rows {
			if at := h.rows[i].at; at >= int32(base) {
				h.rows[i].at = t.renum[int(at)-base]
			}
		}
	}
	return keep
}

// keepFirst places the batch rows that became their partition's first row
// (admit with first): a partition seen before has its store row overwritten,
// so the stores hold one row per partition and nothing is dropped or
// compacted. It returns the rows of partitions new to the stores, which the
// caller appends.
func (o *windowOp) keepFirst(b, vb *Batch, keep []int32, t *topPerPartition) []int32 {
	fresh := keep[:0] // written behind the reads
	for _, r := range keep {
		g := t.gid[r]
		for int(g) >= len(t.slot) {
			t.slot = append(t.slot, -1)
		}
		if at := t.slot[g]; at >= 0 {
			o.rows.setRow(int(at), b, int(r))
			o.vals.setRow(int(at), vb, int(r))
			t.best[g].at = at
			continue
		}
		t.slot[g] = int32(o.rows.n + len(fresh))
		t.best[g].at = t.slot[g]
		fresh = append(fresh, r)
	}
	return fresh
}

// first reports whether only each partition's first row is kept, by one
// integer-like key (the "newest row per path" shape): a slot per partition
// then does what a heap of one would, without the heap's indirect calls.
func (t *topPerPartition) first() bool { return t.n == 1 && t.intKey }

// admitFirst is admit's loop when first holds. A row that beats its
// partition's first row takes its slot at once; only the rows still holding
// a slot when the batch ends are kept, so a row displaced within its own
// batch (nearly every row, for input in time order read newest first) costs
// one comparison and one store. The kept rows are returned in the order
// their partitions were first taken in the batch (not sorted: in first mode
// a tie is decided against the slot, never by store order).
func (t *topPerPartition) admitFirst(vb *Batch, base int) []int32 {
	v := vb.Cols[t.ce.order[0]]
	desc, nullsFirst := t.call.Order[0].Desc, t.call.Order[0].NullsFirst
	touched := t.touched[:0] // partitions whose slot a row of this batch took
	for r := 0; r < vb.N; r++ {
		g := int(t.gid[r])
		for g >= len(t.best) {
			t.best = append(t.best, firstRow{at: -1})
		}
		row := firstRow{at: int32(base + r)}
		row.ik, row.inull = intKeyOf(v, r)
		cur := &t.best[g]
		if cur.at >= 0 {
			// before(row, *cur), inline: row comes later in the input
			// than cur, so a tie keeps cur.
			var first bool
			switch {
			case row.inull != cur.inull:
				first = row.inull == nullsFirst
			case row.inull:
			case desc:
				first = row.ik > cur.ik
			default:
				first = row.ik < cur.ik
			}
			if !first {
				continue
			}
			if cur.at >= int32(base) {
				*cur = row // its slot is already in touched
				continue
			}
		}
		*cur = row
		touched = append(touched, int32(g))
	}
	t.touched = touched
	keep := t.keep[:0]
	for _, g := range touched {
		keep = append(keep, t.best[g].at-int32(base))
	}
	t.keep = keep
	return keep
}

// admitHeaps is admit's loop with a heap of the first n rows per partition.
func (t *topPerPartition) admitHeaps(vb *Batch, base int) []int32 {
	keep := t.keep[:0]
	for r := 0; r < vb.N; r++ {
		g := int(t.gid[r])
		for g >= len(t.parts) {
			t.parts = append(t.parts, &topK[topRow]{k: t.n, before: t.before})
			t.seen = append(t.seen, 0)
		}
		h := t.parts[g]
		row := topRow{at: int32(base + r)}
		if t.intKey {
			row.ik, row.inull = intKeyOf(vb.Cols[t.ce.order[0]], r)
			if !h.admits(row) {
				continue
			}
		} else {
			// The keys go in a scratch row first: most rows of a large
			// input are turned away, and keep no allocation.
			t.scratch = t.scratch[:0]
			for _, at := range t.ce.order {
				t.scratch = append(t.scratch, vb.Cols[at].Value(r))
			}
			row.keys = t.scratch
			if !h.admits(row) {
				continue
			}
			row.keys = t.keysFor(t.scratch)
		}
		if out, displaced := h.add(row); displaced {
			if out.keys != nil {
				t.spare = append(t.spare, out.keys)
			}
			if out.at >= int32(base) {
				t.lost[int(out.at)-base] = true
			} else {
				t.drop(out.at)
			}
		}
		keep = append(keep, int32(r))
	}
	t.keep = keep
	return keep
}

// intKeyOf reads row r of an integer-like order key, and whether it is NULL.
func intKeyOf(v *Vector, r int) (int64, bool) {
	switch {
	case v.isNull(r):
		return 0, true
	case v.Lazy != nil:
		return v.Value(r).I, false
	}
	return v.I[r], false
}

// keysFor copies a row's keys into the storage of a displaced row's, if any.
func (t *topPerPartition) keysFor(keys []types.Value) []types.Value {
	if n := len(t.spare); n > 0 {
		k := t.spare[n-1]
		t.spare = t.spare[:n-1]
		return append(k[:0], keys...)
	}
	return append([]types.Value(nil), keys...)
}

func (t *topPerPartition) drop(at int32) {
	for len(t.gone) <= int(at) {
		t.gone = append(t.gone, false)
	}
	t.gone[at] = true
	t.dead++
}

// compact removes the dropped rows from the stores, keeping input order.
func (o *windowOp) compact(t *topPerPartition) {
	var live []int32
	renum := make([]int32, o.rows.n)
	for r := 0; r < o.rows.n; r++ {
		if r < len(t.gone) && t.gone[r] {
			continue
		}
		renum[r] = int32(len(live))
		live = append(live, int32(r))
	}
	o.ev.mem.release(o.rows.n-len(live), len(o.rows.cols)+len(o.vals.cols)+len(o.plan.Calls))
	o.rows = o.rows.rebuilt(live)
	o.vals = o.vals.rebuilt(live)
	for _, h := range t.parts {
		for i := range h.rows {
			h.rows[i].at = renum[h.rows[i].at]
		}
	}
	t.gone, t.dead = t.gone[:0], 0
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

// windowCalc computes one call over the sorted rows.
type windowCalc struct {
	*windowOrder
	op   *windowOp
	call *planner.WindowCall
	ce   callExprs
	key  []types.Value // the ORDER BY key by row, for RANGE offsets (rangeKey)
}

// rangeKey returns the one ORDER BY key of every row (a RANGE frame with
// an offset has exactly one), boxed once.
func (w *windowCalc) rangeKey() []types.Value {
	if w.key == nil {
		v := w.op.vals.cols[w.ce.order[0]]
		w.key = make([]types.Value, w.op.rows.n)
		for r := range w.key {
			w.key[r] = v.Value(r)
		}
	}
	return w.key
}

func (w *windowCalc) arg(k int) *Vector { return w.op.vals.cols[w.ce.args[k]] }

// constArg is argument k of c, an INT64 constant by the binder's rules
// (NTILE's buckets, LAG's offset, NTH_VALUE's position).
func constArg(c *planner.WindowCall, k int) int64 { return c.Args[k].(*planner.Const).V.I }

// partition fills out for the rows of one partition.
func (w *windowCalc) partition(ctx context.Context, p partitionRun, out *Vector) error {
	n, idx := w.op.rows.n, w.idx
	size := p.hi - p.lo
	set := func(j int, v types.Value) { out.set(int(idx[j]), v, n) }
	switch w.call.Fn {
	case "row_number":
		for j := p.lo; j < p.hi; j++ {
			set(j, types.IntValue(int64(j-p.lo+1)))
		}
	case "rank":
		for j := p.lo; j < p.hi; j++ {
			set(j, types.IntValue(int64(int(w.peerStart[j])-p.lo+1)))
		}
	case "dense_rank":
		rank := int64(0)
		for j := p.lo; j < p.hi; j++ {
			if int(w.peerStart[j]) == j {
				rank++
			}
			set(j, types.IntValue(rank))
		}
	case "percent_rank":
		for j := p.lo; j < p.hi; j++ {
			v := 0.0
			if size > 1 {
				v = float64(int(w.peerStart[j])-p.lo) / float64(size-1)
			}
			set(j, types.FloatValue(v))
		}
	case "cume_dist":
		for j := p.lo; j < p.hi; j++ {
			set(j, types.FloatValue(float64(int(w.peerEnd[j])-p.lo)/float64(size)))
		}
	case "ntile":
		buckets := int(min(constArg(w.call, 0), int64(size)))
		q, r := size/buckets, size%buckets
		for j := p.lo; j < p.hi; j++ {
			i := j - p.lo
			var b int
			if i < r*(q+1) {
				b = i/(q+1) + 1
			} else {
				b = r + (i-r*(q+1))/q + 1
			}
			set(j, types.IntValue(int64(b)))
		}
	case "lag", "lead":
		x, def := w.arg(0), w.arg(2)
		off := int(min(constArg(w.call, 1), int64(math.MaxInt32)))
		if w.call.Fn == "lag" {
			off = -off
		}
		for j := p.lo; j < p.hi; j++ {
			if k := j + off; k >= p.lo && k < p.hi {
				set(j, x.Value(int(idx[k])))
			} else {
				set(j, def.Value(int(idx[j])))
			}
		}
	case "first_value", "last_value", "nth_value":
		x := w.arg(0)
		nth := 1
		if w.call.Fn == "nth_value" {
			nth = int(min(constArg(w.call, 1), int64(math.MaxInt32)))
		}
		for j := p.lo; j < p.hi; j++ {
			lo, hi := w.frame(p, j)
			set(j, w.pick(x, lo, hi, nth))
		}
	case "aggregate":
		return w.aggregate(ctx, p, out)
	default:
		// The binder only makes calls of planner.AnalyticNames, each of
		// which has a case above (its golden cases run it).
		return &Error{Kind: KindInternal, Msg: "no evaluation for window function " + w.call.Fn}
	}
	return nil
}

// pick returns the value of the nth row (from the end for LAST_VALUE) of
// the frame [lo, hi), skipping NULLs with IGNORE NULLS.
func (w *windowCalc) pick(x *Vector, lo, hi, nth int) types.Value {
	step, start := 1, lo
	if w.call.Fn == "last_value" {
		step, start = -1, hi-1
	}
	seen := 0
	for j := start; j >= lo && j < hi; j += step {
		r := int(w.idx[j])
		if w.call.IgnoreNulls && x.isNull(r) {
			continue
		}
		seen++
		if seen == nth {
			return x.Value(r)
		}
	}
	return types.NullOf(w.call.T)
}

// frame returns the rows [lo, hi) of row j's frame within partition p.
func (w *windowCalc) frame(p partitionRun, j int) (int, int) {
	f := w.call.Frame
	var lo, hi int
	if f.Rows {
		lo = w.rowsBound(f.Start, j, p)
		hi = w.rowsBound(f.End, j, p) + 1
	} else {
		lo = w.rangeBound(f.Start, j, p, true)
		hi = w.rangeBound(f.End, j, p, false)
	}
	lo, hi = max(lo, p.lo), min(hi, p.hi)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func (w *windowCalc) rowsBound(b planner.FrameBound, j int, p partitionRun) int {
	switch b.Kind {
	case sqlparse.UnboundedPreceding:
		return p.lo
	case sqlparse.UnboundedFollowing:
		return p.hi - 1
	case sqlparse.OffsetPreceding:
		return j - int(min(b.Offset.I, int64(p.hi)))
	case sqlparse.OffsetFollowing:
		return j + int(min(b.Offset.I, int64(p.hi)))
	}
	return j
}

// rangeBound returns the first row of the frame (start) or one past its
// last (end) for a RANGE bound. An offset is taken in the direction of the
// sort: PRECEDING rows have smaller keys ascending, larger descending. A row
// whose key is NULL has its NULL peers as the offset bounds.
func (w *windowCalc) rangeBound(b planner.FrameBound, j int, p partitionRun, start bool) int {
	switch b.Kind {
	case sqlparse.UnboundedPreceding:
		return p.lo
	case sqlparse.UnboundedFollowing:
		return p.hi
	case sqlparse.CurrentRow:
		if start {
			return int(w.peerStart[j])
		}
		return int(w.peerEnd[j])
	}
	keys := w.rangeKey()
	cur := keys[w.idx[j]]
	if cur.Null {
		if start {
			return int(w.peerStart[j])
		}
		return int(w.peerEnd[j])
	}
	sk := w.call.Order[0]
	dir := 1.0
	if sk.Desc {
		dir = -1
	}
	off := b.Offset.Float()
	if b.Kind == sqlparse.OffsetPreceding {
		off = -off
	}
	target := dir*cur.Float() + off // in sort direction
	// The non-NULL rows of the partition, in sort direction.
	nlo, nhi := p.lo, p.hi
	if sk.NullsFirst {
		for nlo < nhi && keys[w.idx[nlo]].Null {
			nlo++
		}
	} else {
		for nhi > nlo && keys[w.idx[nhi-1]].Null {
			nhi--
		}
	}
	d := func(k int) float64 { return dir * keys[w.idx[k]].Float() }
	if start { // first row with d >= target
		return nlo + sort.Search(nhi-nlo, func(k int) bool { return d(nlo+k) >= target })
	}
	// one past the last row with d <= target
	return nlo + sort.Search(nhi-nlo, func(k int) bool { return d(nlo+k) > target })
}

// wholePartitions computes an aggregate over whole partitions: one state,
// one group per partition, every row fed once.
func (w *windowCalc) wholePartitions(out *Vector) error {
	n := w.op.rows.n
	st := newBudgetedAggState(w.call.Agg, w.op.ev.mem)
	st.grow(len(w.parts))
	groups := make([]int32, n)
	for g, p := range w.parts {
		for j := p.lo; j < p.hi; j++ {
			groups[j] = int32(g)
		}
		if err := w.chargeList(p.lo, p.hi); err != nil {
			return err
		}
	}
	args := make([]*Vector, len(w.ce.agg))
	for lo := 0; lo < n; lo += BatchSize {
		hi := min(lo+BatchSize, n)
		if err := w.feed(st, args, w.idx[lo:hi], groups[lo:hi]); err != nil {
			return err
		}
	}
	for g, p := range w.parts {
		v := st.result(g)
		for j := p.lo; j < p.hi; j++ {
			out.set(int(w.idx[j]), v, n)
		}
	}
	return nil
}

// feed adds rows (store rows) to groups of st, gathering the arguments
// into args.
func (w *windowCalc) feed(st aggState, args []*Vector, rows, groups []int32) error {
	for k, at := range w.ce.agg {
		args[k] = gather(w.op.vals.cols[at], rows, args[k])
	}
	st.update(groups, args, len(rows))
	if f, ok := st.(failing); ok {
		return f.failed()
	}
	return nil
}

// chargeList charges a result of ARRAY_AGG or STRING_AGG over positions
// [lo, hi): those build a value as large as their frame.
func (w *windowCalc) chargeList(lo, hi int) error {
	if fn := w.call.Agg.Fn; fn == "array_agg" || fn == "string_agg" {
		return w.op.ev.mem.charge("window "+strings.ToUpper(fn), hi-lo, 1)
	}
	return nil
}

// aggregate computes an aggregate over each row's frame in partition p. A
// frame starting at UNBOUNDED PRECEDING only grows, so one state is fed as
// its end passes rows and read at each row (the binder refuses the
// aggregates whose reading consumes their state); any other frame is
// recomputed from its rows.
func (w *windowCalc) aggregate(ctx context.Context, p partitionRun, out *Vector) error {
	n, idx := w.op.rows.n, w.idx
	args := make([]*Vector, len(w.ce.agg))
	if w.call.Frame.Start.Kind == sqlparse.UnboundedPreceding {
		st := newBudgetedAggState(w.call.Agg, w.op.ev.mem)
		st.grow(1)
		fed := p.lo
		zero := make([]int32, BatchSize)
		for j := p.lo; j < p.hi; j++ {
			_, hi := w.frame(p, j)
			for fed < hi {
				end := min(hi, fed+BatchSize)
				if err := w.feed(st, args, idx[fed:end], zero[:end-fed]); err != nil {
					return err
				}
				fed = end
			}
			if err := w.chargeList(p.lo, hi); err != nil {
				return err
			}
			out.set(int(idx[j]), st.result(0), n)
		}
		return nil
	}
	// Rows are fed in blocks, one state group per row of the block.
	var rows, groups []int32
	first := p.lo
	flush := func(last int) error {
		st := newBudgetedAggState(w.call.Agg, w.op.ev.mem)
		st.grow(last - first)
		if len(rows) > 0 {
			if err := w.feed(st, args, rows, groups); err != nil {
				return err
			}
		}
		for j := first; j < last; j++ {
			out.set(int(idx[j]), st.result(j-first), n)
		}
		rows, groups, first = rows[:0], groups[:0], last
		return ctx.Err()
	}
	for j := p.lo; j < p.hi; j++ {
		lo, hi := w.frame(p, j)
		if err := w.chargeList(lo, hi); err != nil {
			return err
		}
		for k := lo; k < hi; k++ {
			rows = append(rows, idx[k])
			groups = append(groups, int32(j-first))
		}
		if len(rows) >= 1<<16 {
			if err := flush(j + 1); err != nil {
				return err
			}
		}
	}
	return flush(p.hi)
}

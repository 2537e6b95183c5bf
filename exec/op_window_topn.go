package exec

import (
	"logq/planner"
	"logq/types"
)

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

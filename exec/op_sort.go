package exec

import (
	"cmp"
	"context"
	"slices"

	"logq/planner"
	"logq/types"
)

// sortOp orders its input. With a limit it is a top-k: a bounded heap keeps
// the best limit+offset rows, so memory stays small however much is read.
type sortOp struct {
	in    Operator
	plan  *planner.Sort
	ev    *evaluator
	done  bool
	store *rowStore
	heap  *topK[sortRow]
	order []int32
	pos   int
}

func (o *sortOp) Close() { o.in.Close() }

type sortRow struct {
	keys []types.Value
	seq  int32 // input order, for stable ties
	at   int32 // index in the row store
}

// timeFloor lets a newest-first scan stop early: once the top-k heap of
// ORDER BY timestamp DESC holds k rows, rows older than its worst can never
// enter it.
func (o *sortOp) timeFloor() (int64, bool) {
	k := o.keep()
	if o.heap == nil || !o.heap.full() || k <= 0 {
		return 0, false
	}
	w := o.heap.rows[0].keys[0]
	if w.Null {
		return 0, false
	}
	return w.I, true
}

// keep is how many of the first rows a top-k keeps (its limit and offset),
// or -1 for all: without a limit, or when the two add up past INT64 (then
// the offset alone decides, after a full sort).
func (o *sortOp) keep() int64 {
	k := o.plan.Limit + o.plan.Offset
	if o.plan.Limit < 0 || k < o.plan.Limit {
		return -1
	}
	return k
}

// compare orders rows by the keys, ties in input order: each key compared
// once (orderCompare is antisymmetric), where asking "less" both ways
// compared every tied key twice.
func (o *sortOp) compare(a, b sortRow) int {
	for i, k := range o.plan.Keys {
		if c := orderCompare(a.keys[i], b.keys[i], k.Desc, k.NullsFirst); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.seq, b.seq)
}

// before reports whether row a comes first.
func (o *sortOp) before(a, b sortRow) bool { return o.compare(a, b) < 0 }

func (o *sortOp) consume(ctx context.Context) error {
	var ts []types.Type
	for _, c := range o.plan.In.Columns() {
		ts = append(ts, c.T)
	}
	o.store = newRowStore(ts)
	k := o.keep()
	h := &topK[sortRow]{k: k, before: o.before}
	o.heap = h
	var all []sortRow
	seen := int32(0)
	for {
		b, err := o.in.Next(ctx)
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		keyVecs := make([]*Vector, len(o.plan.Keys))
		for i, sk := range o.plan.Keys {
			v, err := o.ev.eval(sk.Expr, b)
			if err != nil {
				return err
			}
			keyVecs[i] = v
		}
		var keep []int32
		scratch := make([]types.Value, len(keyVecs))
		for r := 0; r < b.N; r++ {
			// The keys go in scratch first: a top-k turns most rows away.
			for i, v := range keyVecs {
				scratch[i] = v.Value(r)
			}
			row := sortRow{keys: scratch, seq: seen, at: int32(o.store.n + len(keep))}
			seen++
			if k >= 0 && !h.admits(row) {
				continue
			}
			row.keys = append([]types.Value(nil), scratch...)
			if k < 0 {
				all = append(all, row)
			} else {
				h.add(row)
			}
			keep = append(keep, int32(r))
		}
		o.store.appendRows(b, keep)
		if err := o.ev.mem.charge("sort", len(keep), len(b.Cols)+len(keyVecs)); err != nil {
			return err
		}
		if n := int64(o.store.n); k >= 0 && n > BatchSize && (n-BatchSize)/2 > k { // n > 2k+BatchSize, without overflow
			before := o.store.n
			o.compact(h)
			o.ev.mem.release(before-o.store.n, len(b.Cols)+len(keyVecs))
		}
	}
	if k >= 0 {
		all = h.rows
	}
	slices.SortFunc(all, o.compare)
	start := min(o.plan.Offset, int64(len(all)))
	for _, r := range all[start:] {
		o.order = append(o.order, r.at)
	}
	return nil
}

// compact drops stored rows that fell out of the top-k heap.
func (o *sortOp) compact(h *topK[sortRow]) {
	idx := make([]int32, len(h.rows))
	for i := range h.rows {
		idx[i] = h.rows[i].at
		h.rows[i].at = int32(i)
	}
	o.store = o.store.rebuilt(idx)
}

func (o *sortOp) Next(ctx context.Context) (*Batch, error) {
	if !o.done {
		if err := o.consume(ctx); err != nil {
			return nil, err
		}
		o.done = true
	}
	if o.pos >= len(o.order) {
		return nil, nil
	}
	end := min(o.pos+BatchSize, len(o.order))
	b := o.store.batch(o.order[o.pos:end])
	o.pos = end
	return b, nil
}

// orderCompare is ORDER BY's rule for one key, shared by sorts and by
// ordered aggregates (ARRAY_AGG … ORDER BY): negative when x comes first,
// positive when y does, 0 for a tie. NULLs come first or last as asked,
// whatever the direction.
func orderCompare(x, y types.Value, desc, nullsFirst bool) int {
	if x.Null || y.Null {
		switch {
		case x.Null == y.Null:
			return 0
		case x.Null == nullsFirst:
			return -1
		}
		return 1
	}
	c, _ := types.Compare(x, y)
	if desc {
		return -c
	}
	return c
}

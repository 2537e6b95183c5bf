package exec

import "container/heap"

// topK keeps the first k values offered in the order before gives: a
// max-heap whose root is the last value kept, so a new value is checked
// against one value and enters in O(log k). ORDER BY … LIMIT (sortOp) and
// the first rows of each window partition (topPerPartition) both use it.
type topK[T any] struct {
	k      int64
	rows   []T
	before func(a, b T) bool // a comes first (ties broken, so never both ways)
}

func (h *topK[T]) Len() int           { return len(h.rows) }
func (h *topK[T]) Less(i, j int) bool { return h.before(h.rows[j], h.rows[i]) }
func (h *topK[T]) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *topK[T]) Push(x any)         { h.rows = append(h.rows, x.(T)) }
func (h *topK[T]) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// full reports whether k values are kept.
func (h *topK[T]) full() bool { return int64(len(h.rows)) >= h.k }

// admits reports whether x would be kept: a caller can test a candidate
// built in scratch memory and copy only the ones that enter.
func (h *topK[T]) admits(x T) bool {
	return !h.full() || h.k > 0 && h.before(x, h.rows[0])
}

// add keeps x, which admits said it would, and returns the value it
// displaced, if any.
func (h *topK[T]) add(x T) (out T, displaced bool) {
	if !h.full() {
		heap.Push(h, x)
		return out, false
	}
	out = h.rows[0]
	h.rows[0] = x
	heap.Fix(h, 0)
	return out, true
}

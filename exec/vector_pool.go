package exec

import "sync"

// Vectors a query's evaluator and scans write each batch into are taken
// from a pool and given back when the query ends, so that a small query
// does not allocate (and clear) fresh storage for every expression and
// field: at the last hour of invocation-stats that storage was a third of
// what a call allocated. A vector is given back only when nothing can read
// it any more: a batch is valid only until its operator's next call, so
// every operator copies what it keeps, and the rows of a Result are
// values copied out of the vectors.
var vectorPool = sync.Pool{New: func() any { return new(Vector) }}

// takeVector returns an empty vector, with spare storage when the pool
// had one.
func takeVector() *Vector { return vectorPool.Get().(*Vector) }

// releaseVector gives v back. What its storage points to (strings,
// nested values) is cleared first, so that the pool keeps no column or
// record alive.
func releaseVector(v *Vector) {
	clear(v.S[:cap(v.S)])
	clear(v.V[:cap(v.V)])
	*v = Vector{I: v.I[:0], F: v.F[:0], S: v.S[:0], V: v.V[:0], nullBuf: v.nullBuf[:0], codes: v.codes[:0]}
	vectorPool.Put(v)
}

// scanBuffers are a scan's row lists and scratch, kept in the pool the same
// way: a scan fills them per batch, and nothing reads them once it closes.
type scanBuffers struct {
	rows  []int32 // the rows a batch reads (candidates)
	idx   []int32 // scratchRows
	ts    []int64 // timestamps of a block the window cuts
	codes []uint32
}

var scanBufferPool = sync.Pool{New: func() any { return new(scanBuffers) }}

func takeScanBuffers() *scanBuffers { return scanBufferPool.Get().(*scanBuffers) }

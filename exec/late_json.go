package exec

import (
	"sync"

	"logq/types"
)

// Nested records written as JSON (Request.RecordsAsJSON). Assembling an
// edge record as a tree of types.Value (a value of ~100 bytes per field,
// dozens of fields, each row's STRUCT and ARRAY of its own) and then
// walking that tree to encode it was most of what logs.all spent per row.
// Instead the storage writes each row's record straight from its columns
// in the response encoding (lateRows.AppendRecords), and the row holds the
// text as a JSON value, which the encoder copies as it is.

// A result may not hold an ARRAY with a NULL element (execute checks the
// values it assembles), but a stored record cannot hold one: ingest drops
// NULL elements from arrays. So records written as JSON are not checked.

// recordWriter is what the records of one query's batches are written
// into: the text of a batch's records, each row's end in it, and the
// encoder whose member names are kept across batches.
type recordWriter struct {
	enc  types.ResponseEncoder
	buf  []byte
	ends []int
}

// recordWriters keeps writers between queries: a batch's text is copied
// out whole (json), so its buffer is free once the batch is written, and a
// buffer grown from nothing per query cost logs.all a sixth of its time in
// growing and clearing it.
var recordWriters sync.Pool

// maxKeptRecordBuffer bounds the buffer a kept writer holds.
const maxKeptRecordBuffer = 4 << 20

func getRecordWriter() *recordWriter {
	if w, ok := recordWriters.Get().(*recordWriter); ok {
		return w
	}
	return &recordWriter{}
}

// release keeps w for another query, without the member names of this
// one's types, unless its buffer grew past maxKeptRecordBuffer.
func (w *recordWriter) release() {
	if cap(w.buf) > maxKeptRecordBuffer {
		return
	}
	w.enc = types.ResponseEncoder{}
	recordWriters.Put(w)
}

// lateJSON reads a lazy record vector's first n rows as JSON values (NULL
// rows stay NULL).
func (v *Vector) lateJSON(n int, w *recordWriter) []types.Value {
	return v.late(n, func(refs []int64, dst []types.Value) { v.Lazy.json(refs, w, dst) })
}

// json writes the records refs point to into dst as JSON values, a run of
// one segment's rows at a time. A record that cannot be read reads as NULL,
// and the failure goes to the query's readFailure.
func (l *lazyField) json(refs []int64, w *recordWriter, dst []types.Value) {
	w.buf, w.ends = w.buf[:0], w.ends[:0]
	failed := make([]bool, len(refs)) // by position in order
	order := bySegment(refs, func(seg int, rows []int32, i, j int) {
		mark := len(w.buf)
		if err := l.rows.AppendRecords(seg, l.field, rows, w); err != nil {
			l.failed.set(err)
			w.buf, w.ends = w.buf[:mark], w.ends[:i]
			for k := i; k < j; k++ {
				w.ends = append(w.ends, mark)
				failed[k] = true
			}
		}
	})
	text := string(w.buf) // one copy: the rows' strings share it
	start := 0
	for k, o := range order {
		end := w.ends[k]
		if failed[k] {
			dst[o] = types.NullOf(l.field.Type)
		} else {
			dst[o] = types.Value{T: types.JSON, S: text[start:end]}
		}
		start = end
	}
}

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
// in the response encoding (lateRows.RecordTexts), and the row holds the
// text as a JSON value, which the encoder copies as it is. The local store
// keeps the texts it wrote last (keptRecords), so that the newest rows
// asked for again are copied, not written again.

// A result may not hold an ARRAY with a NULL element (execute checks the
// values it assembles), but a stored record cannot hold one: ingest drops
// NULL elements from arrays. So records written as JSON are not checked.

// recordWriter is what the records of one query's batches are written
// with: a buffer each record's text is written into before it is copied
// out, and the encoder whose member names are kept across batches.
type recordWriter struct {
	enc types.ResponseEncoder
	buf []byte
}

// recordWriters keeps writers between queries: a buffer grown from nothing
// per query cost logs.all a sixth of its time in growing and clearing it.
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
	texts := make([]string, len(refs)) // by position in order
	failed := make([]bool, len(refs))
	order := bySegment(refs, func(seg int, rows []int32, i, j int) {
		if err := l.rows.RecordTexts(seg, l.field, rows, w, texts[i:j]); err != nil {
			l.failed.set(err)
			for k := i; k < j; k++ {
				failed[k] = true
			}
		}
	})
	for k, o := range order {
		if failed[k] {
			dst[o] = types.NullOf(l.field.Type)
		} else {
			dst[o] = types.Value{T: types.JSON, S: texts[k]}
		}
	}
}

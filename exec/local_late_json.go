package exec

import (
	"sync/atomic"
	"weak"

	"logq/event"
	"logq/logstore"
	"logq/types"
)

// recordNode is a nested record's field as one segment holds it: its
// column (an object's column says which rows have it; nil when the
// segment has none) and, for an object, its children and their member
// names. It is what logstore.Segment.Values walks per row, looked up once
// per run of rows.
type recordNode struct {
	f     *event.Field
	col   *logstore.Column
	str   bool // a STRING field in a STRING column: read without a Value
	names [][]byte
	kids  []recordNode
}

func newRecordNode(seg *logstore.Segment, f *event.Field, enc *types.ResponseEncoder) (recordNode, error) {
	c, err := seg.Column(f.Path)
	if err != nil {
		return recordNode{}, err
	}
	n := recordNode{f: f, col: c}
	n.str = c != nil && f.Type.Kind == types.KindString && c.Kind() == types.KindString
	if !f.Object || c == nil || len(f.Children) == 0 {
		return n, nil
	}
	n.names = enc.MemberNames(*f.Type.Elem)
	n.kids = make([]recordNode, len(f.Children))
	for i, child := range f.Children {
		if n.kids[i], err = newRecordNode(seg, child, enc); err != nil {
			return recordNode{}, err
		}
	}
	return n, nil
}

// recordTexts is localRows.RecordTexts over one segment: each row's text
// as keptRecords keeps it, or written from the columns and kept.
func recordTexts(seg *logstore.Segment, f *event.Field, rows []int32, w *recordWriter, texts []string) error {
	var root *recordNode
	key := recordKey{seg: weak.Make(seg.Live()), sealed: seg.Sealed(), field: weak.Make(f)}
	for k, r := range rows {
		key.row = r
		if text, ok := keptRecords.get(key); ok {
			keptRecords.hits.Add(1)
			texts[k] = text
			continue
		}
		if root == nil {
			n, err := newRecordNode(seg, f, &w.enc)
			if err != nil {
				return err
			}
			root = &n
		}
		w.buf = root.append(w.buf[:0], int(r), &w.enc)
		texts[k] = string(w.buf)
		keptRecords.add(key, texts[k], int64(len(texts[k]))+recordEntryBytes)
	}
	return nil
}

// keptRecords keeps the JSON text of the records written last, across
// queries: logs.all and the Explorer ask for the newest rows again and
// again, and writing a wide record from its columns (an edge record's
// ~2 KB from dozens of columns) cost logs.all half its time, where copying
// its text costs a tenth of that. A row's text is that of the field, as
// the schema had it (its *event.Field: a source's schema is an immutable
// value, replaced when it changes), over the row of the segment, as the
// snapshot had it: an open segment only appends (its rows before a
// snapshot's end stay as they were), and sealing in memory orders the
// same segment's rows by time, so a sealed segment's rows are keyed apart
// from those it had while open. Least recently used first out.
var keptRecords = struct {
	*byteLRU[recordKey, string]
	hits atomic.Int64 // texts found (tests)
}{byteLRU: newByteLRU[recordKey, string](keptRecordBytes)}

// keptRecordBytes bounds keptRecords: ten pages of 100 edge records, or
// two of logs.all's 1000-row answers.
const keptRecordBytes = 4 << 20

// recordEntryBytes is what an entry costs besides its text: the key, the
// string header and the LRU's element and map slot.
const recordEntryBytes = 128

type recordKey struct {
	seg    weak.Pointer[logstore.Segment] // the live segment (Segment.Live)
	sealed bool
	row    int32
	field  weak.Pointer[event.Field]
}

// append writes the field's value in row as enc writes the value
// Segment.Value assembles: an object as an ARRAY of one STRUCT (NULL when
// the row lacks it), a scalar as its column reads it.
func (n *recordNode) append(b []byte, row int, enc *types.ResponseEncoder) []byte {
	if n.col == nil {
		return append(b, "null"...)
	}
	if !n.f.Object {
		if n.str {
			if n.col.IsNull(row) {
				return append(b, "null"...)
			}
			return enc.AppendString(b, n.col.Str(row))
		}
		v := n.col.Value(row, n.f.Type)
		return enc.Append(b, &v)
	}
	if n.col.IsNull(row) {
		return append(b, "null"...)
	}
	b = append(b, "[{"...)
	for i := range n.kids {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, n.names[i]...)
		b = n.kids[i].append(b, row, enc)
	}
	return append(b, "}]"...)
}

package exec

import (
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

// appendRecords is localRows.AppendRecords over one segment.
func appendRecords(seg *logstore.Segment, f *event.Field, rows []int32, w *recordWriter) error {
	root, err := newRecordNode(seg, f, &w.enc)
	if err != nil {
		return err
	}
	for _, r := range rows {
		w.buf = root.append(w.buf, int(r), &w.enc)
		w.ends = append(w.ends, len(w.buf))
	}
	return nil
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

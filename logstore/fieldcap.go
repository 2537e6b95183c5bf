package logstore

import (
	"encoding/json"

	"logq/ingest"
	"logq/types"
)

// The field cap. A source has at most Options.MaxFields field paths (nested
// ones included), as Logflare bounds a source's schema: without a bound, one
// event with thousands of new keys makes thousands of columns, each padded
// with a NULL for every row already in the open segment, and every later
// segment file carries them. A key that would make a field past the cap is
// not dropped: its value is kept, as a member of a JSON object text, in the
// STRING column "__overflow" of the object it belongs to ("metadata.__overflow",
// or "__overflow" at the top level), which SQL reads with JSON_VALUE and the
// like. Existing fields keep taking values as before.

// OverflowField is the name of the column that holds an object's keys past
// the field cap.
const OverflowField = "__overflow"

// DefaultMaxFields is Logflare's default bound on a source's fields.
const DefaultMaxFields = 500

// field returns the node of key rawKey under n, creating it unless the
// source is at its field cap; nil means the value goes to n's overflow.
func (w *writer) field(n *node, rawKey []byte) *node {
	if *n.total < w.src.opts.MaxFields {
		return n.childBytes(rawKey)
	}
	if c := n.lookup(rawKey); c != nil {
		return c
	}
	return nil
}

// lookup finds an existing child by raw key bytes, creating nothing.
func (n *node) lookup(raw []byte) *node {
	if n.next < len(n.children) {
		if c := n.children[n.next]; c.name == string(raw) {
			return c
		}
	}
	if ingest.SafeKey(raw) {
		return n.byName[string(raw)]
	}
	return n.byName[ingest.SanitizeKey(raw)]
}

// overflow adds the value at the scanner, under rawKey, to the current
// object's overflow members.
func (w *writer) overflow(rawKey []byte, depth int) error {
	raw, err := w.sc.Skip(depth)
	if err != nil {
		return err
	}
	key, _ := json.Marshal(string(rawKey))
	w.ovf = append(w.ovf, ',')
	w.ovf = append(w.ovf, key...)
	w.ovf = append(w.ovf, ':')
	w.ovf = append(w.ovf, raw...)
	s := w.src
	s.overflowed++
	if !s.warned {
		s.warned = true
		s.store.log().Warn("source reached its field cap: keys past it are kept as JSON in __overflow columns",
			"source", s.name, "max_fields", s.opts.MaxFields, "key", string(rawKey))
	}
	return nil
}

// flushOverflow writes the current object's overflow members, if any, into
// its __overflow column. That column is made even past the cap: one per
// object at most.
func (w *writer) flushOverflow(n *node, row int) error {
	if len(w.ovf) == 0 {
		return nil
	}
	w.ovf[0] = '{'
	text := append(w.ovf, '}')
	if col := w.put(n.child(OverflowField), types.KindString, row); col != nil {
		col.appendString(text)
	}
	w.ovf = w.ovf[:0]
	return nil
}

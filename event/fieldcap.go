package event

import (
	"encoding/json"

	"logq/types"
)

// The field cap. A tree has at most MaxFields field paths (nested ones
// included), as Logflare bounds a source's schema: without a bound, one
// event with thousands of new keys makes thousands of columns, each padded
// with a NULL for every row a storage engine already holds, and every later
// segment or table carries them. A key that would make a field past the cap
// is not dropped: its value is kept, as a member of a JSON object text, in
// the STRING field "__overflow" of the object it belongs to
// ("metadata.__overflow", or "__overflow" at the top level), which SQL reads
// with JSON_VALUE and the like. Existing fields keep taking values as before.

// OverflowField is the name of the field that holds an object's keys past
// the field cap.
const OverflowField = "__overflow"

// DefaultMaxFields is Logflare's default bound on a source's fields.
const DefaultMaxFields = 500

// field returns the node of key rawKey under n, making it unless the tree
// is at its field cap; nil means the value goes to n's overflow.
func (s *shredder) field(n *Node, rawKey []byte) *Node {
	if t := s.tree; t.MaxFields <= 0 || t.nodes < t.MaxFields {
		return n.childBytes(rawKey)
	}
	return n.lookupBytes(rawKey)
}

// overflow adds the value at the scanner, under rawKey, to the current
// object's overflow members.
func (s *shredder) overflow(rawKey []byte, depth int) error {
	raw, err := s.sc.Skip(depth)
	if err != nil {
		return err
	}
	key, _ := json.Marshal(string(rawKey))
	s.ovf = append(s.ovf, ',')
	s.ovf = append(s.ovf, key...)
	s.ovf = append(s.ovf, ':')
	s.ovf = append(s.ovf, raw...)
	s.tree.Overflowed++
	if s.tree.OnOverflow != nil {
		s.tree.OnOverflow(rawKey)
	}
	return nil
}

// flushOverflow writes the current object's overflow members, if any, into
// its __overflow field. That field is made even past the cap: one per
// object at most.
func (s *shredder) flushOverflow(n *Node) {
	if len(s.ovf) == 0 {
		return
	}
	s.ovf[0] = '{'
	text := append(s.ovf, '}')
	if c := n.Child(OverflowField); s.put(c, types.KindString) {
		s.sink.String(c, text)
	}
	s.ovf = s.ovf[:0]
}

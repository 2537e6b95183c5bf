package event

import (
	"fmt"
	"strconv"

	"logq/types"
)

// Shredding: one event's JSON into typed fields, the one place that decides
// for every storage engine what an event stores.
//
//   - Keys are made SQL-safe (keys.go). When two keys of one object are
//     equal after that (or repeat), the first value is kept, and a later
//     one changes nothing, not even a field's type.
//   - timestamp (ParseTime; missing or unreadable: the arrival time), id
//     (missing or empty: a UUID from the chunk's seed and the event's index)
//     and event_message (else message) are the three fixed fields, written
//     last. A message beside an event_message is a field of its own.
//   - A field's type is fixed by its first non-null value and then widened,
//     never narrowed (WidenKind): INT64 meeting a fraction becomes FLOAT64; a
//     scalar meeting a scalar of another kind becomes STRING, and the value
//     is written as its JSON text. An integer too large for INT64 is a
//     FLOAT64.
//   - A JSON object is a node with children (Object), written as its
//     presence plus its members; an array is one value (DecodeArray) whose
//     element type widens by WidenElem. A value whose shape (object, array
//     or scalar) differs from the field's is kept as JSON text in the STRING
//     field "<key>__json" beside it.
//   - Past the field cap, keys go to an __overflow field (fieldcap.go).
//
// The values go to a Sink, already converted to the field's (widened) kind.

// Sink receives the values of the event being shredded, one field at a
// time, each field at most once per event. n.Kind is already the field's
// widened kind and the value is of that kind: Int for BOOL (0 or 1), INT64
// and TIMESTAMP, Float for FLOAT64, String for STRING (b is valid during the
// call only), Array for an array field, Present for an object.
type Sink interface {
	Int(n *Node, v int64)
	Float(n *Node, v float64)
	String(n *Node, b []byte)
	Array(n *Node, v types.Value)
	Present(n *Node)
}

// Origin is what names and times an event that carries no id or timestamp:
// its chunk's arrival time (µs) and random seed, and its index in the
// chunk, the same again when a storage engine replays the chunk.
//
// MaxAge (µs; 0 for none) is the retention the chunk was ingested under:
// an event whose timestamp is older than Arrival-MaxAge is refused
// (ErrTooOld) by Shred and AppendBody alike.
type Origin struct {
	Arrival int64
	Seed    [16]byte
	Index   uint64
	MaxAge  int64
}

// Shred writes one event into sink and the tree, and returns its timestamp.
// On error the event is refused: the sink may have taken some of its
// values, which its caller then drops, and the tree may have made fields
// for them (a replay of the same event makes the same ones).
func (t *Tree) Shred(ev []byte, o Origin, sink Sink) (ts int64, err error) {
	s := &t.sh
	s.tree, s.sink, s.origin = t, sink, o
	s.stamp++
	s.sc = NewScanner(ev, s.sc.buf)
	s.ovf = s.ovf[:0]
	defer func() { s.sink = nil }()
	return s.event()
}

// shredder is the state of one Shred call, kept in the tree for its buffers.
type shredder struct {
	tree   *Tree
	sink   Sink
	origin Origin
	stamp  uint64 // the event's number: a node stamped with it has its value
	sc     Scanner
	ovf    []byte // the current object's keys past the field cap, as JSON members
	idBuf  []byte // a generated id
}

func (s *shredder) event() (int64, error) {
	sc := &s.sc
	root := &s.tree.root
	if sc.Peek() != '{' {
		return 0, fmt.Errorf("an event must be a JSON object")
	}
	sc.Advance()
	root.next = 0 // the keys of one source come mostly in one order: predict its first
	var (
		ts      int64
		haveTS  bool   // a timestamp key was seen (the first one decides)
		id      []byte // raw JSON
		haveID  bool
		msg     []byte
		haveMsg bool
		message []byte // "message", used when event_message is absent
	)
	for first := true; ; first = false {
		rawKey, done, err := sc.NextKey(first)
		if err != nil {
			return 0, err
		}
		if done {
			break
		}
		if !SafeKey(rawKey) {
			rawKey = []byte(SanitizeKey(rawKey))
		}
		switch string(rawKey) {
		case "timestamp", "id", "event_message", "message":
			raw, err := sc.Skip(1)
			if err != nil {
				return 0, err
			}
			switch string(rawKey) {
			case "timestamp":
				if !haveTS {
					haveTS = true
					ts, haveTS = ParseTime(raw)
					if !haveTS {
						ts, haveTS = s.origin.Arrival, true // unreadable: the arrival time, and later keys are repeats
					}
				}
			case "id":
				if !haveID {
					haveID = true
					id = raw
				}
			case "event_message":
				if !haveMsg {
					msg, haveMsg = raw, true
				}
			case "message":
				if message == nil {
					message = raw
				}
			}
			continue
		}
		child := s.field(root, rawKey)
		if child == nil {
			if err := s.overflow(rawKey, 1); err != nil {
				return 0, err
			}
			continue
		}
		if err := s.value(child, 1); err != nil {
			return 0, err
		}
	}
	if sc.Peek() != 0 {
		return 0, sc.Fail("the end of the event")
	}
	if !haveTS {
		ts = s.origin.Arrival
	}
	if err := s.origin.checkAge(ts); err != nil {
		return 0, err
	}
	s.flushOverflow(root)
	if !haveMsg && message != nil {
		msg, haveMsg = message, true
	} else if message != nil {
		if err := s.rawValue(root.Child("message"), message); err != nil {
			return 0, err
		}
	}
	// The three fixed fields are written last; keys sanitised to the same
	// names were caught above, so they have no value yet in this event.
	if n := root.Child("timestamp"); s.put(n, types.KindTimestamp) {
		s.sink.Int(n, ts)
	}
	if n := root.Child("id"); s.put(n, types.KindString) {
		text := s.scalarText(id)
		if len(text) == 0 { // missing or empty: generated
			s.idBuf = AppendUUID(s.idBuf[:0], s.origin.Seed, s.origin.Index)
			text = s.idBuf
		}
		s.sink.String(n, text)
	}
	if haveMsg && !IsNull(msg) {
		if n := root.Child("event_message"); s.put(n, types.KindString) {
			s.sink.String(n, s.scalarText(msg))
		}
	}
	return ts, nil
}

// scalarText is ScalarText without a copy: a JSON string's text (aliasing
// raw, or the scanner's scratch when it has escapes), else raw as written.
// It is valid until the scanner next reads a string.
func (s *shredder) scalarText(raw []byte) []byte {
	if len(raw) > 0 && raw[0] == '"' {
		sc := NewScanner(raw, s.sc.buf)
		if b, err := sc.Str(); err == nil {
			s.sc.buf = sc.buf
			return b
		}
	}
	return raw
}

// rawValue writes the JSON value raw into node n, scanning it on the side.
func (s *shredder) rawValue(n *Node, raw []byte) error {
	saved := s.sc
	s.sc = NewScanner(raw, saved.Buffer())
	err := s.value(n, 1)
	s.sc.Resume(saved)
	return err
}

// put claims node n for a value of kind k in this event, widening its type
// to hold k. It reports false when the event has already given n a value
// (a repeated key: the first one wins, and the later one changes nothing).
func (s *shredder) put(n *Node, k types.Kind) bool {
	if n.stamp == s.stamp {
		return false
	}
	n.stamp = s.stamp
	n.widen(k)
	return true
}

// value writes the JSON value at the scanner into node n.
func (s *shredder) value(n *Node, depth int) error {
	sc := &s.sc
	if depth > MaxDepth {
		return fmt.Errorf("%w: nested deeper than %d", ErrJSON, MaxDepth)
	}
	switch c := sc.Peek(); {
	case c == '{':
		if n.Array || (n.Kind != types.KindNull && !n.Object) {
			return s.conflict(n)
		}
		if n.stamp == s.stamp {
			_, err := sc.Skip(depth) // a repeated key: the first wins
			return err
		}
		n.stamp = s.stamp
		if !n.Object {
			n.Object = true
			n.tree.changed = true
		}
		s.sink.Present(n)
		sc.Advance()
		// The object's own keys past the field cap, apart from its
		// parent's (restored without a defer: value has too many returns
		// for an open-coded one, and the runtime's costs ~2% of ingest).
		saved := s.ovf
		s.ovf = nil
		err := s.members(n, depth)
		s.ovf = saved
		return err
	case c == '[':
		if n.Object || (n.Kind != types.KindNull && !n.Array) {
			return s.conflict(n)
		}
		raw, err := sc.Skip(depth)
		if err != nil {
			return err
		}
		if n.stamp == s.stamp {
			return nil // a repeated key: the first wins
		}
		v, err := DecodeArray(raw)
		if err != nil {
			return err
		}
		got := *v.T.Elem
		if !n.Array {
			n.Array, n.Elem = true, got
			n.tree.changed = true
		} else if e := WidenElem(n.Elem, got); !e.Equal(n.Elem) {
			n.Elem = e
			n.tree.changed = true
		}
		if got.Kind != types.KindNull && !got.Equal(n.Elem) {
			v = ArrayAsStrings(v) // the field's elements are text now
		}
		if s.put(n, types.KindArray) {
			s.sink.Array(n, v)
		}
		return nil
	case c == 'n':
		return sc.Literal("null")
	}
	if n.Object || n.Array {
		return s.conflict(n)
	}
	return s.scalar(n)
}

// members writes the members of the object at the scanner, whose '{' is
// consumed, into n's children.
func (s *shredder) members(n *Node, depth int) error {
	sc := &s.sc
	n.next = 0 // predict the object's first child first (childBytes)
	for first := true; ; first = false {
		rawKey, done, err := sc.NextKey(first)
		if err != nil {
			return err
		}
		if done {
			s.flushOverflow(n)
			return nil
		}
		if depth == MaxDepth {
			// A member one level too deep: refuse the event before it
			// makes a field that storage cannot hold.
			return fmt.Errorf("%w: nested deeper than %d", ErrJSON, MaxDepth)
		}
		child := s.field(n, rawKey)
		if child == nil {
			if err := s.overflow(rawKey, depth+1); err != nil {
				return err
			}
			continue
		}
		if err := s.value(child, depth+1); err != nil {
			return err
		}
	}
}

// scalar writes the string, boolean or number at the scanner into node n,
// as the field's kind once widened to hold it.
func (s *shredder) scalar(n *Node) error {
	sc := &s.sc
	switch c := sc.Peek(); {
	case c == '"':
		b, err := sc.Str()
		if err != nil {
			return err
		}
		if s.put(n, types.KindString) {
			s.sink.String(n, b)
		}
	case c == 't' || c == 'f':
		word, v := "true", int64(1)
		if c == 'f' {
			word, v = "false", 0
		}
		if err := sc.Literal(word); err != nil {
			return err
		}
		if !s.put(n, types.KindBool) {
			return nil
		}
		if n.Kind == types.KindString {
			s.sink.String(n, []byte(word))
		} else {
			s.sink.Int(n, v)
		}
	default:
		tok, isInt, err := sc.Number()
		if err != nil {
			return err
		}
		var iv int64
		if isInt {
			var ok bool
			if iv, ok = ParseInt(tok); !ok {
				isInt = false // too large for INT64: keep it as FLOAT64
			}
		}
		k := types.KindFloat64
		if isInt {
			k = types.KindInt64
		}
		if !s.put(n, k) {
			return nil
		}
		switch n.Kind {
		case types.KindString:
			s.sink.String(n, tok)
		case types.KindFloat64:
			f, err := strconv.ParseFloat(string(tok), 64)
			if err != nil {
				return fmt.Errorf("%w: bad number %q", ErrJSON, tok)
			}
			s.sink.Float(n, f)
		default:
			s.sink.Int(n, iv)
		}
	}
	return nil
}

// conflict stores a value whose shape (object, array or scalar) differs from
// what the field held before as JSON text in the sibling "<key>__json".
func (s *shredder) conflict(n *Node) error {
	raw, err := s.sc.Skip(1)
	if err != nil {
		return err
	}
	sib := n.Parent.Child(n.Name + "__json")
	if s.put(sib, types.KindString) {
		s.sink.String(sib, raw)
	}
	return nil
}

package dest

import (
	"bytes"
	"logq/types"
	"strconv"
	"time"
)

// appendWebhook appends the webhook body: the JSON array of the events'
// bodies, copied as they are.
func appendWebhook(dst []byte, b Batch) []byte {
	dst = append(dst, '[')
	for i, e := range b.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendBody(dst, e.Body)
	}
	return append(dst, ']')
}

// appendBody appends an event's body ({} when it has none).
func appendBody(dst, body []byte) []byte {
	if len(body) == 0 {
		return append(dst, "{}"...)
	}
	return append(dst, body...)
}

// ddTimeLayout is Elixir's DateTime.to_iso8601 of a µs time.
const ddTimeLayout = "2006-01-02T15:04:05.000000Z"

var quotedMessage = []byte(`"message"`)

// appendDatadog appends the Datadog body: a JSON array of {"message":
// "<time> <message>", "ddsource": "Supabase", "service": <source>, "data":
// <body>}, where the message is the body's top-level "message" string when
// it has one, else its event_message (Logflare's body.message ||
// body.event_message).
func appendDatadog(dst []byte, b Batch) []byte {
	dst = append(dst, '[')
	for i, e := range b.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		msg := e.Message
		if bytes.Contains(e.Body, quotedMessage) {
			if m, ok := topLevelString(e.Body, "message"); ok {
				msg = m
			}
		}
		dst = append(dst, `{"message":"`...)
		dst = time.UnixMicro(e.Timestamp).UTC().AppendFormat(dst, ddTimeLayout)
		dst = append(dst, ' ')
		dst = types.AppendJSONStringContent(dst, msg)
		dst = append(dst, `","ddsource":"Supabase","service":`...)
		dst = types.AppendJSONString(dst, b.Source)
		dst = append(dst, `,"data":`...)
		dst = appendBody(dst, e.Body)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendLoki appends the Loki push body: one stream {source: "supabase",
// service: <source>} whose values are [<ns>, <event_message>, <structured
// metadata>] in arrival order; {"streams":[]} for no events.
func appendLoki(dst []byte, b Batch) []byte {
	if len(b.Events) == 0 {
		return append(dst, `{"streams":[]}`...)
	}
	dst = append(dst, `{"streams":[{"stream":{"source":"supabase","service":`...)
	dst = types.AppendJSONString(dst, b.Source)
	dst = append(dst, `},"values":[`...)
	f := &flattener{}
	for i, e := range b.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `["`...)
		dst = strconv.AppendInt(dst, e.Timestamp*1000, 10)
		dst = append(dst, `",`...)
		dst = types.AppendJSONString(dst, e.Message)
		dst = append(dst, ',')
		f.event(e.Body)
		dst = f.appendTo(dst)
		dst = append(dst, ']')
	}
	return append(dst, "]}]}"...)
}

// flattener flattens an event body as Logflare's Loki adaptor does
// (Iteraptor.to_flatmap with "_"): nested keys joined with "_", list
// elements keyed by their index, every leaf a string (numbers as written,
// true/false, null as "nil", an empty object or list as "{}"/"[]"). Its
// buffers are reused from event to event.
type flattener struct {
	s    scanner
	path []byte      // the key being built
	keys []byte      // the leaves' keys, one after the other
	vals []byte      // the leaves' values, JSON-encoded
	ents []flatEntry // the leaves, in the body's order
	last map[string]int
}

type flatEntry struct{ k0, k1, v0, v1 int }

// event reads one body's leaves.
func (f *flattener) event(body []byte) {
	f.s = newScanner(body)
	f.path, f.keys, f.vals, f.ents = f.path[:0], f.keys[:0], f.vals[:0], f.ents[:0]
	if f.s.peek() == '{' {
		f.value()
	}
}

// value reads the value at the cursor, whose key is f.path.
func (f *flattener) value() {
	s := &f.s
	n := len(f.path)
	switch c := s.peek(); {
	case c == '{':
		empty := true
		s.members(func(k []byte, esc bool) {
			empty = false
			f.path = f.path[:n]
			if n > 0 {
				f.path = append(f.path, '_')
			}
			if esc {
				f.path = append(f.path, decodeString(k, true)...)
			} else {
				f.path = append(f.path, k...)
			}
			f.value()
		})
		f.path = f.path[:n]
		if empty && n > 0 {
			f.leaf(`"{}"`)
		}
	case c == '[':
		empty := true
		s.elements(func(i int) {
			empty = false
			f.path = f.path[:n]
			if n > 0 {
				f.path = append(f.path, '_')
			}
			f.path = strconv.AppendInt(f.path, int64(i), 10)
			f.value()
		})
		f.path = f.path[:n]
		if empty {
			f.leaf(`"[]"`)
		}
	case c == '"':
		raw, esc := s.str()
		v0 := len(f.vals)
		f.vals = appendRawString(f.vals, raw, esc)
		f.add(v0)
	case c == '-' || c >= '0' && c <= '9':
		num := s.number()
		v0 := len(f.vals)
		f.vals = append(f.vals, '"')
		f.vals = append(f.vals, num...)
		f.vals = append(f.vals, '"')
		f.add(v0)
	default:
		switch s.literal() {
		case "true":
			f.leaf(`"true"`)
		case "false":
			f.leaf(`"false"`)
		case "null":
			f.leaf(`"nil"`)
		}
	}
}

func (f *flattener) leaf(v string) {
	v0 := len(f.vals)
	f.vals = append(f.vals, v...)
	f.add(v0)
}

// add records a leaf keyed f.path whose value starts at vals[v0].
func (f *flattener) add(v0 int) {
	k0 := len(f.keys)
	f.keys = append(f.keys, f.path...)
	f.ents = append(f.ents, flatEntry{k0, len(f.keys), v0, len(f.vals)})
}

// appendTo appends the structured metadata object: every leaf but
// "timestamp" and "event_message", in the body's order; when two leaves
// flatten to one key the later wins.
func (f *flattener) appendTo(dst []byte) []byte {
	dst = append(dst, '{')
	useMap := len(f.ents) > 64
	if useMap {
		if f.last == nil {
			f.last = map[string]int{}
		}
		clear(f.last)
		for i, e := range f.ents {
			f.last[string(f.keys[e.k0:e.k1])] = i
		}
	}
	first := true
	for i, e := range f.ents {
		k := f.keys[e.k0:e.k1]
		if string(k) == "timestamp" || string(k) == "event_message" {
			continue
		}
		if useMap {
			if f.last[string(k)] != i {
				continue
			}
		} else if f.later(i, k) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = types.AppendJSONString(dst, string(k)) // a key: short, converted on the stack
		dst = append(dst, ':')
		dst = append(dst, f.vals[e.v0:e.v1]...)
	}
	return append(dst, '}')
}

// later reports whether a leaf after the i-th has key k.
func (f *flattener) later(i int, k []byte) bool {
	for _, e := range f.ents[i+1:] {
		if bytes.Equal(f.keys[e.k0:e.k1], k) {
			return true
		}
	}
	return false
}

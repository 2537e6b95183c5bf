package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"logq/event"
)

// Form is an ingest body form, named by its route suffix.
type Form string

// The forms of Logflare's ingest routes.
const (
	FormJSON       Form = ""
	FormSyslog     Form = "/syslogs"
	FormLogplex    Form = "/logplex"
	FormCloudEvent Form = "/cloud-event"
	FormBrowser    Form = "/browser/reports"
)

// Suffixes lists every route suffix served under each ingest prefix, with
// the form its body is read as.
var Suffixes = map[string]Form{
	"": FormJSON, "/json": FormJSON, "/vector": FormJSON, "/cloudflare": FormJSON,
	"/syslogs": FormSyslog, "/logplex": FormLogplex, "/cloud-event": FormCloudEvent,
	"/browser/reports": FormBrowser,
}

// Batch is a decoded body: events for the store, with Index[i] the position
// in the body of Events[i], and the events refused while decoding.
type Batch struct {
	Events  [][]byte
	Index   []int
	Rejects []event.Reject
	// Source is the "source" key beside "batch" in {"batch": [...],
	// "source": "<uuid>"}, as logflare-transport-core sends it; api uses it
	// when neither the query string nor X-Source names a source.
	Source string
	// mayHaveMessage[i] says whether event i may have a top-level
	// log_entry or message key (normalizeMessage's); nil: any may.
	mayHaveMessage []bool
}

// Add keeps ev, the i-th event of the body.
func (b *Batch) Add(i int, ev []byte) {
	b.Events = append(b.Events, ev)
	b.Index = append(b.Index, i)
}

// Refuse lists the i-th event of the body as refused, and why.
func (b *Batch) Refuse(i int, format string, args ...any) {
	b.Rejects = append(b.Rejects, event.Reject{Index: i, Reason: fmt.Sprintf(format, args...)})
}

// BodyError says the body is not in the form at all; nothing was taken.
type BodyError struct{ Msg string }

func (e *BodyError) Error() string { return e.Msg }

// Options are what Decode needs beyond the body.
type Options struct {
	// CloudEventAttrs carries CloudEvent attributes sent as ce-* headers
	// (binary mode), keyed without the prefix, lower case.
	CloudEventAttrs map[string]string
}

// Decode reads a body of the given form.
func Decode(form Form, body []byte, opt Options) (*Batch, error) {
	var (
		b   *Batch
		err error
	)
	switch form {
	case FormSyslog, FormLogplex:
		b, err = decodeSyslog(body)
	case FormCloudEvent:
		b, err = decodeCloudEvent(body, opt.CloudEventAttrs)
	case FormBrowser:
		b, err = decodeBrowserReports(body)
	default:
		b, err = splitEvents(body)
	}
	if err != nil {
		return nil, err
	}
	for i, ev := range b.Events {
		if b.mayHaveMessage == nil || b.mayHaveMessage[i] {
			b.Events[i] = normalizeMessage(ev)
		}
	}
	return b, nil
}

// splitEvents reads a body of JSON events (the /json form): an array,
// {"batch": [...]}, one object or NDJSON.
func splitEvents(body []byte) (*Batch, error) {
	b, err := fastSplit(body)
	if b == nil && err == nil {
		b, err = splitJSON(body)
	}
	return b, err
}

// fastSplit answers arrays, and NDJSON of more than one good line, with
// Split (scan.go), which builds no values and fails rather than skip
// anything; it returns nil, nil to leave the body to splitJSON, which says
// which events are refused (encoding/json alone more than doubled the cost
// of ingest).
func fastSplit(body []byte) (*Batch, error) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || (t[0] != '[' && t[0] != '{') {
		return nil, nil
	}
	// Split marks the events with a top-level key normalizeMessage reads, so
	// that the others are not searched for one (two passes over every
	// event's bytes, ~4% of an edge event's ingest).
	evs, marked, err := event.SplitMarking(t, messageKeys)
	if err != nil || (t[0] == '{' && len(evs) < 2) {
		return nil, nil // splitJSON says why, or handles one object / a batch
	}
	b := &Batch{Events: evs, Index: make([]int, len(evs)), mayHaveMessage: marked}
	for i := range b.Index {
		b.Index[i] = i
	}
	return b, nil
}

// splitJSON splits a JSON array, {"batch": [...]}, one object, or NDJSON.
func splitJSON(body []byte) (*Batch, error) {
	body = bytes.TrimSpace(body)
	b := &Batch{}
	switch {
	case len(body) == 0:
		return nil, &BodyError{"the body is empty"}
	case body[0] == '[':
		var evs []json.RawMessage
		if err := json.Unmarshal(body, &evs); err != nil {
			return nil, &BodyError{fmt.Sprintf("the body is not a JSON array: %v", err)}
		}
		for i, ev := range evs {
			b.Add(i, ev)
		}
		return b, nil
	}
	if body[0] == '{' && json.Valid(body) {
		var obj struct {
			Batch  json.RawMessage `json:"batch"`
			Source json.RawMessage `json:"source"`
		}
		// A "batch" array makes the object a batch; other keys beside it
		// (logflare-transport-core's "source") are not events.
		if err := json.Unmarshal(body, &obj); err == nil && bytes.HasPrefix(bytes.TrimSpace(obj.Batch), []byte("[")) {
			var evs []json.RawMessage
			if err := json.Unmarshal(obj.Batch, &evs); err != nil {
				return nil, &BodyError{"\"batch\" must be an array of events"}
			}
			for i, ev := range evs {
				b.Add(i, ev)
			}
			_ = json.Unmarshal(obj.Source, &b.Source)
			return b, nil
		}
		b.Add(0, body)
		return b, nil
	}
	// NDJSON (one JSON value, not an object, is a line of its own): every
	// non-empty line is an event, and a bad line is refused alone, as a bad
	// element of an array is. Only a body none of whose lines is JSON is
	// not JSON at all.
	i, valid := 0, 0
	for n, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		switch {
		case !json.Valid(line):
			b.Refuse(i, "line %d: %v", n+1, jsonError(line))
		case line[0] != '{':
			valid++
			b.Refuse(i, "line %d: an event must be a JSON object", n+1)
		default:
			valid++
			b.Add(i, line)
		}
		i++
	}
	if valid == 0 {
		return nil, &BodyError{"the body must be JSON: an array of events, {\"batch\": [...]}, one event, or one event per line; no line is JSON"}
	}
	return b, nil
}

func jsonError(b []byte) error {
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %w", se.Offset, err)
	}
	return err
}

// messageKeys are the top-level keys normalizeMessage reads.
var messageKeys = []string{"log_entry", "message"}

// normalizeMessage applies Logflare's message order (log_entry, message,
// event_message): the winner is written first as event_message, which the
// store takes over any later event_message. Events that carry neither
// log_entry nor message are returned as they are, without parsing.
func normalizeMessage(ev []byte) []byte {
	if !mentions(ev, `"log_entry"`) && !mentions(ev, `"message"`) {
		return ev
	}
	fields, err := objectFields(ev)
	if err != nil {
		return ev // not an object: the store refuses it with its own reason
	}
	var msg json.RawMessage
	for _, k := range []string{"log_entry", "message"} {
		for _, f := range fields {
			if f.key == k && msg == nil {
				msg = f.val
			}
		}
	}
	if msg == nil {
		return ev
	}
	out := []field{{"event_message", msg}}
	for _, f := range fields {
		if f.key != "log_entry" && f.key != "event_message" {
			out = append(out, f)
		}
	}
	return encodeObject(out)
}

// mentions reports whether ev holds the quoted text q. It looks for q
// without its opening quote, then checks the byte before: '"' is JSON's
// commonest byte, and every event has "event_message", so searching for q
// itself tries a match at every quote (measured 6× slower on edge events).
func mentions(ev []byte, q string) bool {
	for i := 0; ; {
		j := bytes.Index(ev[i:], []byte(q[1:]))
		if j < 0 {
			return false
		}
		if i+j > 0 && ev[i+j-1] == '"' {
			return true
		}
		i += j + 1
	}
}

type field struct {
	key string
	val json.RawMessage
}

// objectFields returns an object's top-level keys and raw values in order.
func objectFields(obj []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []field
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{k.(string), v})
	}
	return out, nil
}

func encodeObject(fs []field) []byte {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(f.val)
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

package ingest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSyslog(t *testing.T) {
	for _, c := range []struct {
		line   string
		want   map[string]any // nil: refused
		reason string
	}{
		// Expected layouts from Logflare's plugs/syslog_parser.ex and
		// source_parsers/syslog_parser_helpers.ex: PRI 34 = facility 4
		// (auth) × 8 + severity 2 (critical); 165 = 20 (local4) + 5 (notice);
		// 13 = 1 (user) + 5; 14 = 1 + 6 (info).
		{`<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed`, map[string]any{
			"timestamp": "2003-10-11T22:14:15.003Z", "event_message": "'su root' failed",
			"metadata": map[string]any{"priority": float64(34), "severity": "critical", "level": "critical", "facility": "auth",
				"hostname": "mymachine.example.com", "appname": "su", "message_id": "ID47",
				"message_text": "'su root' failed", "message_raw": `<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed`}}, ""},
		{`<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - [a b="]"][c] hi`, map[string]any{
			"timestamp": "2003-08-24T05:14:15.000003-07:00", "event_message": "hi",
			"metadata": map[string]any{"priority": float64(165), "severity": "notice", "level": "notice", "facility": "local4",
				"hostname": "192.0.2.1", "appname": "myproc", "process_id": "8710", "message_text": "hi",
				"sd": []any{map[string]any{"id": "a", "b": "]"}, map[string]any{"id": "c"}}, "message_raw": `<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - [a b="]"][c] hi`}}, ""},
		{`<13>1 - - - - - -`, map[string]any{"event_message": "",
			"metadata": map[string]any{"priority": float64(13), "severity": "notice", "level": "notice", "facility": "user", "message_raw": `<13>1 - - - - - -`}}, ""},
		{`<14>1 2026-03-14T15:00:00Z h a - - [x@1 q="say \"hi\""] {"k":1}`, map[string]any{
			"timestamp": "2026-03-14T15:00:00Z", "event_message": `{"k":1}`,
			"metadata": map[string]any{"priority": float64(14), "severity": "info", "level": "info", "facility": "user",
				"hostname": "h", "appname": "a", "message_text": `{"k":1}`,
				"sd":          []any{map[string]any{"id": "json", "k": float64(1)}, map[string]any{"id": "x@1", "q": `say "hi"`}},
				"message_raw": `<14>1 2026-03-14T15:00:00Z h a - - [x@1 q="say \"hi\""] {"k":1}`}}, ""},
		{"<14>1 2026-03-14T15:00:00Z h a - - - \x1b[31mred\x1b[0m", map[string]any{
			"timestamp": "2026-03-14T15:00:00Z", "event_message": "red",
			"metadata": map[string]any{"priority": float64(14), "severity": "info", "level": "info", "facility": "user",
				"hostname": "h", "appname": "a", "message_text": "\x1b[31mred\x1b[0m",
				"message_raw": "<14>1 2026-03-14T15:00:00Z h a - - - \x1b[31mred\x1b[0m"}}, ""},
		{`no pri`, nil, "a syslog line starts with <PRI>"},
		{`<999>1 x`, nil, "a syslog line starts with <PRI>, a number from 0 to 191"},
		{`<13>1 short`, nil, "an RFC 5424 line needs TIMESTAMP HOSTNAME APP-NAME PROCID MSGID"},
	} {
		ev, reason := parseSyslog([]byte(c.line))
		require.Equal(t, c.reason, reason, c.line)
		if c.want == nil {
			continue
		}
		var got map[string]any
		require.NoError(t, json.Unmarshal(ev, &got))
		require.Equal(t, c.want, got, c.line)
	}
}

func TestNormalizeMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"event_message":"a","x":1}`, `{"event_message":"a","x":1}`},
		{`{"x":1,"message":"m","event_message":"e"}`, `{"event_message":"m","x":1,"message":"m"}`},
		{`{"log_entry":"l","message":"m"}`, `{"event_message":"l","message":"m"}`},
		{`{"metadata":{"message":"nested"}}`, `{"metadata":{"message":"nested"}}`},
		{`{"event_message":"e","my_message":1}`, `{"event_message":"e","my_message":1}`},
		{`{"x":"message\"","message":"m"}`, `{"event_message":"m","x":"message\"","message":"m"}`},
		{`{"event_message":"e","log_entry":"l"}`, `{"event_message":"l"}`},
	} {
		require.Equal(t, c.want, string(normalizeMessage([]byte(c.in))), c.in)
	}
}

// The JSON form's events skip normalizeMessage when Split found neither
// key at their top level: each event comes out as normalizeMessage alone
// makes it, for a body that mixes both kinds.
func TestDecodeNormalizesOnlyWhatItMust(t *testing.T) {
	evs := []string{
		`{"event_message":"a","metadata":{"message":"nested"}}`,
		`{"x":1,"message":"m","event_message":"e"}`,
		`{"log_entry":"l","y":"message"}`,
		`{"mess\u0061ge":"escaped","z":1}`,
		`{"event_message":"plain","log":"message\""}`,
	}
	b, err := Decode(FormJSON, []byte("["+strings.Join(evs, ",")+"]"), Options{})
	require.NoError(t, err)
	require.Len(t, b.Events, len(evs))
	for i, ev := range evs {
		require.Equal(t, string(normalizeMessage([]byte(ev))), string(b.Events[i]), ev)
	}
}

func TestSplitJSON(t *testing.T) {
	for _, c := range []struct {
		body    string
		events  []string
		index   []int
		rejects []string
		source  string
		bad     bool
	}{
		{body: `[{"a":1},{"b":2}]`, events: []string{`{"a":1}`, `{"b":2}`}, index: []int{0, 1}},
		{body: `{"batch":[{"a":1}],"source":"s-1"}`, events: []string{`{"a":1}`}, index: []int{0}, source: "s-1"},
		{body: `{"a":1}`, events: []string{`{"a":1}`}, index: []int{0}},
		{body: "{\"a\":1}\n\n{bad\n{\"b\":2}", events: []string{`{"a":1}`, `{"b":2}`}, index: []int{0, 2},
			rejects: []string{"event 1: line 3: invalid JSON at byte 2: invalid character 'b' looking for beginning of object key string"}},
		{body: `[{"a":1}`, bad: true},
		{body: "x\ny", bad: true},
		{body: "  ", bad: true},
	} {
		b, err := Decode(FormJSON, []byte(c.body), Options{})
		if c.bad {
			var be *BodyError
			require.ErrorAs(t, err, &be, c.body)
			continue
		}
		require.NoError(t, err)
		var evs []string
		for _, e := range b.Events {
			evs = append(evs, string(e))
		}
		require.Equal(t, c.events, evs, c.body)
		require.Equal(t, c.index, b.Index, c.body)
		var rj []string
		for _, r := range b.Rejects {
			rj = append(rj, r.String())
		}
		require.Equal(t, c.rejects, rj, c.body)
		require.Equal(t, c.source, b.Source)
	}
}

// FuzzDecodeMarks checks that skipping normalizeMessage for the events
// SplitMarking leaves unmarked changes nothing: every event the JSON form
// decodes is what normalizeMessage alone makes of it, and nothing panics.
func FuzzDecodeMarks(f *testing.F) {
	for _, s := range []string{
		`[{"message":"m","event_message":"e"},{"a":{"message":1}},{"log_entry":"l"}]`,
		`[{"mess\u0061ge":"m"},{"x":"\"message\":"},7,{"b":[{"log_entry":1}]}]`,
		"{\"a\":1}\n{\"message\":2}\n",
		`{"batch":[{"message":1},{"z":2}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := Decode(FormJSON, body, Options{})
		if err != nil {
			return
		}
		raw, err := splitEvents(body) // the same events, none normalized
		if err != nil {
			t.Fatalf("Decode took a body splitEvents refuses: %v", err)
		}
		if len(raw.Events) != len(b.Events) {
			t.Fatalf("%d events, split gives %d", len(b.Events), len(raw.Events))
		}
		for i, ev := range raw.Events {
			if want := normalizeMessage(ev); string(want) != string(b.Events[i]) {
				t.Fatalf("event %d: %s, want %s", i, b.Events[i], want)
			}
		}
	})
}

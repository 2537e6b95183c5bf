package event

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

var bodyOrigin = Origin{Arrival: 42, Seed: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}

// The body drains send: the fixed fields first, as Shred decides them, the
// other members as received with SQL-safe keys, the first of repeated keys.
func TestAppendBody(t *testing.T) {
	for _, c := range []struct {
		ev, want string
		ts       int64
		msg      string
	}{
		{ // an id, an ISO timestamp, nested keys made safe at every level
			ev:   `{"id":"a1","timestamp":"2024-05-01T10:00:00.5Z","event_message":"GET /","metadata":{"req-uest":{"user agent":"x"}},"n":1.5}`,
			want: `{"id":"a1","timestamp":1714557600500000,"event_message":"GET /","metadata":{"req_uest":{"user_agent":"x"}},"n":1.5}`,
			ts:   1714557600500000, msg: "GET /",
		},
		{ // no id, no timestamp: the seed's UUID (index 0) and the arrival
			ev:   `{"event_message":"x"}`,
			want: `{"id":"` + seedID + `","timestamp":42,"event_message":"x"}`,
			ts:   42, msg: "x",
		},
		{ // message stands for a missing event_message, and is not a member then
			ev:   `{"message":"hello","level":"info"}`,
			want: `{"id":"` + seedID + `","timestamp":42,"event_message":"hello","level":"info"}`,
			ts:   42, msg: "hello",
		},
		{ // beside an event_message, message is a member of its own
			ev:   `{"message":"m","event_message":"e"}`,
			want: `{"id":"` + seedID + `","timestamp":42,"event_message":"e","message":"m"}`,
			ts:   42, msg: "e",
		},
		{ // a null event_message: no event_message
			ev:   `{"event_message":null,"a":[1,{"b-c":2}]}`,
			want: `{"id":"` + seedID + `","timestamp":42,"a":[1,{"b_c":2}]}`,
			ts:   42,
		},
		{ // repeated keys (after making them safe): the first wins, at every level
			ev:   `{"a.b":1,"a_b":2,"o":{"x":1,"x":2},"timestamp":1714557600,"timestamp":5}`,
			want: `{"id":"` + seedID + `","timestamp":1714557600000000,"a_b":1,"o":{"x":1}}`,
			ts:   1714557600000000,
		},
		{ // a number id is its text; a raw tab in a string is escaped; a sloppy number is text
			ev:   "{\"id\":7,\"s\":\"a\tb\",\"n\":1-2,\"ok\":true,\"z\":null}",
			want: `{"id":"7","timestamp":42,"s":"a\tb","n":"1-2","ok":true,"z":null}`,
			ts:   42,
		},
		{ // an unreadable timestamp is the arrival; an empty id is generated
			ev:   `{"timestamp":"soon","id":""}`,
			want: `{"id":"` + seedID + `","timestamp":42}`,
			ts:   42,
		},
	} {
		got, ts, msg, err := AppendBody([]byte("prefix:"), []byte(c.ev), bodyOrigin)
		require.NoError(t, err, c.ev)
		require.Equal(t, "prefix:"+c.want, string(got), c.ev)
		require.True(t, json.Valid(got[len("prefix:"):]), c.ev)
		require.Equal(t, c.ts, ts, c.ev)
		require.Equal(t, c.msg, msg, c.ev)
	}
}

// What Shred refuses whatever the fields, the body refuses too.
func TestAppendBodyRefuses(t *testing.T) {
	deep := ""
	for i := 0; i < MaxDepth+1; i++ {
		deep += `{"a":`
	}
	deep += "1"
	for i := 0; i < MaxDepth+1; i++ {
		deep += "}"
	}
	for _, ev := range []string{`[1]`, `"x"`, `{"a":}`, `{"a":1} x`, `{"a":tru}`, `{"a":"x`, deep, ``} {
		out, _, _, err := AppendBody([]byte("p"), []byte(ev), bodyOrigin)
		require.Error(t, err, ev)
		require.Equal(t, "p", string(out), "nothing appended")
	}
}

// The body agrees with Shred on every event Shred takes: its timestamp,
// id and event_message, and it is valid JSON. Seeds: the shred tests'
// events.
func FuzzAppendBodyAgreesWithShred(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"id":"x","timestamp":"2024-05-01T10:00:00Z","message":"m"}`,
		`{"metadata":[{"a":{"b":[1,2,{"c":null}]}}],"event_message":"e","e-m":"x"}`, `{"a":1e400}`, `{"a":-0.5,"a":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ev string) {
		r := &recorder{got: map[string]string{}}
		ts, serr := NewTree(0).Shred([]byte(ev), bodyOrigin, r)
		body, bts, msg, berr := AppendBody(nil, []byte(ev), bodyOrigin)
		if serr != nil {
			return // the body may keep an event Shred refuses for a malformed number
		}
		require.NoError(t, berr, "Shred took %q", ev)
		require.True(t, json.Valid(body), "%q gave %s", ev, body)
		require.Equal(t, ts, bts)
		var m map[string]any
		require.NoError(t, json.Unmarshal(body, &m))
		// JSON holds text: a byte that is no UTF-8 reads back as U+FFFD.
		valid := func(s string) string { return string([]rune(s)) }
		require.Equal(t, valid(r.got["id"]), "STRING:"+m["id"].(string))
		if s, ok := r.got["event_message"]; ok {
			require.Equal(t, s, "STRING:"+msg)
			require.Equal(t, valid(msg), m["event_message"])
		} else {
			require.NotContains(t, m, "event_message")
		}
	})
}

func BenchmarkAppendBody(b *testing.B) {
	ev := []byte(`{"event_message":"GET | 200 | 1.2.3.4 | cf-ray | https://abc.supabase.co/rest/v1/users?select=* | Mozilla/5.0","id":"7c8e2a1d-4f3b-4e5a-9c2d-1b0a9e8f7d6c","timestamp":"2024-05-01T10:00:00.123456Z","metadata":[{"request":[{"cf":[{"asn":13335,"city":"Frankfurt","country":"DE"}],"headers":[{"accept":"*/*","user_agent":"Mozilla/5.0","x_client_info":"supabase-js/2.0"}],"method":"GET","path":"/rest/v1/users","url":"https://abc.supabase.co/rest/v1/users?select=*"}],"response":[{"headers":[{"content_type":"application/json"}],"status_code":200}]}],"project":"abc"}`)
	var dst []byte
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		dst, _, _, err = AppendBody(dst[:0], ev, bodyOrigin)
		if err != nil {
			b.Fatal(err)
		}
	}
}

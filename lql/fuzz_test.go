package lql

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// fuzzEvents are the fixed events FuzzParse matches every query against.
var fuzzEvents = [][]byte{
	[]byte(edgeEvent),
	[]byte(evLevel1),
	[]byte(evLines),
	[]byte(evTags),
	[]byte(`{"event_message":null,"metadata":{"nn":null,"flag":true,"n":"10","x":[[1,2],[3]],"o":{}}}`),
	[]byte(`{"event_message":12345,"metadata":[{"a":"x"},{"a":[1,"2",null]}],"id":"x","timestamp":1700000000000000}`),
	[]byte(`{"event_message":"say \"hi\" \\d caf\u00e9\n","m":{"x":1}}`),
	[]byte(`{"x":tru,"metadata":{"a":[1,}}`),
	[]byte(`[1,2]`),
	[]byte(``),
}

func seedQueries(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	for _, c := range errorCases {
		f.Add(c.in)
	}
	for _, c := range matchCases {
		f.Add(c.query)
	}
	for _, r := range levelRules {
		f.Add(r)
	}
}

// Parse never panics; an error has a position inside the input; a query
// that parses prints as LQL that parses to an equal query, whose canonical
// form is stable; Match never panics.
func FuzzParse(f *testing.F) {
	seedQueries(f)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			var e *Error
			require.True(t, errors.As(err, &e), "%T", err)
			require.True(t, e.Pos >= 0 && e.Pos <= len(s), "pos %d of %d", e.Pos, len(s))
			require.True(t, e.Line >= 1 && e.Col >= 1)
			require.NotEmpty(t, e.Msg)
			return
		}
		require.NotEmpty(t, q.Filters)
		require.LessOrEqual(t, len(q.Filters), maxClauses)
		out := q.String()
		q2, err := Parse(out)
		require.NoError(t, err, "%q printed as %q", s, out)
		require.Equal(t, exported(q.Filters), exported(q2.Filters), "%q printed as %q", s, out)
		require.Equal(t, out, q2.String())
		for _, ev := range fuzzEvents {
			require.Equal(t, q.Match(ev), q2.Match(ev))
		}
	})
}

// Match agrees with a plain evaluator over a decoded event, for every
// valid JSON event; on any other bytes it does not panic.
func FuzzMatch(f *testing.F) {
	for _, c := range matchCases {
		f.Add(c.query, c.event)
	}
	for _, ev := range fuzzEvents {
		f.Add(`~".*?"`, string(ev))
		f.Add(`m.request.path:~"^/rest" -m.x:@>3`, string(ev))
	}
	f.Fuzz(func(t *testing.T, query, ev string) {
		q, err := Parse(query)
		if err != nil {
			return
		}
		got := q.Match([]byte(ev))
		if !json.Valid([]byte(ev)) {
			return
		}
		v, ok := decode(ev)
		if !ok {
			return // too deep for the reference
		}
		require.Equal(t, refMatch(q, v), got, "%s on %s", query, ev)
	})
}

// The reference: a decoded JSON value, keys as written.
type refValue struct {
	kind byte // '{', '[', '"', 'n' (null), 'b' (true/false), '0' (number)
	keys []string
	vals []refValue // members or elements
	text string     // a string unescaped; a number's or boolean's JSON text
}

func decode(s string) (refValue, bool) {
	d := refDecoder{s: s}
	v, ok := d.value(0)
	return v, ok
}

type refDecoder struct {
	s string
	i int
}

func (d *refDecoder) ws() {
	for d.i < len(d.s) && strings.IndexByte(" \t\n\r", d.s[d.i]) >= 0 {
		d.i++
	}
}

// str reads a string token, returning it as written and unescaped.
func (d *refDecoder) str() (raw, text string) {
	start := d.i
	d.i++
	for d.s[d.i] != '"' {
		if d.s[d.i] == '\\' {
			d.i++
		}
		d.i++
	}
	d.i++
	raw = d.s[start:d.i]
	if err := json.Unmarshal([]byte(raw), &text); err != nil {
		panic(err) // json.Valid said it was fine
	}
	return raw, text
}

func (d *refDecoder) value(depth int) (refValue, bool) {
	if depth > 30 {
		return refValue{}, false
	}
	d.ws()
	switch c := d.s[d.i]; c {
	case '{', '[':
		v := refValue{kind: c}
		d.i++
		for {
			d.ws()
			if d.s[d.i] == '}' || d.s[d.i] == ']' {
				d.i++
				return v, true
			}
			if d.s[d.i] == ',' {
				d.i++
				d.ws()
			}
			if c == '{' {
				raw, _ := d.str()
				v.keys = append(v.keys, raw[1:len(raw)-1])
				d.ws()
				d.i++ // ':'
			}
			e, ok := d.value(depth + 1)
			if !ok {
				return v, false
			}
			v.vals = append(v.vals, e)
		}
	case '"':
		_, text := d.str()
		return refValue{kind: '"', text: text}, true
	case 'n':
		d.i += 4
		return refValue{kind: 'n'}, true
	case 't', 'f':
		n := 4
		if c == 'f' {
			n = 5
		}
		d.i += n
		return refValue{kind: 'b', text: d.s[d.i-n : d.i]}, true
	}
	start := d.i
	for d.i < len(d.s) && strings.IndexByte("+-.0123456789eE", d.s[d.i]) >= 0 {
		d.i++
	}
	return refValue{kind: '0', text: d.s[start:d.i]}, true
}

func refMatch(q *Query, ev refValue) bool {
	if ev.kind != '{' {
		return false
	}
	for i := range q.Filters {
		f := &q.Filters[i]
		found, ok := refWalk(f, ev, f.Path)
		if !found || ok == f.Negate {
			return false
		}
	}
	return true
}

func refWalk(f *Filter, v refValue, path []string) (found, ok bool) {
	switch v.kind {
	case '{':
		if len(path) == 0 {
			return true, false
		}
		for i, k := range v.keys {
			if k == path[0] {
				return refWalk(f, v.vals[i], path[1:]) // the first wins
			}
		}
		return false, false
	case '[':
		found = len(path) == 0
		for _, e := range v.vals {
			fd, k := refWalk(f, e, path)
			if k {
				return true, true
			}
			found = found || fd
		}
		return found, false
	}
	if len(path) > 0 {
		return false, false
	}
	switch v.kind {
	case '"':
		if f.matchAll {
			return true, true
		}
		return true, f.matchString([]byte(v.text))
	case 'n':
		return true, f.Op == IsNull
	}
	return true, f.matchText([]byte(v.text), v.kind == '0')
}

// The reference decoder agrees with encoding/json on what it decodes.
func TestRefDecoder(t *testing.T) {
	v, ok := decode(`{"a" : [1, "x\u00e9", null, true, {"b":-1.5e3}], "a":2}`)
	require.True(t, ok)
	require.Equal(t, []string{"a", "a"}, v.keys)
	require.Equal(t, "xé", v.vals[0].vals[1].text)
	require.Equal(t, "-1.5e3", v.vals[0].vals[4].vals[0].text)
	require.True(t, utf8.ValidString(v.vals[0].vals[1].text))
}

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// An event written in YAML is posted as the JSON a shipper would send:
// keys in the order written, YAML's scalars as JSON's, merge keys applied.
func TestYAMLEventsBecomeJSON(t *testing.T) {
	for _, c := range []struct {
		yaml, json string
	}{
		{`{b: 1, a: x}`, `{"b":1,"a":"x"}`},
		{`{t: 2026-01-01T11:00:00Z, d: 2026-01-01}`, `{"t":"2026-01-01T11:00:00Z","d":"2026-01-01"}`},
		{`{n: 0x10, m: -7, big: 18446744073709551615, f: 1.5, e: 1e3}`, `{"n":16,"m":-7,"big":18446744073709551615,"f":1.5,"e":1000}`},
		{`{y: true, no: false, yes: "yes", z: ~, s: "0x10"}`, `{"y":true,"no":false,"yes":"yes","z":null,"s":"0x10"}`},
		{`{1: one, html: "<b>"}`, `{"1":"one","html":"\u003cb\u003e"}`},
		{`{m: {r: [1, {k: v}]}}`, `{"m":{"r":[1,{"k":"v"}]}}`},
		{"base: &b {a: 1, b: 2}\nev: {<<: *b, b: 3, c: 4}", `{"a":1,"b":3,"c":4}`},
		{"x: &x {a: 1}\ny: &y {a: 2, b: 2}\nev: {<<: [*x, *y], c: 3}", `{"a":1,"b":2,"c":3}`},
		{"x: &x {a: 1}\ny: &y {<<: *x, b: 2}\nev: {<<: *y}", `{"a":1,"b":2}`},
	} {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(c.yaml), &doc), c.yaml)
		n := doc.Content[0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "ev" { // the event, beside its templates
				n = n.Content[i+1]
				break
			}
		}
		got, err := yamlJSON(n, func(n *yaml.Node) string { return "f" })
		require.NoError(t, err, c.yaml)
		require.Equal(t, c.json, string(got), c.yaml)
	}
}

// Values YAML can write but JSON cannot hold, or that aliases blow up.
func TestYAMLEventsRefused(t *testing.T) {
	laughs := "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 9; i++ {
		laughs += fmt.Sprintf("l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	for _, c := range []struct {
		yaml, err string
	}{
		{"ev: &a [1, *a]", "f: alias *a is inside the value it names"},
		{"ev: &a {k: [*a, *a]}", "f: alias *a is inside the value it names"},
		{"ev: &a {<<: *a, k: 1}", "f: a merge key (<<) names the mapping that holds it"},
		{"ev: {<<: [1], k: 1}", "f: a merge key (<<) takes mappings"},
		{laughs + "ev: {x: *l8}", "f: the value is larger than 100000 values or 1048576 bytes of JSON"},
		{"ev: {x: .inf}", "f: JSON has no .inf"},
		{"ev: {x: !!binary aGk=}", "f: a value tagged !!binary has no JSON form"},
		{"ev: {x: !!int 99999999999999999999999}", "f: integer 99999999999999999999999 is out of range"},
		{"ev: {[a]: 1}", "f: a key must be a plain value"},
		{"ev: " + strings.Repeat("[", 300) + strings.Repeat("]", 300), "f: nested deeper than 200 levels"},
	} {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(c.yaml), &doc), c.yaml)
		n := doc.Content[0]
		n = n.Content[len(n.Content)-1]
		_, err := yamlJSON(n, func(n *yaml.Node) string { return "f" })
		require.ErrorContains(t, err, c.err, c.yaml)
	}
}

func TestParseTestFile(t *testing.T) {
	src := `now: 2026-01-01T12:00:00.5+01:00
endpoints: [eps, /abs/one.yaml]
sandbox_logs_all: true
tests:
  - &first
    name: first
    endpoint: logs.all
    params: &p {project: abc, limit: 10}
    events:
      edge: [{id: a}]
    events_files:
      edge: [e.ndjson, e.ndjson]
      other: e.ndjson
    want: []
  - name: second
    endpoint: logs.all
    params: *p
    now: 2026-02-01T00:00:00Z
    sql: select 1
    want_error: {status: 400, message: "^x"}
  - <<: *first
    name: third
`
	reads := 0
	read := func(p string) ([]byte, error) {
		reads++
		require.Equal(t, filepath.Join("dir", "e.ndjson"), p)
		return []byte(`{"id":"b"}`), nil
	}
	f, err := parseTestFile("dir/t.yaml", []byte(src), read)
	require.NoError(t, err)
	require.Equal(t, 1, reads, "a file named three times is read once")
	require.Equal(t, "2026-01-01T11:00:00.5Z", f.now.UTC().Format("2006-01-02T15:04:05.999Z"))
	require.Equal(t, []testRef{{"dir/eps", "dir/t.yaml:2:13"}, {"/abs/one.yaml", "dir/t.yaml:2:18"}}, f.endpoints)
	require.True(t, f.sandboxLogsAll)
	require.Len(t, f.tests, 3)

	first := f.tests[0]
	require.Equal(t, "first", first.name)
	require.Equal(t, "dir/t.yaml:5:5", first.at, "where its anchor stands")
	require.Equal(t, "logs.all", first.endpoint.value)
	require.Equal(t, "dir/t.yaml:7:15", first.endpoint.at)
	require.Equal(t, "10", first.params.Get("limit"), "every parameter is a string")
	require.Equal(t, f.now, first.now)
	require.Len(t, first.sources, 2)
	require.Equal(t, "edge", first.sources[0].name)
	require.Equal(t, `[{"id":"a"}]`, string(first.sources[0].inline))
	require.Equal(t, []string{"dir/t.yaml:10:14"}, first.sources[0].inlineAt)
	require.Len(t, first.sources[0].files, 2)
	require.Same(t, first.sources[0].files[0], first.sources[1].files[0])
	require.Equal(t, "other", first.sources[1].name)
	require.NotNil(t, first.want)
	require.Empty(t, first.want)

	second := f.tests[1]
	require.Equal(t, "abc", second.params.Get("project"), "params through an alias")
	require.Equal(t, "2026-02-01T00:00:00Z", second.now.Format("2006-01-02T15:04:05Z07:00"))
	require.Equal(t, "select 1", second.sql.value)
	require.Nil(t, second.want)
	require.Equal(t, 400, second.wantErr.status)
	require.True(t, second.wantErr.message.MatchString("xyz"))
	require.Empty(t, second.sources)

	third := f.tests[2]
	require.Equal(t, "third", third.name, "a test's own key wins over a merged one")
	require.Equal(t, "dir/t.yaml:21:5", third.at)
	require.Equal(t, "logs.all", third.endpoint.value)
	require.Len(t, third.sources, 2)
	require.NotNil(t, third.want)
}

// Seeds: the repository's test files and small broken ones.
func FuzzParseTestFile(f *testing.F) {
	for _, p := range []string{"testdata/endpoints.test.yaml", "testdata/sandbox.test.yaml"} {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(data)
	}
	for _, s := range []string{
		"", "now: x", "tests: [\n", "now: 2026-01-01T00:00:00Z\ntests: [{name: a, endpoint: b, want: [{a: *x}]}]",
		"a: &a [*a]", "now: 2026-01-01T00:00:00Z\ntests:\n- {name: a, endpoint: b, want: [{<<: [*x]}]}",
		"now: 2026-01-01T00:00:00Z\ntests:\n- &t {name: a, endpoint: b, want: [{<<: *t}]}",
	} {
		f.Add([]byte(s))
	}
	read := func(p string) ([]byte, error) {
		if strings.HasSuffix(p, "edge.ndjson") {
			return []byte(`{"id":"e"}`), nil
		}
		return nil, errors.New("no such file")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := parseTestFile("f.test.yaml", data, read)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.test.yaml:") {
				t.Fatalf("error without its place: %v", err)
			}
			return
		}
		if tf.now.IsZero() || len(tf.tests) == 0 {
			t.Fatal("a file without now or tests parsed")
		}
		for _, tc := range tf.tests {
			if tc.name == "" || tc.endpoint.value == "" || (tc.want == nil) == (tc.wantErr == nil) {
				t.Fatalf("an incomplete test parsed: %+v", tc)
			}
			for _, s := range tc.sources {
				if len(s.inlineAt) > 0 && s.inline == nil {
					t.Fatal("events lost")
				}
			}
		}
	})
}

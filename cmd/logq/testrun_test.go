package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository's own test files: the three built-in endpoints, and
// sandboxed ones, with rows worked out by hand (see the comments in them).
func TestBuiltinEndpointTestFiles(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"test", "testdata/endpoints.test.yaml", "testdata/sandbox.test.yaml"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Empty(t, errb.String())
	require.Regexp(t, `(?m)^ok\ttestdata/endpoints.test.yaml\t22 tests\t`, out.String())
	require.Regexp(t, `(?m)^ok\ttestdata/sandbox.test.yaml\t7 tests\t`, out.String())
}

// writeTestFiles writes files (name → content) into a new directory and
// returns it.
func writeTestFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func runTestCmd(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	for i, a := range args {
		if strings.HasSuffix(a, ".yaml") {
			args[i] = filepath.Join(dir, a)
		}
	}
	code := run(append([]string{"test"}, args...), &out, &errb)
	// Paths in the report are the ones given; the cases name them relative.
	return code, strings.ReplaceAll(out.String(), dir+string(filepath.Separator), ""),
		strings.ReplaceAll(errb.String(), dir+string(filepath.Separator), "")
}

// Three edge requests of project abc: two at 11:05 (rest, and
// storage+rest), one at 11:30 (auth). With now at 12:00, usage.api-counts
// hourly gives one row, 11:00: rest 2, storage 1, auth 1, realtime 0;
// minutely gives 11:05 (rest 2, storage 1) and 11:30 (auth 1).
const edgeEvents = `    events:
      cloudflare.logs.prod:
        - {id: r1, timestamp: "2026-01-01T11:05:00Z", project: abc, event_message: a, metadata: {request: {url: "https://abc.x/rest/v1/a", path: /rest/v1/a}}}
        - {id: r2, timestamp: "2026-01-01T11:05:00Z", project: abc, event_message: b, metadata: {request: {url: "https://abc.x/storage/v1/rest", path: /storage/v1/rest}}}
        - {id: r3, timestamp: "2026-01-01T11:30:00Z", project: abc, event_message: c, metadata: {request: {url: "https://abc.x/auth/v1/user", path: /auth/v1/user}}}
`

// pathsEndpoint counts requests by path, without ORDER BY: its rows
// compare as a multiset.
const pathsEndpoint = `id: 11111111-2222-4333-8444-555555555555
name: paths
params:
  project: {required: true}
query: |
  select req.path, count(*) as n
  from ` + "`cloudflare.logs.prod`" + ` as t
    cross join unnest(t.metadata) as m
    cross join unnest(m.request) as req
  where t.project = @project
  group by req.path
`

// A failing test exits 1 and shows its difference row by row. Every
// expected line is written from the events above, not copied from a run.
func TestTestFailuresShowTheDifference(t *testing.T) {
	const head = "now: 2026-01-01T12:00:00Z\nendpoints: [paths.yaml]\ntests:\n  - name: t\n"
	for _, c := range []struct {
		name string
		test string // the test's lines after its name
		want []string
	}{
		{"a changed column", `    endpoint: usage.api-counts
    params: {project: abc, interval: hourly}
` + edgeEvents + `    want:
      - {timestamp: "2026-01-01T11:00:00", total_rest_requests: 1, total_storage_requests: 1, total_auth_requests: 1, total_realtime_requests: 0}
`, []string{
			"--- FAIL: t.test.yaml:4:5: t (usage.api-counts)",
			"    want 1 row, got 1; compared in order (ORDER BY timestamp)",
			`    ~ want row 1, got row 1: {"timestamp":"2026-01-01T11:00:00","total_rest_requests":1,"total_storage_requests":1,"total_auth_requests":1,"total_realtime_requests":0}`,
			"        total_rest_requests: want 1, got 2",
			"FAIL\tt.test.yaml\t1 test, 1 failed\t",
		}},
		{"a missing and an unexpected row, in order", `    endpoint: usage.api-counts
    params: {project: abc, interval: minutely}
` + edgeEvents + `    want:
      - {timestamp: "2026-01-01T11:05:00", total_rest_requests: 2, total_storage_requests: 1, total_auth_requests: 0, total_realtime_requests: 0}
      - {timestamp: "2026-01-01T11:20:00", total_rest_requests: 9, total_storage_requests: 9, total_auth_requests: 9, total_realtime_requests: 9}
`, []string{
			"    want 2 rows, got 2; compared in order (ORDER BY timestamp)",
			`    - want row 2, missing: {"timestamp":"2026-01-01T11:20:00","total_rest_requests":9,"total_storage_requests":9,"total_auth_requests":9,"total_realtime_requests":9}`,
			`    + got row 2, unexpected: {"timestamp":"2026-01-01T11:30:00","total_rest_requests":0,"total_storage_requests":0,"total_auth_requests":1,"total_realtime_requests":0}`,
		}},
		{"rows in another order", `    endpoint: logs.all
    params: {project: abc, iso_timestamp_start: "2026-01-01T11:06:00Z"}
    events:
      cloudflare.logs.prod:
        - {id: x1, timestamp: "2026-01-01T11:10:00Z", project: abc, event_message: one}
        - {id: x2, timestamp: "2026-01-01T11:20:00Z", project: abc, event_message: two}
    want:
      - {id: x1, timestamp: 1767265800000000, event_message: one, metadata: null}
      - {id: x2, timestamp: 1767266400000000, event_message: two, metadata: null}
`, []string{
			"    want 2 rows, got 2; compared in order (ORDER BY timestamp DESC)",
			"    every wanted row is there, in another order:",
			`    ~ want row 1 is got row 2: {"id":"x1","timestamp":1767265800000000,"event_message":"one","metadata":null}`,
		}},
		{"a timestamp shown as its time", `    endpoint: logs.all
    params: {project: abc}
    events:
      cloudflare.logs.prod:
        - {id: x1, timestamp: "2026-01-01T11:10:00Z", project: abc, event_message: one}
    want:
      - {id: x1, timestamp: 1767265200000000, event_message: one, metadata: null}
`, []string{
			"        timestamp: want 1767265200000000 (2026-01-01T11:00:00Z), got 1767265800000000 (2026-01-01T11:10:00Z)",
		}},
		{"a column the test does not list", `    endpoint: logs.all
    params: {project: abc}
    events:
      cloudflare.logs.prod:
        - {id: x1, timestamp: "2026-01-01T11:10:00Z", project: abc, event_message: one}
    want:
      - {id: x1, timestamp: 1767265800000000, event_message: one}
`, []string{
			"        metadata: not in want, got null",
		}},
		{"a multiset pairs the closest rows", `    endpoint: paths
    params: {project: abc}
` + edgeEvents + `    want:
      - {path: /auth/v1/user, n: 1}
      - {path: /rest/v1/a, n: 3}
      - {path: /nowhere, n: 1}
`, []string{
			"    want 3 rows, got 3; compared as a multiset (the query has no ORDER BY at its top level)",
			// /rest/v1/a pairs with its path's row (1 of 2 columns equal);
			// /nowhere shares only n=1 with /storage/v1/rest: also half.
			`~ want row 2, got row `, `        n: want 3, got 1`,
			`~ want row 3, got row `, `        path: want "/nowhere", got "/storage/v1/rest"`,
		}},
		{"rows where an error is wanted", `    endpoint: paths
    params: {project: abc}
` + edgeEvents + `    want_error: {status: 400}
`, []string{"    want error 400, got 200 with 3 rows"}},
		{"an error where rows are wanted", `    endpoint: usage.api-counts
    params: {project: abc, interval: yearly}
    want: []
`, []string{`    want 0 rows, got error 400: parameter interval must be one of hourly, daily, minutely; got "yearly"`}},
		{"another status", `    endpoint: logs.all
    params: {}
    want_error: {status: 404}
`, []string{"    want error 404, got 400: parameter project is required"}},
		{"another message", `    endpoint: logs.all
    params: {}
    want_error: {status: 400, message: "^project"}
`, []string{`    want an error message matching "^project", got "parameter project is required"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTestFiles(t, map[string]string{"t.test.yaml": head + c.test, "paths.yaml": pathsEndpoint})
			code, out, errb := runTestCmd(t, dir, "t.test.yaml")
			require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errb)
			require.Empty(t, errb)
			for _, w := range c.want {
				require.Contains(t, out, w)
			}
		})
	}
}

// The exit status is the worst of the files': a failure is 1, a file that
// cannot run is 2; --run picks tests by name.
func TestTestExitStatus(t *testing.T) {
	pass := "now: 2026-01-01T12:00:00Z\ntests:\n  - name: empty\n    endpoint: logs.all\n    params: {project: abc}\n    want: []\n"
	fail := "now: 2026-01-01T12:00:00Z\ntests:\n  - name: passes\n    endpoint: logs.all\n    params: {project: abc}\n    want: []\n" +
		"  - name: fails\n    endpoint: logs.all\n    params: {project: abc}\n    want: [{id: nothing}]\n"
	dir := writeTestFiles(t, map[string]string{"pass.test.yaml": pass, "fail.test.yaml": fail, "bad.test.yaml": "tests: [\n"})
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"pass.test.yaml"}, 0},
		{[]string{"pass.test.yaml", "fail.test.yaml"}, 1},
		{[]string{"fail.test.yaml", "bad.test.yaml", "pass.test.yaml"}, 2},
		{[]string{"fail.test.yaml", "--run", "^pass"}, 0},
		{[]string{"--run", "fails", "fail.test.yaml"}, 1},
		{[]string{"--run", "(", "pass.test.yaml"}, 2},
		{nil, 2},
	} {
		code, out, errb := runTestCmd(t, dir, append([]string(nil), c.args...)...)
		require.Equal(t, c.code, code, "%v\nstdout:\n%s\nstderr:\n%s", c.args, out, errb)
	}
	// The passing file still reports when another fails to parse.
	_, out, _ := runTestCmd(t, dir, "bad.test.yaml", "pass.test.yaml")
	require.Contains(t, out, "ok\tpass.test.yaml\t1 test\t")
}

// A file that cannot be read, is malformed, names what does not exist or
// whose events ingest refuses exits 2, saying where.
func TestTestFileErrors(t *testing.T) {
	const now = "now: 2026-01-01T12:00:00Z\n"
	const t1 = "tests:\n  - name: t\n    endpoint: logs.all\n    params: {project: abc}\n"
	deep := strings.Repeat("{a: ", 70) + "x" + strings.Repeat("}", 70)
	for _, c := range []struct {
		name  string
		file  string // t.test.yaml
		extra map[string]string
		want  string // in stderr
	}{
		{"no such file", "", nil, "logq test: open "},
		// yaml.v3 knows the line only.
		{"YAML syntax", now + "tests:\n  - name: t: x\n", nil, "t.test.yaml:3: mapping values are not allowed in this context"},
		{"an empty file", "", map[string]string{"t.test.yaml": "# nothing\n"}, "t.test.yaml:1:1: the file is empty"},
		{"two documents", now + t1 + "    want: []\n---\nnow: x\n", nil, "t.test.yaml:7:1: a test file is one YAML document"},
		{"an unknown top-level key", now + "nwo: 1\n" + t1 + "    want: []\n", nil, `t.test.yaml:2:1: unknown key "nwo" in a test file`},
		{"an unknown test key", now + t1 + "    wnat: []\n", nil, `t.test.yaml:6:5: unknown key "wnat" in a test`},
		{"no now", t1 + "    want: []\n", nil, "t.test.yaml:1:1: now is required"},
		{"a now that is no time", "now: noon\n" + t1 + "    want: []\n", nil, `t.test.yaml:1:6: now must be an RFC 3339 time`},
		{"no tests", now + "tests: []\n", nil, "t.test.yaml:2:8: tests must be a list of one test or more"},
		{"no want", now + t1, nil, `t.test.yaml:3:5: test "t" needs want`},
		{"want and want_error", now + t1 + "    want: []\n    want_error: {status: 400}\n", nil, `t.test.yaml:3:5: test "t" gives both want and want_error`},
		{"no name", now + "tests:\n  - endpoint: logs.all\n    want: []\n", nil, "t.test.yaml:3:5: a test needs a name"},
		{"a name used twice", now + t1 + "    want: []\n" + "  - name: t\n    endpoint: logs.all\n    want: []\n", nil,
			`t.test.yaml:7:5: test name "t" is also used at t.test.yaml:3:5`},
		{"an unknown endpoint", now + "tests:\n  - name: t\n    endpoint: logs.al\n    want: []\n", nil,
			`t.test.yaml:4:15: test "t": no endpoint "logs.al" (there are: `},
		{"a parameter that is no value", now + "tests:\n  - name: t\n    endpoint: logs.all\n    params: {project: [a]}\n    want: []\n", nil,
			"t.test.yaml:5:23: parameter project must be a value"},
		{"an event that is no object", now + t1 + "    events:\n      cloudflare.logs.prod: [hello]\n    want: []\n", nil,
			"t.test.yaml:7:30: an event must be an object"},
		{"a key repeated in an event", now + t1 + "    events:\n      cloudflare.logs.prod: [{id: a, id: b}]\n    want: []\n", nil,
			`t.test.yaml:7:38: key "id" is repeated`},
		{"an event ingest refuses", now + t1 + "    events:\n      cloudflare.logs.prod:\n        - {id: ok}\n        - " + deep + "\n    want: []\n", nil,
			`t.test.yaml:9:11: test "t": ingest refused this event of cloudflare.logs.prod: invalid JSON: nested deeper than 64`},
		{"an events file that does not exist", now + t1 + "    events_files: {cloudflare.logs.prod: gone.ndjson}\n    want: []\n", nil,
			"t.test.yaml:6:42: events file: open "},
		{"a line of an events file ingest refuses", now + t1 + "    events_files: {cloudflare.logs.prod: e.ndjson}\n    want: []\n",
			map[string]string{"e.ndjson": "{\"id\": \"a\"}\n\n{\"id\": oops}\n"},
			`e.ndjson:3: test "t": ingest refused this event of cloudflare.logs.prod: invalid JSON at byte 8`},
		{"NaN in a row", now + t1 + "    want: [{n: .nan}]\n", nil, "t.test.yaml:6:16: JSON has no .nan"},
		{"a status that is no error", now + t1 + "    want_error: {status: 200}\n", nil, "t.test.yaml:6:26: status must be an HTTP error status"},
		{"a message that is no regular expression", now + t1 + "    want_error: {status: 400, message: \"(\"}\n", nil,
			"t.test.yaml:6:40: message is a regular expression: error parsing regexp"},
		{"sql twice", now + "sandbox_logs_all: true\ntests:\n  - name: t\n    endpoint: logs.all\n    params: {project: abc, sql: select 1}\n    sql: select 2\n    want: []\n", nil,
			`t.test.yaml:7:10: test "t" gives sql both beside and in params`},
		{"an endpoints directory that does not exist", now + "endpoints: [nowhere]\n" + t1 + "    want: []\n", nil,
			"no such file or directory (in the endpoints of t.test.yaml:2:13)"},
		{"an endpoint file that does not parse", now + "endpoints: [eps]\n" + t1 + "    want: []\n",
			map[string]string{"eps/bad.yaml": "id: 11111111-2222-4333-8444-555555555555\nname: bad\nquery: |\n  select from\n"},
			"eps/bad.yaml:4:10: "},
		{"two endpoint files with one name", now + "endpoints: [a.yaml, b.yaml]\n" + t1 + "    want: []\n",
			map[string]string{"a.yaml": pathsEndpoint, "b.yaml": strings.Replace(pathsEndpoint, "11111111", "21111111", 1)},
			"b.yaml: endpoint name or id paths is also used by "},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			if c.file != "" {
				files["t.test.yaml"] = c.file
			}
			for k, v := range c.extra {
				files[k] = v
			}
			dir := writeTestFiles(t, files)
			code, out, errb := runTestCmd(t, dir, "t.test.yaml")
			require.Equal(t, 2, code, "stdout:\n%s\nstderr:\n%s", out, errb)
			require.Contains(t, errb, c.want)
		})
	}
}

// hundredTests writes a file of 100 small tests, a third of them on each
// built-in endpoint, each over 1 to 5 events of its own whose rows follow
// from how they are made: k requests to /rest/v1/x at 11:10 are one hourly
// row with k rest requests; k records of 100 ms with status 200 in the
// minute 11:10 are one row of count k; k edge records at 11:0j are k rows
// of logs.all, newest first.
func hundredTests(tb testing.TB) string {
	var b strings.Builder
	b.WriteString("now: 2026-01-01T12:00:00Z\ntests:\n")
	for i := range 100 {
		k := i%5 + 1
		fmt.Fprintf(&b, "  - name: test %d\n", i)
		switch i % 3 {
		case 0:
			b.WriteString("    endpoint: usage.api-counts\n    params: {project: abc, interval: hourly}\n    events:\n      cloudflare.logs.prod:\n")
			for j := range k {
				fmt.Fprintf(&b, "        - {timestamp: \"2026-01-01T11:10:0%dZ\", metadata: {request: {url: \"https://abc.x/rest/v1/x\", path: /rest/v1/x}}}\n", j)
			}
			fmt.Fprintf(&b, "    want: [{timestamp: \"2026-01-01T11:00:00\", total_rest_requests: %d, total_storage_requests: 0, total_auth_requests: 0, total_realtime_requests: 0}]\n", k)
		case 1:
			b.WriteString("    endpoint: functions.invocation-stats\n    params: {project: abc, interval: 1hr}\n    events:\n      deno-relay-logs:\n")
			for j := range k {
				fmt.Fprintf(&b, "        - {timestamp: \"2026-01-01T11:10:0%dZ\", metadata: {project_ref: abc, execution_time_ms: 100, response: {status_code: 200}}}\n", j)
			}
			fmt.Fprintf(&b, "    want: [{timestamp: 1767265800000000, min_execution_time: 100, max_execution_time: 100, avg_execution_time: 100, p95_execution_time: 100, p99_execution_time: 100, count: %d, error_count: 0}]\n", k)
		case 2:
			b.WriteString("    endpoint: logs.all\n    params: {project: abc}\n    events:\n      cloudflare.logs.prod:\n")
			for j := range k {
				fmt.Fprintf(&b, "        - {id: e%d, timestamp: \"2026-01-01T11:0%d:00Z\", event_message: m%d, project: abc, metadata: {request: {path: /x}}}\n", j, j, j)
			}
			b.WriteString("    want:\n")
			for j := k - 1; j >= 0; j-- {
				// 11:00 is 1767265200 s; each event a minute later.
				fmt.Fprintf(&b, "      - {id: e%d, timestamp: %d000000, event_message: m%d, metadata: [{request: [{path: /x}]}]}\n", j, 1767265200+60*j, j)
			}
		}
	}
	p := filepath.Join(tb.TempDir(), "hundred.test.yaml")
	require.NoError(tb, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// A file of 100 small tests, the whole command but the process start:
// parse, built-in endpoints, 100 servers, ingests and queries.
func BenchmarkTestFile100(b *testing.B) {
	p := hundredTests(b)
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		if code := run([]string{"test", p}, &out, &out); code != 0 {
			b.Fatalf("exit %d:\n%s", code, out.String())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/100, "µs/test")
}

// The worked example of docs/testing.md passes as written there: each
// fenced block after an "<!-- example: NAME -->" line is a file.
func TestDocsTestingExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/testing.md")
	require.NoError(t, err)
	files := map[string]string{}
	lines := strings.Split(string(doc), "\n")
	for i := 0; i < len(lines); i++ {
		name, ok := strings.CutPrefix(lines[i], "<!-- example: ")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, " -->")
		require.True(t, strings.HasPrefix(lines[i+1], "```"), "a fenced block follows %s", name)
		var body []string
		for i += 2; lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		files[name] = strings.Join(body, "\n") + "\n"
	}
	require.Contains(t, files, "api.test.yaml")
	require.Contains(t, files, "edge.ndjson")
	dir := writeTestFiles(t, files)
	code, out, errb := runTestCmd(t, dir, "-v", "api.test.yaml")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, errb)
	require.Contains(t, out, "ok\tapi.test.yaml\t3 tests\t")
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/api"
	"logq/fixtures"
	"logq/logstore"
)

func TestPrintTable(t *testing.T) {
	ts := time.Date(2026, 3, 14, 15, 9, 26, 535897_000, time.UTC)
	body := fmt.Sprintf(`{"result":[{"timestamp":%d,"n":1234567890123456,"event_message":"hi"}]}`, ts.UnixMicro())
	var out bytes.Buffer
	require.Equal(t, 0, printTable(&out, []byte(body), false))
	require.Contains(t, out.String(), "2026-03-14T15:09:26.535897Z")
	require.Contains(t, out.String(), "1234567890123456", "a column not named as a time stays a number")
	require.True(t, strings.HasSuffix(out.String(), "(1 row)\n"), out.String())
	out.Reset()
	require.Equal(t, 0, printTable(&out, []byte(body), true))
	require.Contains(t, out.String(), fmt.Sprint(ts.UnixMicro()))
	out.Reset()
	require.Equal(t, 0, printTable(&out, []byte(`{"result":[]}`), false))
	require.Equal(t, "(0 rows)\n", out.String())
}

func TestErrorMessage(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"parameter project_tier is required","errors":[{"reason":"missingParameter","location":"project_tier","message":"…"}]}}`,
			"parameter project_tier is required"},
		{400, `{"error":{"code":400,"message":"expected an expression","errors":[{"location":"1:8"}]}}`, "expected an expression (1:8)"},
		{502, "bad gateway\n", "HTTP 502: bad gateway"},
	} {
		require.Equal(t, c.want, errorMessage(c.status, []byte(c.body)))
	}
}

func TestQueryErrorIsItsMessage(t *testing.T) {
	f := filepath.Join(t.TempDir(), "e.ndjson")
	require.NoError(t, os.WriteFile(f, []byte(`{"event_message":"x"}`+"\n"), 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"query", "logs.all", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 1, code)
	require.Equal(t, "logq query: parameter project is required\n", errb.String())
}

func TestHealthURL(t *testing.T) {
	for _, c := range []struct{ addr, env, want string }{
		{"", "", "http://127.0.0.1:4000"},
		{"", ":9000", "http://127.0.0.1:9000"},
		{"10.0.0.2:4001", ":9000", "http://10.0.0.2:4001"},
		{"0.0.0.0:4002", "", "http://127.0.0.1:4002"},
		{"[::]:4003", "", "http://127.0.0.1:4003"},
	} {
		require.Equal(t, c.want, healthURL(c.addr, env(map[string]string{"LOGQ_ADDR": c.env})), c)
	}
}

func TestVersionLine(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out bytes.Buffer
		require.Equal(t, 0, run(args, &out, io.Discard))
		require.Regexp(t, `^logq \S+ \(revision \S+, (built|committed) \S+, go1\.\d+`, out.String())
	}
	var out bytes.Buffer
	require.Equal(t, 0, run([]string{"version", "--help"}, &out, io.Discard))
	require.Contains(t, out.String(), "usage:\n  logq version\n")
}

// Every --help exits 0 and lists every flag of its command.
func TestHelpListsEveryFlag(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"serve": {"addr", "api-key", "endpoints", "demo", "demo-events", "retention", "drain-delay", "log-level", "log-format",
			"data-dir", "in-memory", "memory-limit", "max-disk", "max-fields", "segment-rows", "query-memory", "query-timeout", "sandbox-logs-all", "drain-deny-private"},
		"query":       {"json", "url", "api-key", "endpoints", "explain", "file", "raw", "sql"},
		"tail":        {"url", "api-key", "lql", "from", "json"},
		"drains":      {"json", "url", "api-key"},
		"healthcheck": {"url", "addr"},
		"generate":    {"source", "events", "out"},
		"test":        {"run", "v"},
		"endpoints":   {"json", "url", "api-key", "endpoints", "file"},
		"sources":     {"json", "url", "api-key", "endpoints", "file"},
	} {
		var out, errb bytes.Buffer
		require.Equal(t, 0, run([]string{cmd, "--help"}, &out, &errb), cmd)
		for _, f := range flags {
			require.Regexp(t, `(?m)^\s+-`+f+`(\s|$)`, out.String()+errb.String(), "%s --help lists --%s", cmd, f)
		}
		require.Contains(t, errb.String(), "usage:\n  logq "+cmd, "%s --help starts with its arguments", cmd)
		// An "unset" sentinel must not show as a default (it once read
		// "(default 5s) (default -1ns)").
		require.NotRegexp(t, `\(default -|\(default .*\(default `, out.String()+errb.String(), cmd)
	}
}

func TestLogLevelAndFormat(t *testing.T) {
	for _, c := range []struct {
		flags   []string
		env     map[string]string
		debugOn bool
		json    bool
		bad     string
	}{
		{nil, nil, false, true, ""},
		{[]string{"--log-level", "debug", "--log-format", "text"}, nil, true, false, ""},
		{nil, map[string]string{"LOGQ_LOG_LEVEL": "DEBUG", "LOGQ_LOG_FORMAT": "json"}, true, true, ""},
		{[]string{"--log-level", "error"}, map[string]string{"LOGQ_LOG_LEVEL": "debug"}, false, true, ""},
		{[]string{"--log-level", "loud"}, nil, false, false, "invalid log level"},
		{nil, map[string]string{"LOGQ_LOG_FORMAT": "xml"}, false, false, "invalid log format"},
	} {
		cfg, err := parseServe(c.flags, env(c.env), io.Discard)
		if c.bad != "" {
			require.ErrorContains(t, err, c.bad)
			continue
		}
		require.NoError(t, err)
		var buf bytes.Buffer
		log, err := newLogger(cfg, env(c.env), &buf)
		require.NoError(t, err)
		log.Debug("dbg-line")
		log.Info("info-line", "k", "v")
		require.Equal(t, c.debugOn, strings.Contains(buf.String(), "dbg-line"), buf.String())
		if cfg.logLevel == "error" {
			require.Empty(t, buf.String(), "info is below error")
		} else if c.json {
			require.Contains(t, buf.String(), `"k":"v"`)
		} else if buf.Len() > 0 {
			require.Contains(t, buf.String(), "k=v")
		}
	}
}

// The README's example: generate edge.ndjson, then query it in-process.
func TestGenerateThenQuery(t *testing.T) {
	f := filepath.Join(t.TempDir(), "edge.ndjson")
	require.Equal(t, 0, run([]string{"generate", "--source", "cloudflare.logs.prod", "--events", "500", "--out", f}, io.Discard, io.Discard))
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	require.Equal(t, 500, strings.Count(string(b), "\n"))
	var out, errb bytes.Buffer
	code := run([]string{"query", "--json", "usage.api-counts", "project=proj00ref", "interval=daily", "--file", "cloudflare.logs.prod=" + f}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.True(t, strings.HasPrefix(out.String(), `{"result":[{`), out.String())
	require.Equal(t, 2, run([]string{"generate", "--source", "nope"}, io.Discard, io.Discard))
}

// generate streams in batches (10M edge events are 22 GB) the very events
// fixtures.Generate returns, in order. The end of their 7 days is "now", so
// messages are compared, not whole lines.
func TestGenerateStreamsTheSameEvents(t *testing.T) {
	const n = 25_000 // more than two batches
	f := filepath.Join(t.TempDir(), "relay.ndjson")
	require.Equal(t, 0, run([]string{"generate", "--source", "deno-relay-logs", "--events", strconv.Itoa(n), "--out", f}, io.Discard, io.Discard))
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	want := fixtures.Generate(fixtures.DefaultSpec(n, time.Now()), "deno-relay-logs")
	require.Len(t, lines, len(want))
	message := func(ev []byte) string {
		var v struct {
			Message string `json:"event_message"`
		}
		require.NoError(t, json.Unmarshal(ev, &v))
		require.NotEmpty(t, v.Message)
		return v.Message
	}
	for i := range want {
		require.Equal(t, message(want[i]), message([]byte(lines[i])), "event %d", i)
	}
}

func TestEndpointsAndSourcesCommands(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"endpoints"}, &out, &errb), errb.String())
	require.Regexp(t, `(?m)^usage\.api-counts\s+7a6b2f0e-3c1d-4b8a-9e57-2d4c6f8a1b03\s+900s, warm 300s\s+interval\*=hourly\|daily\|minutely project\*$`, out.String())

	f := filepath.Join(t.TempDir(), "edge.ndjson")
	require.NoError(t, os.WriteFile(f, []byte(`{"event_message":"a","timestamp":"2026-03-01T10:00:00Z"}`+"\n"+`{"event_message":"b","timestamp":"2026-03-02T10:00:00Z"}`+"\n"), 0o644))
	out.Reset()
	require.Equal(t, 0, run([]string{"sources", "--file", "edge=" + f}, &out, &errb), errb.String())
	require.Regexp(t, `(?m)^edge\s+\d+\s+\S{36}\s+2\s+\d+\s+2026-03-01T10:00:00Z\s+2026-03-02T10:00:00Z$`, out.String())
	require.Contains(t, out.String(), "(1 source)")

	// Against a server: the same listing, and a bad key is its message.
	store := logstore.New(logstore.Options{})
	store.Append("srv.src", [][]byte{[]byte(`{"event_message":"x","timestamp":"2026-03-03T00:00:00Z"}`)})
	eps, err := loadEndpoints("", false)
	require.NoError(t, err)
	srv := api.New(api.Config{Keys: api.Keys("k"), Endpoints: eps, Backend: api.Local(store), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.SetReady(true)
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	out.Reset()
	require.Equal(t, 0, run([]string{"sources", "--url", hs.URL, "--api-key", "k", "--json"}, &out, &errb), errb.String())
	require.Contains(t, out.String(), `"name":"srv.src"`)
	out.Reset()
	require.Equal(t, 0, run([]string{"endpoints", "--url", hs.URL, "--api-key", "k"}, &out, &errb), errb.String())
	require.Contains(t, out.String(), "logs.all")
	errb.Reset()
	require.Equal(t, 1, run([]string{"endpoints", "--url", hs.URL, "--api-key", "wrong"}, &out, &errb))
	require.True(t, strings.HasPrefix(errb.String(), "logq endpoints: a valid API key is required"), errb.String())
}

// logq query --sql runs a SELECT in-process or against a server; logq tail
// prints a source's events as they arrive; logq drains lists the drains.
func TestQuerySQLTailAndDrainsCommands(t *testing.T) {
	f := filepath.Join(t.TempDir(), "edge.ndjson")
	require.NoError(t, os.WriteFile(f, []byte(`{"event_message":"a","n":2}`+"\n"+`{"event_message":"b","n":5}`+"\n"), 0o644))
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"query", "--sql", "select sum(n) as s, @m as m from edge", "m=x", "--file", "edge=" + f, "--json"}, &out, &errb), errb.String())
	require.JSONEq(t, `{"result":[{"s":7,"m":"x"}]}`, out.String())
	errb.Reset()
	require.Equal(t, 1, run([]string{"query", "--sql", "select (", "--file", "edge=" + f}, &out, &errb))
	require.Contains(t, errb.String(), "1:9")

	c := startChild(t, "--in-memory")
	defer c.kill()
	out.Reset()
	require.Equal(t, 0, run([]string{"query", "--sql", "select 1 as one", "--url", c.base, "--api-key", "k"}, &out, &errb), errb.String())
	require.Contains(t, out.String(), "one")

	var tailOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"tail", "src", "--url", c.base, "--api-key", "k", "--lql", "wanted"}, &tailOut, io.Discard)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(tailOut.String(), "wanted event") {
		require.True(t, time.Now().Before(deadline), "tail printed: %q", tailOut.String())
		code, err := post(&http.Client{Timeout: 5 * time.Second}, c.base, "src", `[{"event_message":"wanted event"},{"event_message":"other"}]`)
		require.NoError(t, err)
		require.Equal(t, 200, code)
		time.Sleep(50 * time.Millisecond)
	}
	require.NotContains(t, tailOut.String(), "other", "the LQL filter")
	c.kill()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("tail did not end with the server")
	}

	c = startChild(t, "--in-memory")
	defer c.kill()
	out.Reset()
	require.Equal(t, 0, run([]string{"drains", "--url", c.base, "--api-key", "k"}, &out, &errb), errb.String())
	require.Contains(t, out.String(), "(0 drains)")
	require.Equal(t, 2, run([]string{"drains"}, &out, &errb), "drains run in a server")
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

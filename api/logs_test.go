package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/fixtures"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(t *testing.T) []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		out = append(out, m)
	}
	return out
}

func TestLogLines(t *testing.T) {
	var buf lockedBuffer
	h := newHarness(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&buf, nil)) })
	h.store.Append("cloudflare.logs.prod", fixtures.Generate(fixtures.DefaultSpec(300, testNow), "cloudflare.logs.prod"))
	q := "/api/endpoints/query/logs.all?project=" + fixtures.ProjectRef(0) + "&project_tier=ENTERPRISE"
	want := len(rows(t, h.get(q)))
	require.Positive(t, want)
	// A cached endpoint's hit logs the rows of the stored body too.
	cached := "/api/endpoints/query/usage.api-counts?interval=daily&project=" + fixtures.ProjectRef(0)
	wantCached := len(rows(t, h.get(cached)))
	require.Positive(t, wantCached)
	h.get(cached)
	h.ingest("log.src", []byte(`[{"event_message":"ok"}, 7, "x"]`), nil)

	var query, ingest map[string]any
	var counts []map[string]any
	for _, l := range buf.lines(t) {
		switch l["msg"] {
		case "request":
			if l["endpoint"] == "logs.all" {
				query = l
			}
			if l["endpoint"] == "usage.api-counts" {
				counts = append(counts, l)
			}
		case "ingest":
			ingest = l
		}
	}
	require.NotNil(t, query)
	require.Equal(t, float64(200), query["status"])
	require.Equal(t, "bypass", query["cache"])
	require.Equal(t, float64(want), query["rows"])
	require.Contains(t, query, "duration_ms")
	require.Len(t, counts, 2)
	for i, c := range []string{"miss", "hit"} {
		require.Equal(t, c, counts[i]["cache"])
		require.Equal(t, float64(wantCached), counts[i]["rows"])
	}
	require.NotNil(t, ingest)
	require.Equal(t, "log.src", ingest["source"])
	require.Equal(t, float64(1), ingest["accepted"])
	require.Equal(t, float64(2), ingest["refused"])
	require.Equal(t, "event 1: an event must be a JSON object", ingest["first_refusal"])
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, ingest["client"])
}

// A refused request's line says why and for whom, through the compressing
// writer as well.
func TestLogLinesOfFailures(t *testing.T) {
	var buf lockedBuffer
	h := newHarness(t, func(c *Config) { c.Logger = slog.New(slog.NewJSONHandler(&buf, nil)) })
	h.ingest("bad.src", []byte(`not json`), nil)
	h.do("GET", "/api/endpoints/query/logs.all?project_tier=FREE", nil, map[string]string{"X-API-KEY": testKey, "Accept-Encoding": "gzip"})
	var lines []map[string]any
	for _, l := range buf.lines(t) {
		if l["msg"] == "request" {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2)
	require.Equal(t, float64(400), lines[0]["status"])
	require.Contains(t, lines[0]["error"], "the body must be JSON")
	require.Equal(t, "bad.src", lines[0]["source"])
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, lines[0]["client"])
	require.Equal(t, float64(400), lines[1]["status"])
	require.Contains(t, lines[1]["error"], "project")
	require.Equal(t, "logs.all", lines[1]["endpoint"])
}

package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/logstore"
)

// An event older than the retention is refused in the 406 that lists
// refused events, counted in /metrics and never stored; the others of the
// request are stored. (testNow is 2026-03-14T15:09:26Z; 90 days before it
// is 2025-12-14T15:09:26Z.)
func TestEventsOlderThanTheRetentionAreRefused(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Backend = Local(logstore.New(logstore.Options{Retention: 90 * 24 * time.Hour, Now: c.Clock.Now}))
	})
	body := `[{"event_message":"replayed","timestamp":"2025-06-01T00:00:00Z"},
		{"event_message":"recent","timestamp":"2026-03-14T15:00:00Z"},
		{"event_message":"no timestamp"},
		{"event_message":"a day too old","timestamp":"2025-12-13T15:09:26Z"}]`
	r := h.ingest("old.src", []byte(body), nil)
	require.Equal(t, http.StatusNotAcceptable, r.code, string(r.body))
	var refused struct{ Message []string }
	require.NoError(t, json.Unmarshal(r.body, &refused))
	require.Equal(t, []string{
		"event 0: the event's timestamp 2025-06-01T00:00:00Z is older than the retention of 90d",
		"event 3: the event's timestamp 2025-12-13T15:09:26Z is older than the retention of 90d",
	}, refused.Message)

	got := rows(t, h.get("/api/query?"+url.Values{"sql": {
		"select event_message from `old.src` order by event_message"}}.Encode()))
	require.Equal(t, [][]kv{{{"event_message", "no timestamp"}}, {{"event_message", "recent"}}}, got)

	_, m := series(t, h)
	require.Contains(t, m, `logq_events_too_old_total{source="old.src"} 2`)
	require.Contains(t, m, `logq_events_rejected_total{source="old.src"} 2`)
	require.Contains(t, m, `logq_events_ingested_total{source="old.src"} 2`)

	// The same request over NDJSON: one refusal path for every form.
	nd := strings.Join([]string{`{"event_message":"old","timestamp":"2020-01-01T00:00:00Z"}`, `{"event_message":"new"}`}, "\n")
	r = h.ingest("old.src", []byte(nd), map[string]string{"Content-Type": "application/x-ndjson"})
	require.Equal(t, http.StatusNotAcceptable, r.code, string(r.body))
	require.Contains(t, string(r.body), "event 0: the event's timestamp 2020-01-01T00:00:00Z is older than the retention of 90d")
}

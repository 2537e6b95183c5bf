package api

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestListEndpointsAndSources(t *testing.T) {
	h := newHarness(t, nil)
	requireError(t, h.do(http.MethodGet, "/api/endpoints", nil, nil), 401, "UNAUTHENTICATED", "")
	requireError(t, h.do(http.MethodGet, "/api/sources", nil, nil), 401, "UNAUTHENTICATED", "")

	var eps struct{ Result []endpointInfo }
	r := h.get("/api/endpoints")
	require.Equal(t, 200, r.code, string(r.body))
	require.NoError(t, json.Unmarshal(r.body, &eps))
	var names []string
	for _, e := range eps.Result {
		names = append(names, e.Name)
	}
	require.Equal(t, []string{"functions.invocation-stats", "logs.all", "usage.api-counts"}, names)
	counts := eps.Result[2]
	require.Equal(t, "usage.api-counts", counts.Name)
	var interval *paramInfo
	for i, p := range counts.Params {
		if p.Name == "interval" {
			interval = &counts.Params[i]
		}
	}
	require.NotNil(t, interval)
	require.True(t, interval.Required)

	t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	t2 := time.Date(2026, 3, 2, 11, 30, 0, 500_000_000, time.UTC)
	h.ingest("b.src", []byte(`[{"event_message":"x","timestamp":"2026-03-02T11:30:00.5Z"},{"event_message":"y","timestamp":"2026-03-01T10:00:00Z"}]`), nil)
	h.ingest("a.src", []byte(`[]`), nil)
	// A bare array, as Logflare's (Studio checks Array.isArray), with
	// Logflare's fields and logq's counts.
	var srcs []map[string]any
	r = h.get("/api/sources")
	require.Equal(t, 200, r.code, string(r.body))
	require.NoError(t, json.Unmarshal(r.body, &srcs))
	require.Len(t, srcs, 2)
	require.Equal(t, "a.src", srcs[0]["name"])
	require.Nil(t, srcs[0]["first_event"])
	b := srcs[1]
	require.Equal(t, "b.src", b["name"])
	require.Equal(t, "01fd61e7-ce71-5f38-8f35-9a38f473d3f2", b["token"])
	require.Equal(t, float64(268778314320820), b["id"])
	require.Equal(t, float64(2), b["events"])
	require.Positive(t, b["bytes"])
	require.Equal(t, t1.Format(time.RFC3339Nano), b["first_event"])
	require.Equal(t, t2.Format(time.RFC3339Nano), b["last_event"])
	require.Equal(t, "2026-03-01T10:00:00", b["inserted_at"], "the oldest event")
	require.Equal(t, "2026-03-02T11:30:00", b["updated_at"], "the newest event")
	// One source by token, name or id; its schema.
	for _, key := range []string{"01fd61e7-ce71-5f38-8f35-9a38f473d3f2", "b.src", "268778314320820"} {
		r = h.get("/api/sources/" + key)
		require.Equal(t, 200, r.code, string(r.body))
		require.Contains(t, string(r.body), `"name":"b.src"`)
	}
	requireError(t, h.get("/api/sources/00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND", "token")
	var schema map[string]string
	r = h.get("/api/sources/b.src/schema")
	require.Equal(t, 200, r.code, string(r.body))
	require.NoError(t, json.Unmarshal(r.body, &schema))
	require.Equal(t, map[string]string{"timestamp": "TIMESTAMP", "id": "STRING", "event_message": "STRING"}, schema)
}

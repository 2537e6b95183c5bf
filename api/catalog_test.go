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
	var srcs struct{ Result []sourceInfo }
	r = h.get("/api/sources")
	require.Equal(t, 200, r.code, string(r.body))
	require.NoError(t, json.Unmarshal(r.body, &srcs))
	require.Len(t, srcs.Result, 2)
	require.Equal(t, "a.src", srcs.Result[0].Name)
	require.Nil(t, srcs.Result[0].FirstEvent)
	b := srcs.Result[1]
	require.Equal(t, "b.src", b.Name)
	require.Equal(t, SourceUUID("b.src"), b.ID)
	require.Equal(t, 2, b.Events)
	require.Positive(t, b.Bytes)
	require.Equal(t, t1.Format(time.RFC3339Nano), *b.FirstEvent)
	require.Equal(t, t2.Format(time.RFC3339Nano), *b.LastEvent)
}

package api

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// series counts the sample lines of a /metrics scrape.
func series(t *testing.T, h *harness) (int, string) {
	t.Helper()
	r := h.do(http.MethodGet, "/metrics", nil, nil)
	require.Equal(t, 200, r.code)
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(r.body))
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			n++
		}
	}
	return n, string(r.body)
}

// Thousands of random paths, endpoint names and sources, with and without a
// key, do not add a single series once every kind of request has been seen:
// no label value comes from raw input.
func TestMetricsCardinalityIsBounded(t *testing.T) {
	const maxSources = 8
	h := newHarness(t, func(c *Config) { c.MaxSourceLabels = maxSources })
	rnd := rand.New(rand.NewPCG(1, 2))
	word := func() string { return fmt.Sprintf("%x.%x", rnd.Uint64(), rnd.Uint32()) }
	path := func() string { return fmt.Sprintf("%x/%x", rnd.Uint64(), rnd.Uint32()) }
	noKey := map[string]string{}
	withKey := map[string]string{"X-API-KEY": testKey}
	kinds := []func(){
		func() { h.do(http.MethodGet, "/"+path(), nil, noKey) },                                            // 404
		func() { h.do(http.MethodGet, "/api/endpoints/query/"+url.PathEscape(word()), nil, noKey) },        // 401
		func() { h.do(http.MethodGet, "/api/endpoints/query/"+url.PathEscape(word()), nil, withKey) },      // 404
		func() { h.do(http.MethodGet, "/api/endpoints/query/name/"+url.PathEscape(word()), nil, withKey) }, // 404
		func() { h.ingest(word(), []byte(`{"event_message":"x"}`), nil) },                                  // 200
		func() {
			h.do(http.MethodPost, "/logs?source_name="+url.QueryEscape(word()), strings.NewReader("{}"), noKey)
		}, // 401
	}
	// Every kind once, and more sources than the cap, so "other" exists.
	for i := 0; i < maxSources+2; i++ {
		for _, k := range kinds {
			k()
		}
	}
	series(t, h) // the scrape itself is a series
	before, body0 := series(t, h)
	body := body0
	for _, want := range []string{
		`logq_events_ingested_total{source="other"} 2`,
		`logq_events_held{source="other"} 2`,
		`logq_requests_total{endpoint="other",route="/api/endpoints/query/{id}",status="401"}`,
		`logq_requests_total{endpoint="other",route="/api/endpoints/query/{id}",status="404"}`,
		`logq_requests_total{endpoint="other",route="/api/endpoints/query/name/{name}",status="404"}`,
		`logq_requests_total{endpoint="other",route="other",status="404"}`,
	} {
		require.Contains(t, body, want)
	}
	for i := 0; i < 3000; i++ {
		kinds[rnd.IntN(len(kinds))]()
	}
	after, body := series(t, h)
	// The Go collector's series are fixed; only counts change.
	require.Equal(t, before, after, "series count grew:\n%s\n----\n%s", body0, body)
	require.NotContains(t, body, "/nope")
	t.Logf("%d series after %d random requests", after, 3000+len(kinds)*(maxSources+2))
}

package api

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"logq/logstore"
)

// metrics keeps the counters /metrics exposes in Prometheus text format.
// Written by hand: a handful of counters and one histogram do not need a
// client library.
type metrics struct {
	mu       sync.Mutex
	latency  map[string]*histogram // by endpoint name (or route)
	cache    map[[2]string]int64   // {endpoint, hit|miss|refresh|refresh_failed}
	ingested map[string]int64      // events by source
	rejected map[string]int64
	requests map[[2]string]int64 // {route, status}
}

var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

type histogram struct {
	counts []int64
	sum    float64
	n      int64
}

func newMetrics() *metrics {
	return &metrics{latency: map[string]*histogram{}, cache: map[[2]string]int64{}, ingested: map[string]int64{},
		rejected: map[string]int64{}, requests: map[[2]string]int64{}}
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.latency[route]
	if h == nil {
		h = &histogram{counts: make([]int64, len(latencyBuckets))}
		m.latency[route] = h
	}
	s := d.Seconds()
	for i, b := range latencyBuckets {
		if s <= b {
			h.counts[i]++
		}
	}
	h.sum += s
	h.n++
	m.requests[[2]string{route, fmt.Sprint(status)}]++
}

func (m *metrics) cacheEvent(endpoint, what string) {
	m.mu.Lock()
	m.cache[[2]string{endpoint, what}]++
	m.mu.Unlock()
}

func (m *metrics) ingest(source string, accepted, rejected int) {
	m.mu.Lock()
	m.ingested[source] += int64(accepted)
	m.rejected[source] += int64(rejected)
	m.mu.Unlock()
}

func label(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func sortedKeys[K comparable, V any](m map[K]V, less func(a, b K) bool) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
	return keys
}

func (m *metrics) write(w io.Writer, store *logstore.Store, cacheEntries int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP logq_request_duration_seconds Time to answer HTTP requests, by endpoint or route.")
	fmt.Fprintln(w, "# TYPE logq_request_duration_seconds histogram")
	for _, name := range sortedKeys(m.latency, func(a, b string) bool { return a < b }) {
		h := m.latency[name]
		for i, b := range latencyBuckets {
			fmt.Fprintf(w, "logq_request_duration_seconds_bucket{endpoint=\"%s\",le=\"%g\"} %d\n", label(name), b, h.counts[i])
		}
		fmt.Fprintf(w, "logq_request_duration_seconds_bucket{endpoint=\"%s\",le=\"+Inf\"} %d\n", label(name), h.n)
		fmt.Fprintf(w, "logq_request_duration_seconds_sum{endpoint=\"%s\"} %g\n", label(name), h.sum)
		fmt.Fprintf(w, "logq_request_duration_seconds_count{endpoint=\"%s\"} %d\n", label(name), h.n)
	}
	fmt.Fprintln(w, "# HELP logq_requests_total HTTP requests by endpoint or route and status.")
	fmt.Fprintln(w, "# TYPE logq_requests_total counter")
	for _, k := range sortedKeys(m.requests, func(a, b [2]string) bool { return a[0]+a[1] < b[0]+b[1] }) {
		fmt.Fprintf(w, "logq_requests_total{endpoint=\"%s\",status=\"%s\"} %d\n", label(k[0]), k[1], m.requests[k])
	}
	fmt.Fprintln(w, "# HELP logq_cache_events_total Result cache hits, misses, refreshes and failed refreshes.")
	fmt.Fprintln(w, "# TYPE logq_cache_events_total counter")
	for _, k := range sortedKeys(m.cache, func(a, b [2]string) bool { return a[0]+a[1] < b[0]+b[1] }) {
		fmt.Fprintf(w, "logq_cache_events_total{endpoint=\"%s\",event=\"%s\"} %d\n", label(k[0]), k[1], m.cache[k])
	}
	fmt.Fprintln(w, "# HELP logq_cache_entries Result cache entries held.")
	fmt.Fprintln(w, "# TYPE logq_cache_entries gauge")
	fmt.Fprintf(w, "logq_cache_entries %d\n", cacheEntries)
	fmt.Fprintln(w, "# HELP logq_events_ingested_total Events accepted by ingest, by source.")
	fmt.Fprintln(w, "# TYPE logq_events_ingested_total counter")
	for _, s := range sortedKeys(m.ingested, func(a, b string) bool { return a < b }) {
		fmt.Fprintf(w, "logq_events_ingested_total{source=\"%s\"} %d\n", label(s), m.ingested[s])
	}
	fmt.Fprintln(w, "# HELP logq_events_rejected_total Events refused by ingest, by source.")
	fmt.Fprintln(w, "# TYPE logq_events_rejected_total counter")
	for _, s := range sortedKeys(m.rejected, func(a, b string) bool { return a < b }) {
		fmt.Fprintf(w, "logq_events_rejected_total{source=\"%s\"} %d\n", label(s), m.rejected[s])
	}
	stats := store.Stats()
	fmt.Fprintln(w, "# HELP logq_events_held Events held in memory, by source.")
	fmt.Fprintln(w, "# TYPE logq_events_held gauge")
	for _, s := range stats {
		fmt.Fprintf(w, "logq_events_held{source=\"%s\"} %d\n", label(s.Name), s.Events)
	}
	fmt.Fprintln(w, "# HELP logq_bytes_held Bytes of event data held in memory (estimated), by source.")
	fmt.Fprintln(w, "# TYPE logq_bytes_held gauge")
	for _, s := range stats {
		fmt.Fprintf(w, "logq_bytes_held{source=\"%s\"} %d\n", label(s.Name), s.Bytes)
	}
}

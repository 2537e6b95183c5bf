package api

import (
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"logq/drain"
	"logq/logstore"
	"logq/storage"
)

// metrics holds what /metrics exposes, through prometheus/client_golang (Go
// runtime and process collectors come with it). Every label value comes
// from a bounded set: route templates, configured endpoint names, HTTP
// status codes, and at most maxSources source names (the rest are "other").
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // route, endpoint, status
	latency  *prometheus.HistogramVec // route, endpoint
	cache    *prometheus.CounterVec   // endpoint, event
	ingested *prometheus.CounterVec   // source
	rejected *prometheus.CounterVec   // source
	tooOld   *prometheus.CounterVec   // source: refused for the retention
	inBytes  *prometheus.CounterVec   // source
	sources  *sourceLabels
}

// other is the label value for anything outside the bounded sets.
const other = "other"

var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

func newMetrics(store Backend, cacheLen func() int, maxSources int, drains *drain.Manager) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "logq_requests_total",
			Help: "HTTP requests by route template, endpoint name and status."}, []string{"route", "endpoint", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "logq_request_duration_seconds",
			Help: "Time to answer HTTP requests, by route template and endpoint name.", Buckets: latencyBuckets},
			[]string{"route", "endpoint"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "logq_cache_events_total",
			Help: "Result cache hits, misses, refreshes and failed refreshes."}, []string{"endpoint", "event"}),
		ingested: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "logq_events_ingested_total",
			Help: "Events accepted by ingest, by source."}, []string{"source"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "logq_events_rejected_total",
			Help: "Events refused by ingest, by source."}, []string{"source"}),
		tooOld: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "logq_events_too_old_total",
			Help: "Events refused by ingest for being older than the retention, by source (also in logq_events_rejected_total)."}, []string{"source"}),
		inBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "logq_ingest_bytes_total",
			Help: "Request body bytes (decompressed) received by ingest, by source."}, []string{"source"}),
		sources: &sourceLabels{max: maxSources, known: map[string]bool{}},
	}
	version, revision := buildVersion()
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "logq_build_info",
		Help:        "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()}})
	info.Set(1)
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		info, m.requests, m.latency, m.cache, m.ingested, m.rejected, m.tooOld, m.inBytes,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "logq_cache_entries", Help: "Result cache entries held."},
			func() float64 { return float64(cacheLen()) }),
		&heldCollector{store: store, sources: m.sources},
	)
	if local, ok := store.(localBackend); ok {
		m.reg.MustRegister(&storageCollector{store: local.Store})
	}
	if drains != nil {
		m.reg.MustRegister(&drainCollector{drains: drains})
	}
	return m
}

// storageCollector reports the data directory's state at scrape time: what
// start-up found damaged, bytes on disk, the column cache and merges.
type storageCollector struct{ store *logstore.Store }

var (
	recoveryDesc = prometheus.NewDesc("logq_recovery_events",
		"What opening the data directory found: torn WAL tails cut, damaged WAL records skipped, files moved aside as corrupt, missing segments, events replayed and loaded.",
		[]string{"what"}, nil)
	diskBytesDesc  = prometheus.NewDesc("logq_disk_bytes", "Bytes of the data directory's segment and WAL files.", nil, nil)
	colCacheDesc   = prometheus.NewDesc("logq_column_cache_bytes", "Bytes of columns held by the column cache, and its budget.", []string{"what"}, nil)
	colLookupsDesc = prometheus.NewDesc("logq_column_cache_lookups_total", "Column cache lookups, by result.", []string{"result"}, nil)
	mergesDesc     = prometheus.NewDesc("logq_segment_merges_total", "Merged segments written.", nil, nil)
	writtenDesc    = prometheus.NewDesc("logq_segment_bytes_written_total", "Bytes of segment files written, by seals and by merges.", []string{"by"}, nil)
)

func (c *storageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{recoveryDesc, diskBytesDesc, colCacheDesc, colLookupsDesc, mergesDesc, writtenDesc} {
		ch <- d
	}
}

func (c *storageCollector) Collect(ch chan<- prometheus.Metric) {
	r := c.store.Recovery()
	for what, v := range map[string]int{"torn_tails": r.TornTails, "corrupt_records": r.CorruptRecords,
		"corrupt_files": r.CorruptFiles, "missing_segments": r.Missing, "replayed": r.Replayed, "loaded": r.Loaded} {
		ch <- prometheus.MustNewConstMetric(recoveryDesc, prometheus.GaugeValue, float64(v), what)
	}
	ch <- prometheus.MustNewConstMetric(diskBytesDesc, prometheus.GaugeValue, float64(c.store.DiskBytes()))
	cs := c.store.CacheStats()
	ch <- prometheus.MustNewConstMetric(colCacheDesc, prometheus.GaugeValue, float64(cs.Bytes), "held")
	ch <- prometheus.MustNewConstMetric(colCacheDesc, prometheus.GaugeValue, float64(cs.Budget), "budget")
	ch <- prometheus.MustNewConstMetric(colLookupsDesc, prometheus.CounterValue, float64(cs.Hits), "hit")
	ch <- prometheus.MustNewConstMetric(colLookupsDesc, prometheus.CounterValue, float64(cs.Misses), "miss")
	ms := c.store.MergeStats()
	ch <- prometheus.MustNewConstMetric(mergesDesc, prometheus.CounterValue, float64(ms.Merges))
	ch <- prometheus.MustNewConstMetric(writtenDesc, prometheus.CounterValue, float64(ms.BytesSealed), "seal")
	ch <- prometheus.MustNewConstMetric(writtenDesc, prometheus.CounterValue, float64(ms.BytesMerged), "merge")
}

// buildVersion reads the module version and VCS revision from the build info.
func buildVersion() (version, revision string) {
	version, revision = "unknown", "unknown"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if v := bi.Main.Version; v != "" {
		version = v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	return
}

func (m *metrics) handler() http.Handler {
	// Compression is left to the server's own middleware (one place).
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{DisableCompression: true})
}

func (m *metrics) observe(route, endpoint string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, endpoint, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route, endpoint).Observe(d.Seconds())
}

func (m *metrics) cacheEvent(endpoint, what string) {
	m.cache.WithLabelValues(endpoint, what).Inc()
}

func (m *metrics) ingest(source string, accepted, rejected, tooOld, bytes int) {
	l := m.sources.label(source)
	m.ingested.WithLabelValues(l).Add(float64(accepted))
	m.rejected.WithLabelValues(l).Add(float64(rejected))
	if tooOld > 0 {
		m.tooOld.WithLabelValues(l).Add(float64(tooOld))
	}
	m.inBytes.WithLabelValues(l).Add(float64(bytes))
}

// sourceLabels bounds the source label: the first max sources seen keep
// their name, later ones are counted as "other". First come keeps a name
// stable for the life of the process.
type sourceLabels struct {
	mu    sync.Mutex
	max   int
	known map[string]bool
}

func (s *sourceLabels) label(source string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[source] {
		return source
	}
	if len(s.known) < s.max {
		s.known[source] = true
		return source
	}
	return other
}

// heldCollector reports the events and bytes the store holds, per source,
// read at scrape time, with the same bounded source labels.
type heldCollector struct {
	store   storage.Engine
	sources *sourceLabels
}

var (
	eventsHeld = prometheus.NewDesc("logq_events_held", "Events held, by source.", []string{"source"}, nil)
	bytesHeld  = prometheus.NewDesc("logq_bytes_held", "Bytes of event data held (estimated), by source.", []string{"source"}, nil)
	overflowed = prometheus.NewDesc("logq_fields_overflowed_total", "Keys kept in __overflow columns because their source was at its field cap, by source.", []string{"source"}, nil)
)

func (c *heldCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- eventsHeld
	ch <- bytesHeld
	ch <- overflowed
}

func (c *heldCollector) Collect(ch chan<- prometheus.Metric) {
	stats := c.store.Stats() // sorted by name: the same sources keep their labels
	events, bytes, over := map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, s := range stats {
		l := c.sources.label(s.Name)
		events[l] += float64(s.Events)
		bytes[l] += float64(s.Bytes)
		over[l] += float64(s.Overflowed)
	}
	for l, v := range events {
		ch <- prometheus.MustNewConstMetric(eventsHeld, prometheus.GaugeValue, v, l)
		ch <- prometheus.MustNewConstMetric(bytesHeld, prometheus.GaugeValue, bytes[l], l)
		ch <- prometheus.MustNewConstMetric(overflowed, prometheus.CounterValue, over[l], l)
	}
}

// drainCollector reports each drain's delivery at scrape time, labelled by
// the drain's name (at most drain.MaxBackends of them) and type.
type drainCollector struct{ drains *drain.Manager }

var (
	drainLabels    = []string{"drain", "type"}
	drainDelivered = prometheus.NewDesc("logq_drain_events_delivered_total", "Events a drain's destination took (answered 2xx).", drainLabels, nil)
	drainBatches   = prometheus.NewDesc("logq_drain_batches_total", "Requests a drain's destination answered 2xx.", drainLabels, nil)
	drainFailed    = prometheus.NewDesc("logq_drain_batches_failed_total", "Requests to a drain's destination that failed (then retried, or refused for good).", drainLabels, nil)
	drainRetried   = prometheus.NewDesc("logq_drain_batches_retried_total", "Failed requests that were sent again.", drainLabels, nil)
	drainRefused   = prometheus.NewDesc("logq_drain_events_refused_total", "Events of batches a destination refused for good (a 4xx that retrying cannot fix).", drainLabels, nil)
	drainLost      = prometheus.NewDesc("logq_drain_events_lost_total", "Events dropped from the feed (retention, --max-disk, a memory feed's bound) before the drain sent them.", drainLabels, nil)
	drainLagEvents = prometheus.NewDesc("logq_drain_lag_events", "Events acknowledged and not yet delivered.", drainLabels, nil)
	drainLagSecs   = prometheus.NewDesc("logq_drain_lag_seconds", "Age of the oldest event read and not yet delivered (0 when caught up).", drainLabels, nil)
	drainLastError = prometheus.NewDesc("logq_drain_last_error_timestamp_seconds", "When the drain last failed; its message is the error label.", append(drainLabels, "error"), nil)
)

func (c *drainCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{drainDelivered, drainBatches, drainFailed, drainRetried, drainRefused, drainLost, drainLagEvents, drainLagSecs, drainLastError} {
		ch <- d
	}
}

func (c *drainCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.drains.Stats() {
		l := []string{st.Name, st.Type}
		ch <- prometheus.MustNewConstMetric(drainDelivered, prometheus.CounterValue, float64(st.Delivered), l...)
		ch <- prometheus.MustNewConstMetric(drainBatches, prometheus.CounterValue, float64(st.Batches), l...)
		ch <- prometheus.MustNewConstMetric(drainFailed, prometheus.CounterValue, float64(st.Failed), l...)
		ch <- prometheus.MustNewConstMetric(drainRetried, prometheus.CounterValue, float64(st.Retried), l...)
		ch <- prometheus.MustNewConstMetric(drainRefused, prometheus.CounterValue, float64(st.Refused), l...)
		ch <- prometheus.MustNewConstMetric(drainLost, prometheus.CounterValue, float64(st.Lost), l...)
		ch <- prometheus.MustNewConstMetric(drainLagEvents, prometheus.GaugeValue, float64(st.LagEvents), l...)
		ch <- prometheus.MustNewConstMetric(drainLagSecs, prometheus.GaugeValue, st.LagSeconds, l...)
		if st.LastErrorAt > 0 {
			ch <- prometheus.MustNewConstMetric(drainLastError, prometheus.GaugeValue, float64(st.LastErrorAt)/1e6, append(l, clip(st.LastError, 200))...)
		}
	}
}

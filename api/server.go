package api

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"logq/drain"
	"logq/endpoint"

	_ "logq/publicsuffixlist" // NET.PUBLIC_SUFFIX and NET.REG_DOMAIN look suffixes up in it
)

// Config configures a Server.
type Config struct {
	Keys          []Key
	Endpoints     []*endpoint.Endpoint
	Backend       Backend // where events are stored and queries read (Local, or another engine)
	MaxConcurrent int     // queries running at once; 0: 4 per CPU
	// Overloaded, when set, reports that memory is past its limit: ingest
	// then answers 429 with Retry-After until it is not.
	Overloaded   func() bool
	QueryTimeout time.Duration // 0: 30s
	QueryMemory  int64         // per-query memory budget in bytes (exec.Request.MemoryBudget); 0: none
	CacheEntries int           // 0: 1024
	Clock        Clock         // nil: RealClock
	Logger       *slog.Logger  // nil: slog.Default()
	// MaxSourceLabels bounds the sources named in metrics; later ones are
	// counted as "other". 0: 200.
	MaxSourceLabels int
	// Drains serves Logflare's backends and rules routes and delivers to
	// them; nil answers those routes 503.
	Drains *drain.Manager
}

// MaxBody is the largest request body accepted, after decompression.
const MaxBody = 12 << 20

// Server serves the query and ingest APIs.
type Server struct {
	cfg     Config
	byID    map[string]*endpoint.Endpoint
	byName  map[string]*endpoint.Endpoint
	store   Backend
	sem     chan struct{}
	cache   *resultCache
	metrics *metrics
	log     *slog.Logger
	ready   atomic.Bool
	router  http.Handler
	drain   atomic.Bool
	done    chan struct{} // closed by Close: tails end

	overloaded func() bool
	closeOnce  sync.Once
}

// New builds a server. It starts not ready: call SetReady once data is loaded.
func New(cfg Config) *Server {
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = 4 * runtime.GOMAXPROCS(0)
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = 30 * time.Second
	}
	if cfg.CacheEntries <= 0 {
		cfg.CacheEntries = 1024
	}
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.MaxSourceLabels <= 0 {
		cfg.MaxSourceLabels = 200
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, byID: map[string]*endpoint.Endpoint{}, byName: map[string]*endpoint.Endpoint{},
		store: cfg.Backend, sem: make(chan struct{}, cfg.MaxConcurrent), log: cfg.Logger, overloaded: cfg.Overloaded, done: make(chan struct{})}
	for _, e := range cfg.Endpoints {
		s.byID[strings.ToLower(e.ID)] = e
		s.byName[e.Name] = e
	}
	s.cache = newResultCache(cfg.CacheEntries, cfg.Clock, func(ep string, ok bool) {
		if ok {
			s.metrics.cacheEvent(ep, "refresh")
		} else {
			s.metrics.cacheEvent(ep, "refresh_failed")
		}
	})
	s.metrics = newMetrics(cfg.Backend, s.cache.len, cfg.MaxSourceLabels, cfg.Drains)
	s.router = s.routes()
	return s
}

// Drain makes /ready answer 503 while the API keeps serving, so load
// balancers stop sending before the listener closes (cmd waits its drain
// delay, then shuts the http.Server down).
func (s *Server) Drain() { s.drain.Store(true) }

// HTTPServer returns an http.Server for the handler with the timeouts and
// header limit logq runs with: reads (a 12 MB body) get a minute, writes
// the query time limit plus a margin, idle keep-alives two minutes.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      s.cfg.QueryTimeout + 30*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    HardHeaderBytes,
	}
}

// SetReady marks the server ready (or not: starting, draining). While not
// ready, the query and ingest APIs answer 503.
func (s *Server) SetReady(ok bool) { s.ready.Store(ok) }

// Close stops background cache refreshes and ends open tails.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.cache.close()
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.router }

// corsHeaders are the request headers a browser may send: the key, the
// body's type and encoding, every source header the ingest routes read
// (sourceOf), and a binary-mode CloudEvent's ce-* attributes (the spec's
// own and its common extensions).
const corsHeaders = "Authorization, Content-Type, X-API-Key, X-Source, X-Source-Name, X-Collection, Content-Encoding, " +
	"ce-specversion, ce-id, ce-source, ce-type, ce-time, ce-subject, ce-datacontenttype, ce-dataschema, ce-traceparent, ce-tracestate"

// cors answers every request with the CORS headers of CONTRACT.md §2.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Expose-Headers", "Logq-Cache, Retry-After")
		h.Set("Access-Control-Allow-Headers", corsHeaders)
		h.Set("Access-Control-Max-Age", "86400")
		next.ServeHTTP(w, r)
	})
}

// recorder captures what a handler wrote, for logs and metrics.
type recorder struct {
	http.ResponseWriter
	status   int
	route    string // the route template; "" when no route matched
	rows     int    // rows answered by a successful query
	endpoint string
	cache    string
	err      string // the message of an error answer (writeError)
}

// recorderIn finds the recorder under a response writer that wraps it
// (compressWriter), nil if there is none.
func recorderIn(w http.ResponseWriter) *recorder {
	for {
		switch x := w.(type) {
		case *recorder:
			return x
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}

// Unwrap gives the writer under the recorder (http.ResponseController finds
// Flush and SetWriteDeadline through it: the tail streams).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.ResponseWriter.Write(b)
}

type ctxKey struct{}

// observe logs one line per request and records its latency; a panic in a
// handler is a bug, answered with 500 and logged with its stack.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, done := r.Context().Value(ctxKey{}).(*recorder); done {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic", "path", r.URL.Path, "panic", p, "stack", string(stack()))
				if rec.status == 0 {
					writeError(rec, errorf(500, "internalError", "", "internal error"))
				}
			}
			d := time.Since(start)
			// Label values come from the route table and the endpoint list
			// only, never from the request: anything else is "other".
			route, ep := rec.route, rec.endpoint
			if route == "" {
				route = other
			}
			if ep == "" {
				ep = other
			}
			s.metrics.observe(route, ep, rec.status, d)
			attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status, "duration_ms", float64(d.Microseconds()) / 1000}
			if rec.endpoint != "" {
				attrs = append(attrs, "endpoint", rec.endpoint)
			}
			if rec.cache != "" {
				attrs = append(attrs, "cache", rec.cache, "rows", rec.rows)
			}
			if rec.err != "" {
				// Why it failed, and for whom: a refused ingest or a bad
				// query is otherwise a bare status in the log.
				attrs = append(attrs, "error", rec.err, "client", r.RemoteAddr)
				if src := r.URL.Query().Get("source_name"); src != "" {
					attrs = append(attrs, "source", clip(src, MaxSourceName))
				}
			}
			s.log.Info("request", attrs...)
		}()
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), ctxKey{}, rec)))
	})
}

func recorderOf(r *http.Request) *recorder {
	rec, _ := r.Context().Value(ctxKey{}).(*recorder)
	if rec == nil {
		return &recorder{}
	}
	return rec
}

// apiKey returns the key a request carries: Authorization: Bearer, then
// X-API-KEY, then ?api_key; the first found wins.
func apiKey(r *http.Request) string {
	if a := r.Header.Get("Authorization"); a != "" {
		if k, ok := strings.CutPrefix(a, "Bearer "); ok {
			return strings.TrimSpace(k)
		}
	}
	if k := r.Header.Get("X-API-Key"); k != "" {
		return k
	}
	return r.URL.Query().Get("api_key")
}

// keyScopes compares k in constant time against every configured key and
// returns the scopes of the one it is (0 for none).
func (s *Server) keyScopes(k string) Scope {
	var got Scope
	for _, want := range s.cfg.Keys {
		match := subtle.ConstantTimeCompare([]byte(k), []byte(want.Value))
		got |= Scope(subtle.ConstantTimeSelect(match, int(want.Scopes), 0))
	}
	if k == "" {
		return 0
	}
	return got
}

// authed checks the key and its scope first, then readiness: a valid key
// never gets 401 for a route its scope allows.
func (s *Server) authed(need Scope, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := s.keyScopes(apiKey(r))
		if got == 0 {
			writeError(w, errorf(401, "unauthenticated", "", "a valid API key is required (Authorization: Bearer <key>, X-API-KEY: <key> or ?api_key=<key>)"))
			return
		}
		if got&need == 0 {
			writeError(w, errorf(401, "unauthorized", "", "this key may not %s (it may %s); use a key given with --api-key %s:KEY%s",
				need.verb(), got.String(), need.String(), map[bool]string{true: " or LOGFLARE_PRIVATE_ACCESS_TOKEN", false: ""}[need == ScopeAdmin]))
			return
		}
		if !s.ready.Load() {
			writeError(w, errorf(503, "unavailable", "", "logq is starting or shutting down; try again shortly"))
			return
		}
		h(w, r)
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, 200, map[string]string{"status": "ok"})
}

func (s *Server) handleReady(w http.ResponseWriter, _ *http.Request) {
	if s.drain.Load() || !s.ready.Load() {
		w.Header().Set("Retry-After", "1")
	}
	if s.drain.Load() {
		writeJSON(w, 503, map[string]string{"status": "draining"})
		return
	}
	if !s.ready.Load() {
		writeJSON(w, 503, map[string]string{"status": "not ready"})
		return
	}
	writeJSON(w, 200, map[string]string{"status": "ready"})
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	s.metrics.handler().ServeHTTP(w, r)
}

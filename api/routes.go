package api

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gorilla/mux"

	"logq/ingest"
)

// route is one entry of the route table: every path logq serves is defined
// here once, with the methods it answers. The template (not the raw path) is
// what metrics and logs use, so no label value comes from a request.
type route struct {
	template string
	methods  []string
	handler  http.Handler
}

// routeTable lists every route. Ingest paths come from ingestPaths.
func (s *Server) routeTable() []route {
	query := s.authed(ScopeQuery, s.handleQuery)
	admin := func(h http.HandlerFunc) http.Handler { return s.authed(ScopeAdmin, h) }
	rw := []string{http.MethodGet, http.MethodPost}
	get := []string{http.MethodGet}
	rs := []route{
		{"/api/endpoints/query/name/{name}", rw, query},
		{"/api/endpoints/query/{id}", rw, query},
		{"/endpoints/query/{id}", rw, query},
		{"/api/endpoints", get, s.authed(ScopeQuery, s.handleListEndpoints)},
		{"/api/query", rw, s.authed(ScopeQuery, s.handleAdhocQuery)},
		{"/api/sources/{source}/tail", get, s.authed(ScopeQuery, s.handleTail)},
		// Logflare's management API (manage.go).
		{"/api/sources", get, admin(s.handleListSources)},
		{"/api/sources/{token}", get, admin(s.handleGetSource)},
		{"/api/sources/{token}/schema", get, admin(s.handleSourceSchema)},
		{"/api/backends", rw, byMethod(map[string]http.Handler{
			http.MethodGet: admin(s.handleListBackends), http.MethodPost: admin(s.handleCreateBackend)})},
		{"/api/backends/{token}", []string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete}, byMethod(map[string]http.Handler{
			http.MethodGet: admin(s.handleGetBackend), http.MethodPut: admin(s.handleUpdateBackend),
			http.MethodPatch: admin(s.handleUpdateBackend), http.MethodDelete: admin(s.handleDeleteBackend)})},
		{"/api/backends/{token}/test", []string{http.MethodPost}, admin(s.handleTestBackend)},
		{"/api/drains", get, admin(s.handleDrainStats)},
		{"/api/rules", rw, byMethod(map[string]http.Handler{
			http.MethodGet: admin(s.handleListRules), http.MethodPost: admin(s.handleCreateRule)})},
		{"/api/rules/{token}", []string{http.MethodGet, http.MethodDelete}, byMethod(map[string]http.Handler{
			http.MethodGet: admin(s.handleGetRule), http.MethodDelete: admin(s.handleDeleteRule)})},
		{"/", get, http.HandlerFunc(handleRoot)},
		{"/ui/", get, s.uiHandler()},
		{"/ui/{file:.+}", get, s.uiHandler()},
		{"/health", get, http.HandlerFunc(s.handleHealth)},
		{"/ready", get, http.HandlerFunc(s.handleReady)},
		{"/metrics", get, http.HandlerFunc(s.handleMetrics)},
		{"/v1/logs", []string{http.MethodPost}, s.authed(ScopeIngest, s.handleOTLPLogs)},
		{"/v1/traces", []string{http.MethodPost}, http.HandlerFunc(handleOTLPOther)},
		{"/v1/metrics", []string{http.MethodPost}, http.HandlerFunc(handleOTLPOther)},
	}
	suffixes := slices.Sorted(maps.Keys(ingest.Suffixes))
	for _, prefix := range ingestPrefixes {
		for _, suffix := range suffixes {
			form := ingest.Suffixes[suffix]
			h := s.authed(ScopeIngest, func(w http.ResponseWriter, r *http.Request) { s.handleIngest(w, r, form) })
			rs = append(rs, route{prefix + suffix, []string{http.MethodPost}, h})
		}
	}
	return rs
}

// byMethod serves each method with its own handler (dispatch has already
// refused the others; HEAD is GET's).
func byMethod(hs map[string]http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := r.Method
		if m == http.MethodHead {
			m = http.MethodGet
		}
		hs[m].ServeHTTP(w, r)
	})
}

// ingestPrefixes are Logflare's three ingest prefixes (CONTRACT.md §3); each
// serves every suffix of ingest.Suffixes.
var ingestPrefixes = []string{"/api/logs", "/logs", "/api/events"}

// routes builds the router. Each path is registered for every method, and
// dispatch answers OPTIONS (CORS preflight, 204) and wrong methods (405 with
// Allow) from the route's own method list; a path no route matches is 404.
// gorilla/mux's own method matching is not used: an OPTIONS catch-all made
// every unknown path a 405.
func (s *Server) routes() http.Handler {
	r := mux.NewRouter()
	for _, rt := range s.routeTable() {
		r.Handle(rt.template, dispatch(rt))
	}
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, errorf(404, "notFound", "", "no such route: %s %s", req.Method, clip(req.URL.Path, 200)))
	})
	return s.observe(limitHeaders(cors(compress(r))))
}

func dispatch(rt route) http.Handler {
	if slices.Contains(rt.methods, http.MethodGet) {
		// HEAD is GET without the body (net/http drops it), as HTTP says.
		rt.methods = append(slices.Clone(rt.methods), http.MethodHead)
	}
	allow := strings.Join(append(slices.Clone(rt.methods), http.MethodOptions), ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		recorderOf(req).route = rt.template
		switch {
		case slices.Contains(rt.methods, req.Method):
			rt.handler.ServeHTTP(w, req)
		case req.Method == http.MethodOptions:
			w.Header().Set("Allow", allow)
			w.Header().Set("Access-Control-Allow-Methods", allow)
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", allow)
			writeError(w, errorf(405, "methodNotAllowed", "", "method %s is not allowed on %s; use %s", req.Method, rt.template, allow))
		}
	})
}

// clip bounds a raw input quoted back in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// MaxHeaderBytes bounds the request line plus headers; larger requests get a
// JSON 431. The http.Server's own limit (HardHeaderBytes, see HTTPServer) is
// set higher so that net/http's plain-text 431 only answers absurd requests.
const (
	MaxHeaderBytes  = 64 << 10
	HardHeaderBytes = 4 << 20
)

func limitHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
		for k, vs := range r.Header {
			for _, v := range vs {
				n += len(k) + len(v) + 4
			}
		}
		if n > MaxHeaderBytes {
			writeError(w, errorf(431, "headersTooLarge", "", "the request line and headers are %d bytes; at most %d are accepted", n, MaxHeaderBytes))
			return
		}
		next.ServeHTTP(w, r)
	})
}

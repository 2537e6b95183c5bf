package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"logq/endpoint"
	"logq/exec"
)

func (s *Server) lookup(r *http.Request) *endpoint.Endpoint {
	vars := mux.Vars(r)
	if name, ok := vars["name"]; ok {
		return s.byName[name]
	}
	id := vars["id"]
	if e := s.byID[strings.ToLower(id)]; e != nil {
		return e
	}
	return s.byName[id]
}

func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request) {
	rec := recorderOf(r)
	e := s.lookup(r)
	if e == nil {
		writeError(w, errorf(404, "notFound", "", "no endpoint with id or name %q", firstVar(r)))
		return
	}
	rec.endpoint = e.Name
	params, aerr := requestParams(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if aerr := checkParams(e, params); aerr != nil {
		writeError(w, aerr)
		return
	}
	// Only the parameters the SQL uses reach the query and the cache key.
	used := map[string]string{}
	for _, p := range e.Query.Params {
		if v, ok := params[p]; ok {
			used[p] = v
		}
	}
	q, sandboxed, err := e.CallerQuery(params)
	if err != nil {
		rec.cache = "bypass"
		w.Header().Set("Logq-Cache", rec.cache)
		writeError(w, fromExec(err))
		return
	}
	run := func(ctx context.Context) (encoded, error) { return s.run(ctx, e, q, used) }
	var body encoded
	if e.CacheSeconds > 0 && !sandboxed {
		var hit bool
		body, hit, err = s.cache.get(r.Context(), cacheKey(e, used), e.Name,
			time.Duration(e.CacheSeconds)*time.Second, time.Duration(e.WarmSeconds)*time.Second, detached(run))
		rec.cache = map[bool]string{true: "hit", false: "miss"}[hit]
		s.metrics.cacheEvent(e.Name, rec.cache)
	} else {
		rec.cache = "bypass"
		body, err = run(r.Context())
	}
	w.Header().Set("Logq-Cache", rec.cache)
	if err != nil {
		ae := fromExec(err)
		if ae.Code == 500 {
			var xe *exec.Error
			if errors.As(err, &xe) {
				s.log.Error("query failed", "endpoint", e.Name, "error", xe.Msg, "stack", xe.Stack)
			}
		}
		writeError(w, ae)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	rec.rows = body.rows
	_, _ = w.Write(body.body)
}

// detached makes a run ignore its caller's cancellation: a cached run is
// shared by every caller waiting on it and must not end because the first of
// them hung up (the query time limit still holds).
func detached(run runFunc) runFunc {
	return func(ctx context.Context) (encoded, error) { return run(context.WithoutCancel(ctx)) }
}

// run executes an endpoint's query (its own, or a caller's in its place) under the concurrency limit and its time limit.
func (s *Server) run(ctx context.Context, e *endpoint.Endpoint, q *exec.Query, params map[string]string) (encoded, error) {
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		return encoded{}, errorf(429, "rateLimitExceeded", "", "too many queries are running; try again shortly")
	}
	res, err := exec.Run(ctx, s.store, q, exec.Request{Params: params, Now: s.cfg.Clock.Now(), Timeout: s.cfg.QueryTimeout, MaxRows: e.MaxRows, MemoryBudget: s.cfg.QueryMemory, RecordsAsJSON: true})
	if err != nil {
		return encoded{}, err
	}
	rows := len(res.Rows)
	if e.MaxRows > 0 {
		rows = min(rows, e.MaxRows)
	}
	return encoded{encodeResult(res, e.MaxRows), rows}, nil
}

func firstVar(r *http.Request) string {
	for _, v := range mux.Vars(r) {
		return v
	}
	return ""
}

// requestParams collects parameters: the query string, and for POST a JSON
// object body whose values are strings. The query string wins on conflict.
func requestParams(r *http.Request) (map[string]string, *apiError) {
	params := map[string]string{}
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
		if err != nil {
			var mb *http.MaxBytesError
			if errors.As(err, &mb) {
				return nil, errorf(413, "payloadTooLarge", "", "the request body is larger than %d bytes", MaxBody)
			}
			return nil, errorf(400, "invalidBody", "", "could not read the request body: %v", err)
		}
		if len(strings.TrimSpace(string(body))) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(body, &obj); err != nil {
				return nil, errorf(400, "invalidBody", "", "the request body must be a JSON object of string parameters")
			}
			for k, v := range obj {
				str, ok := v.(string)
				if !ok {
					return nil, errorf(400, "invalidParameter", k, "parameter %s must be a string", k)
				}
				params[k] = str
			}
		}
	}
	for k, vs := range r.URL.Query() {
		if k == "api_key" || len(vs) == 0 {
			continue
		}
		params[k] = vs[0]
	}
	return params, nil
}

// checkParams runs the endpoint's declared checks (required, one_of).
func checkParams(e *endpoint.Endpoint, params map[string]string) *apiError {
	names := make([]string, 0, len(e.Params))
	for n := range e.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p := e.Params[name]
		v, ok := params[name]
		if p.Required && (!ok || v == "") {
			return errorf(400, "missingParameter", name, "parameter %s is required", name)
		}
		if len(p.OneOf) > 0 && ok && v != "" && !contains(p.OneOf, v) {
			return errorf(400, "invalidParameter", name, "parameter %s must be one of %s; got %q", name, strings.Join(p.OneOf, ", "), v)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cacheKey is the endpoint id plus the values of the parameters its SQL uses
// (absent and empty are told apart).
func cacheKey(e *endpoint.Endpoint, used map[string]string) string {
	var b strings.Builder
	b.WriteString(e.ID)
	for _, p := range e.Query.Params {
		b.WriteByte(0)
		b.WriteString(p)
		if v, ok := used[p]; ok {
			b.WriteByte('=')
			b.WriteString(v)
		}
	}
	return b.String()
}

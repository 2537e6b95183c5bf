package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"

	"logq/api"
	"logq/endpoint"
	"logq/logstore"
)

// inProcess answers one query through the server's own handler, so local
// runs and remote runs encode and fail the same way.
func inProcess(store *logstore.Store, eps []*endpoint.Endpoint, name string, params url.Values) (int, []byte, error) {
	return inProcessGet(store, eps, "/api/endpoints/query/"+url.PathEscape(name)+"?"+params.Encode())
}

// inProcessGet answers one GET of path through the server's own handler.
func inProcessGet(store *logstore.Store, eps []*endpoint.Endpoint, path string) (int, []byte, error) {
	const key = "in-process"
	srv := api.New(api.Config{Keys: api.Keys(key), Endpoints: eps, Backend: api.Local(store), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.Close()
	srv.SetReady(true)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("X-API-KEY", key)
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), nil
}

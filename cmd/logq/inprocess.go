package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"logq/api"
	"logq/endpoint"
	"logq/logstore"
)

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

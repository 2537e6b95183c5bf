package api

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"

	"logq/fixtures"
)

// Routing: unknown paths are 404 and wrong methods 405 with Allow, both in
// the error shape, whatever the key; OPTIONS is a preflight only where a
// route exists.
func TestRoutingStatuses(t *testing.T) {
	h := newHarness(t, nil)
	withKey := map[string]string{"X-API-KEY": testKey}
	for _, c := range []struct {
		method, path string
		header       map[string]string
		code         int
		status       string
		allow        string
	}{
		{"GET", "/nope", nil, 404, "NOT_FOUND", ""},
		{"POST", "/nope/deeper", withKey, 404, "NOT_FOUND", ""},
		{"OPTIONS", "/nope", nil, 404, "NOT_FOUND", ""},
		{"DELETE", "/api/endpoints/query/x/y/z", withKey, 404, "NOT_FOUND", ""},
		{"GET", "/api/logs", withKey, 405, "METHOD_NOT_ALLOWED", "POST, OPTIONS"},
		{"PUT", "/logs", nil, 405, "METHOD_NOT_ALLOWED", "POST, OPTIONS"},
		{"DELETE", "/api/endpoints/query/logs.all", withKey, 405, "METHOD_NOT_ALLOWED", "GET, POST, HEAD, OPTIONS"},
		{"POST", "/health", nil, 405, "METHOD_NOT_ALLOWED", "GET, HEAD, OPTIONS"},
		{"POST", "/metrics", nil, 405, "METHOD_NOT_ALLOWED", "GET, HEAD, OPTIONS"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			r := h.do(c.method, c.path, nil, c.header)
			requireError(t, r, c.code, c.status, "")
			require.Equal(t, c.allow, r.header.Get("Allow"))
			require.Equal(t, "*", r.header.Get("Access-Control-Allow-Origin"))
		})
	}
	// HEAD answers wherever GET does, with GET's status and no body.
	for _, p := range []string{"/metrics", "/health", "/api/sources"} {
		r := h.do(http.MethodHead, p, nil, withKey)
		require.Equal(t, 200, r.code, p)
		require.Empty(t, r.body, p)
	}
	r := h.do(http.MethodOptions, "/api/logs", nil, map[string]string{"Access-Control-Request-Method": "POST"})
	require.Equal(t, 204, r.code)
	require.Equal(t, "POST, OPTIONS", r.header.Get("Access-Control-Allow-Methods"))
	require.Equal(t, "Logq-Cache, Retry-After", r.header.Get("Access-Control-Expose-Headers"))
}

// An oversized request line or header gets the JSON 431 rather than
// net/http's plain text.
func TestHeadersTooLarge(t *testing.T) {
	h := newHarness(t, nil)
	long := strings.Repeat("a", MaxHeaderBytes)
	requireError(t, h.do(http.MethodGet, "/api/endpoints/query/logs.all?project="+long, nil, nil), 431, "HEADERS_TOO_LARGE", "")
	requireError(t, h.do(http.MethodGet, "/health", nil, map[string]string{"X-Big": long}), 431, "HEADERS_TOO_LARGE", "")
	require.Equal(t, 200, h.do(http.MethodGet, "/health", nil, map[string]string{"X-Big": long[:MaxHeaderBytes/2]}).code)
}

func TestRetryAfter(t *testing.T) {
	h := newHarness(t, nil)
	q := "/api/endpoints/query/logs.all?project=p&project_tier=PRO"
	for i := 0; i < cap(h.srv.sem); i++ {
		h.srv.sem <- struct{}{}
	}
	r := h.get(q)
	requireError(t, r, 429, "RESOURCE_EXHAUSTED", "")
	require.Equal(t, "1", r.header.Get("Retry-After"))
	for i := 0; i < cap(h.srv.sem); i++ {
		<-h.srv.sem
	}
	h.srv.SetReady(false)
	r = h.get(q)
	requireError(t, r, 503, "UNAVAILABLE", "")
	require.Equal(t, "1", r.header.Get("Retry-After"))
	h.srv.SetReady(true)
	h.srv.Drain()
	r = h.do(http.MethodGet, "/ready", nil, nil)
	require.Equal(t, 503, r.code)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	require.Equal(t, 200, h.get(q).code, "the API keeps serving during the drain delay")
}

func TestHTTPServerTimeouts(t *testing.T) {
	h := newHarness(t, nil)
	hs := h.srv.HTTPServer()
	require.Positive(t, hs.ReadHeaderTimeout)
	require.Positive(t, hs.ReadTimeout)
	require.Greater(t, hs.WriteTimeout, h.srv.cfg.QueryTimeout, "a query may use its whole time limit")
	require.Positive(t, hs.IdleTimeout)
	require.Equal(t, HardHeaderBytes, hs.MaxHeaderBytes)
}

// Responses are compressed when the client accepts it, and decode to the
// very bytes of the uncompressed response.
func TestResponseCompression(t *testing.T) {
	h := newHarness(t, nil)
	h.store.Append("cloudflare.logs.prod", fixtures.Generate(fixtures.DefaultSpec(2000, testNow), "cloudflare.logs.prod"))
	q := "/api/endpoints/query/logs.all?project=" + fixtures.ProjectRef(0) + "&project_tier=ENTERPRISE"
	get := func(ae string) reply {
		// A Transport that does not add (and transparently undo) gzip itself.
		req, err := http.NewRequest(http.MethodGet, h.http.URL+q, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-KEY", testKey)
		if ae != "" {
			req.Header.Set("Accept-Encoding", ae)
		}
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return reply{resp.StatusCode, resp.Header, b}
	}
	plain := get("")
	require.Equal(t, 200, plain.code, string(plain.body))
	require.Empty(t, plain.header.Get("Content-Encoding"))
	require.Contains(t, plain.header.Values("Vary"), "Accept-Encoding")
	require.Greater(t, len(plain.body), minCompress)
	for _, c := range []struct{ accept, enc string }{
		{"gzip", "gzip"}, {"gzip, deflate, br", "gzip"}, {"zstd", "zstd"}, {"gzip, zstd", "zstd"},
		{"zstd;q=0, gzip", "gzip"}, {"br", ""}, {"identity", ""},
	} {
		r := get(c.accept)
		require.Equal(t, 200, r.code)
		require.Equal(t, c.enc, r.header.Get("Content-Encoding"), c.accept)
		require.Contains(t, r.header.Values("Vary"), "Accept-Encoding")
		body := r.body
		switch c.enc {
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			require.NoError(t, err)
			body, err = io.ReadAll(zr)
			require.NoError(t, err)
		case "zstd":
			d, err := zstd.NewReader(nil)
			require.NoError(t, err)
			body, err = d.DecodeAll(body, nil)
			require.NoError(t, err)
		}
		require.Equal(t, string(plain.body), string(body), c.accept)
		if c.enc != "" {
			require.Less(t, len(r.body), len(plain.body))
			t.Logf("%s: %d bytes, uncompressed %d", c.enc, len(r.body), len(plain.body))
		}
	}
	// Small bodies (an error) stay uncompressed.
	r := h.do(http.MethodGet, "/nope", nil, map[string]string{"Accept-Encoding": "gzip"})
	require.Empty(t, r.header.Get("Content-Encoding"), fmt.Sprint(len(r.body)))
}

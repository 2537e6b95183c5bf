package dest

import (
	"bytes"
	"compress/gzip"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// request is one request a receiver got.
type request struct {
	Method, Path, Host string
	Header             http.Header
	ProtoMajor         int
	Raw                []byte // as it came
	Body               []byte // gunzipped when Content-Encoding is gzip
	User, Pass         string
	BasicAuth          bool
}

// receiver is a test HTTP server that keeps every request and answers with
// a fixed status (or what answer returns).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []request
	answer func(w http.ResponseWriter, r *http.Request)
}

func (rc *receiver) handle(t testing.TB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the body: %v", err)
			return
		}
		body := raw
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				t.Errorf("gunzip: %v", err)
				return
			}
			body, err = io.ReadAll(zr)
			if err != nil {
				t.Errorf("gunzip: %v", err)
				return
			}
		}
		u, p, ok := r.BasicAuth()
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, request{
			Method: r.Method, Path: r.URL.RequestURI(), Host: r.Host, Header: r.Header.Clone(),
			ProtoMajor: r.ProtoMajor, Raw: raw, Body: body, User: u, Pass: p, BasicAuth: ok,
		})
		answer := rc.answer
		rc.mu.Unlock()
		if answer != nil {
			answer(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

// newReceiver starts a cleartext receiver.
func newReceiver(t testing.TB) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(rc.handle(t))
	t.Cleanup(rc.Close)
	return rc
}

// newTLSReceiver starts an HTTPS receiver that offers HTTP/2, and returns
// the roots that trust it.
func newTLSReceiver(t testing.TB) (*receiver, *x509.CertPool) {
	rc := &receiver{}
	rc.Server = httptest.NewUnstartedServer(rc.handle(t))
	rc.EnableHTTP2 = true
	rc.StartTLS()
	t.Cleanup(rc.Close)
	pool := x509.NewCertPool()
	pool.AddCert(rc.Certificate())
	return rc, pool
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.reqs...)
}

func (rc *receiver) only(t testing.TB) request {
	t.Helper()
	reqs := rc.requests()
	require.Len(t, reqs, 1)
	return reqs[0]
}

// eventOf makes an Event from a body built by encoding/json.
func eventOf(t testing.TB, body map[string]any) Event {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	ts, _ := body["timestamp"].(int64)
	msg, _ := body["event_message"].(string)
	return Event{Body: b, Timestamp: ts, Message: msg}
}

// sampleEvents are events with nested objects, arrays, numbers, booleans
// and characters JSON escapes.
func sampleEvents(t testing.TB) []Event {
	base := time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC).UnixMicro()
	var out []Event
	for i := range 5 {
		out = append(out, eventOf(t, map[string]any{
			"id":            fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			"timestamp":     base + int64(i)*1000001,
			"event_message": fmt.Sprintf("GET /rest/v1/items?id=eq.%d | 200 \"quoted\" \\ back\nline é ✓", i),
			"metadata": map[string]any{
				"request":  map[string]any{"method": "GET", "path": "/rest/v1/items", "headers": []any{map[string]any{"x_client_info": "supabase-js/2"}}},
				"response": map[string]any{"status_code": 200 + i, "ok": i%2 == 0, "ratio": 0.25 * float64(i+1)},
				"tags":     []any{"a", "b", int64(i)},
			},
			"project": "proj",
		}))
	}
	return out
}

// decodeJSON decodes with numbers kept as json.Number.
func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v), "%s", b)
	return v
}

func decodeObject(t testing.TB, b []byte) map[string]any {
	t.Helper()
	m, ok := decodeJSON(t, b).(map[string]any)
	require.True(t, ok, "%s", b)
	return m
}

// newDest makes a destination or fails the test.
func newDest(t testing.TB, typ string, config map[string]any, opts Options) Destination {
	t.Helper()
	d, err := New(typ, config, opts)
	require.NoError(t, err)
	return d
}

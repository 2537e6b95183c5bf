package dest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSendErrorClassification(t *testing.T) {
	rc := newReceiver(t)
	rc.answer = func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("status"))
		if ra := r.URL.Query().Get("retry_after"); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		if code == http.StatusFound {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, r.URL.Query().Get("body"))
	}
	long := strings.Repeat("é", 150) // 300 bytes: cut at 200, on a character boundary
	for _, tc := range []struct {
		status     int
		retryAfter string
		body       string
		ok         bool
		retry      bool
		after      time.Duration
		msg        string
		reason     string
	}{
		{status: 200, ok: true},
		{status: 202, ok: true},
		{status: 204, ok: true},
		{status: 429, retryAfter: "7", retry: true, after: 7 * time.Second, body: "slow down", msg: "429 Too Many Requests: slow down", reason: "http_client_error"},
		{status: 500, retry: true, body: "boom\nline two", msg: "500 Internal Server Error: boom line two", reason: "http_server_error"},
		{status: 503, retryAfter: "soon", retry: true, msg: "503 Service Unavailable", reason: "http_server_error"},
		{status: 408, retry: true, msg: "408 Request Timeout", reason: "http_client_error"},
		{status: 425, retry: true, msg: "425 Too Early", reason: "http_client_error"},
		{status: 400, body: `{"error":"bad"}`, msg: `400 Bad Request: {"error":"bad"}`, reason: "http_client_error"},
		{status: 401, msg: "401 Unauthorized", reason: "http_client_error"},
		{status: 404, body: long, msg: "404 Not Found: " + long[:200], reason: "http_client_error"},
		{status: 413, msg: "413 Request Entity Too Large", reason: "http_client_error"},
		{status: 302, msg: "302 Found", reason: "http_unknown_error"}, // redirects are not followed
		{status: 600, msg: "600", reason: "http_unknown_error"},
	} {
		q := fmt.Sprintf("?status=%d&retry_after=%s&body=%s", tc.status, tc.retryAfter, urlQueryEscape(tc.body))
		d := newDest(t, "webhook", map[string]any{"url": rc.URL + "/" + q, "gzip": false}, Options{})
		err := d.Send(context.Background(), Batch{Source: "s", Events: sampleEvents(t)[:2]})
		if tc.ok {
			require.NoError(t, err, tc.status)
		} else {
			var se *SendError
			require.ErrorAs(t, err, &se, tc.status)
			require.Equal(t, tc.status, se.Status)
			require.Equal(t, tc.retry, se.Retry, tc.status)
			require.Equal(t, tc.after, se.RetryAfter, tc.status)
			require.Equal(t, tc.msg, se.Msg)
			require.Equal(t, tc.msg, se.Error())
		}
		ok, reason := d.Test(context.Background())
		require.Equal(t, tc.ok, ok, tc.status)
		require.Equal(t, tc.reason, reason, tc.status)
	}
	for _, r := range rc.requests() {
		require.NotEqual(t, "/elsewhere", r.Path)
	}
}

func urlQueryEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	require.Equal(t, 120*time.Second, retryAfter("120", now))
	require.Equal(t, time.Duration(0), retryAfter("", now))
	require.Equal(t, time.Duration(0), retryAfter("-3", now))
	require.Equal(t, time.Duration(0), retryAfter("x", now))
	require.Equal(t, 90*time.Second, retryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now))
	require.Equal(t, time.Duration(0), retryAfter(now.Add(-time.Hour).Format(http.TimeFormat), now))
}

func TestTransportErrors(t *testing.T) {
	// connection refused: a port nothing listens on
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	d := newDest(t, "webhook", map[string]any{"url": "http://" + addr + "/x"}, Options{})
	err = d.Send(context.Background(), Batch{Source: "s", Events: sampleEvents(t)})
	var se *SendError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 0, se.Status)
	require.True(t, se.Retry)
	require.Contains(t, se.Msg, "connection refused")
	require.NotContains(t, se.Msg, "\n")
	ok, reason := d.Test(context.Background())
	require.False(t, ok)
	require.True(t, strings.HasPrefix(reason, "unknown_error: "), reason)
	require.Contains(t, reason, "connection refused")

	// a cancelled context
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rc := newReceiver(t)
	d = newDest(t, "webhook", map[string]any{"url": rc.URL}, Options{})
	err = d.Send(ctx, Batch{Source: "s"})
	require.ErrorAs(t, err, &se)
	require.True(t, se.Retry)
	require.Contains(t, se.Msg, "context canceled")

	// credentials in the URL do not reach the message
	d = newDest(t, "webhook", map[string]any{"url": "http://user:topsecret@" + addr + "/x"}, Options{})
	err = d.Send(context.Background(), Batch{Source: "s"})
	require.ErrorAs(t, err, &se)
	require.NotContains(t, se.Msg, "topsecret")
}

func TestDenyPrivate(t *testing.T) {
	rc := newReceiver(t)
	port := rc.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{rc.URL, fmt.Sprintf("http://localhost:%d/x", port)} {
		for name, opts := range map[string]Options{
			"default client": {DenyPrivate: true},
			"given client":   {DenyPrivate: true, Client: rc.Client()},
			"given dialer": {DenyPrivate: true, Client: &http.Client{Transport: &http.Transport{
				DialContext: (&net.Dialer{}).DialContext}}},
		} {
			d := newDest(t, "webhook", map[string]any{"url": u}, opts)
			err := d.Send(context.Background(), Batch{Source: "s", Events: sampleEvents(t)})
			var se *SendError
			require.ErrorAs(t, err, &se, "%s %s", u, name)
			require.Equal(t, 0, se.Status)
			require.False(t, se.Retry)
			require.Contains(t, se.Msg, "refused: private address", "%s %s", u, name)
			ok, reason := d.Test(context.Background())
			require.False(t, ok)
			require.Equal(t, "refused: private address", reason, "%s %s", u, name)
		}
	}
	require.Empty(t, rc.requests(), "nothing reached the private receiver")

	// allowed without DenyPrivate, by name and by address
	for _, u := range []string{rc.URL, fmt.Sprintf("http://localhost:%d/x", port)} {
		d := newDest(t, "webhook", map[string]any{"url": u}, Options{})
		require.NoError(t, d.Send(context.Background(), Batch{Source: "s"}))
	}

	// a transport this package cannot guard
	_, err := New("webhook", map[string]any{"url": rc.URL}, Options{DenyPrivate: true, Client: &http.Client{Transport: roundTripFunc(nil)}})
	require.Error(t, err)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "1.1.1.1": true, "93.184.216.34": true, "2606:4700:4700::1111": true,
		"::ffff:8.8.8.8": true, "64:ff9b::808:808": true, "2002:808:808::1": true, "100.128.0.1": true, "172.32.0.1": true,
		"127.0.0.1": false, "127.8.9.10": false, "10.1.2.3": false, "172.16.0.1": false, "172.31.255.255": false,
		"192.168.1.1": false, "169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "0.1.2.3": false,
		"255.255.255.255": false, "224.0.0.1": false, "240.0.0.1": false, "198.18.0.1": false, "192.0.2.1": false,
		"::": false, "::1": false, "::ffff:127.0.0.1": false, "::ffff:10.0.0.1": false, "fe80::1": false,
		"fe80::1%eth0": false, "fd00::1": false, "fc00::1": false, "ff02::1": false, "64:ff9b::a00:1": false,
		"64:ff9b::7f00:1": false, "2002:7f00:1::1": false, "2002:c0a8:101::1": false, "2001:db8::1": false,
		"::127.0.0.1": false, "2001::1": false,
	} {
		require.Equal(t, want, publicAddr(netip.MustParseAddr(s)), s)
	}
	require.NoError(t, denyControl(context.Background(), "tcp4", "93.184.216.34:443", nil))
	require.NoError(t, denyControl(context.Background(), "tcp6", "[2606:4700:4700::1111]:443", nil))
	err := denyControl(context.Background(), "tcp4", "127.0.0.1:80", nil)
	require.True(t, errors.Is(err, errPrivate))
	require.True(t, errors.Is(checkAddr("not-an-ip:80"), errPrivate))
}

// TestConcurrentSends checks that pooled buffers are never shared: every
// request carries exactly its own batch, also when the receiver answers
// before reading the body.
func TestConcurrentSends(t *testing.T) {
	for _, early := range []bool{false, true} {
		rc := newReceiver(t)
		if early {
			rc.answer = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }
		}
		for _, gz := range []bool{true, false} {
			d := newDest(t, "webhook", map[string]any{"url": rc.URL, "gzip": gz}, Options{})
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 10 {
						ev := Event{Body: []byte(fmt.Sprintf(`{"id":"g%d-i%d","timestamp":1,"pad":"%s"}`, g, i, strings.Repeat("x", 1000*(g+1)))), Timestamp: 1}
						_ = d.Send(context.Background(), Batch{Source: "s", Events: []Event{ev, ev}})
					}
				}()
			}
			wg.Wait()
		}
		reqs := rc.requests()
		require.Len(t, reqs, 160)
		for _, r := range reqs {
			v, ok := decodeJSON(t, r.Body).([]any)
			require.True(t, ok)
			require.Len(t, v, 2)
			require.Equal(t, v[0], v[1])
		}
	}
}

func TestGivenClient(t *testing.T) {
	rc, _ := newTLSReceiver(t)
	rc.answer = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
	// the caller's client (here trusting the test certificate) is used as it is
	d := newDest(t, "otlp", map[string]any{"endpoint": rc.URL + "/v1/logs"}, Options{Client: rc.Client()})
	require.NoError(t, d.Send(context.Background(), Batch{Source: "s", Events: sampleEvents(t)}))
	ok, reason := d.Test(context.Background())
	require.True(t, ok, reason)

	// but redirects are not followed
	d = newDest(t, "webhook", map[string]any{"url": rc.URL + "/moved"}, Options{Client: rc.Client()})
	err := d.Send(context.Background(), Batch{Source: "s"})
	var se *SendError
	require.ErrorAs(t, err, &se)
	require.Equal(t, http.StatusTemporaryRedirect, se.Status)
	require.False(t, se.Retry)
	for _, r := range rc.requests() {
		require.NotEqual(t, "/elsewhere", r.Path)
	}

	// the default client does not trust the test certificate
	d = newDest(t, "webhook", map[string]any{"url": rc.URL}, Options{})
	err = d.Send(context.Background(), Batch{Source: "s"})
	require.ErrorAs(t, err, &se)
	require.Equal(t, 0, se.Status)
	require.Contains(t, se.Msg, "certificate")
}

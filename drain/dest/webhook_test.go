package dest

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWebhookSend(t *testing.T) {
	for _, gz := range []bool{true, false} {
		t.Run(map[bool]string{true: "gzip", false: "plain"}[gz], func(t *testing.T) {
			rc := newReceiver(t)
			d := newDest(t, "webhook", map[string]any{
				"url":  rc.URL + "/hook?x=1",
				"gzip": gz,
				"headers": map[string]any{
					"X-Custom":         "v1",
					"Authorization":    "Bearer s3cret",
					"Content-Type":     "text/plain",
					"content-encoding": "br",
				},
			}, Options{UserAgent: "logq-test/1"})
			evs := sampleEvents(t)
			require.NoError(t, d.Send(context.Background(), Batch{Source: "edge_logs", Events: evs}))

			r := rc.only(t)
			require.Equal(t, http.MethodPost, r.Method)
			require.Equal(t, "/hook?x=1", r.Path)
			require.Equal(t, "application/json", r.Header.Get("Content-Type"))
			require.Len(t, r.Header.Values("Content-Type"), 1)
			require.Equal(t, "v1", r.Header.Get("X-Custom"))
			require.Equal(t, "Bearer s3cret", r.Header.Get("Authorization"))
			require.Equal(t, "logq-test/1", r.Header.Get("User-Agent"))
			if gz {
				require.Equal(t, []string{"gzip"}, r.Header.Values("Content-Encoding"))
				require.NotEqual(t, r.Raw, r.Body)
			} else {
				require.Empty(t, r.Header.Values("Content-Encoding"))
				require.Equal(t, r.Raw, r.Body)
			}

			// the bodies, byte for byte, as a JSON array
			want := append([]byte("["), bytes.Join(func() [][]byte {
				var bs [][]byte
				for _, e := range evs {
					bs = append(bs, e.Body)
				}
				return bs
			}(), []byte(","))...)
			want = append(want, ']')
			require.Equal(t, string(want), string(r.Body))

			got, ok := decodeJSON(t, r.Body).([]any)
			require.True(t, ok)
			require.Len(t, got, len(evs))
			for i, e := range evs {
				require.Equal(t, decodeJSON(t, e.Body), got[i], "event %d", i)
			}
		})
	}
}

func TestWebhookHTTPVersions(t *testing.T) {
	rc, roots := newTLSReceiver(t)
	for _, tc := range []struct {
		http  string
		proto int
	}{{"http1", 1}, {"http2", 2}} {
		d := newDest(t, "webhook", map[string]any{"url": rc.URL, "http": tc.http}, Options{rootCAs: roots})
		require.NoError(t, d.Send(context.Background(), Batch{Source: "s", Events: sampleEvents(t)[:1]}))
		reqs := rc.requests()
		require.Equal(t, tc.proto, reqs[len(reqs)-1].ProtoMajor, tc.http)
		require.Equal(t, string(sampleEvents(t)[0].Body), string(reqs[len(reqs)-1].Body[1:len(reqs[len(reqs)-1].Body)-1]))
	}

	// cleartext is HTTP/1.1 either way
	plain := newReceiver(t)
	d := newDest(t, "webhook", map[string]any{"url": plain.URL, "http": "http2"}, Options{})
	require.NoError(t, d.Send(context.Background(), Batch{Source: "s"}))
	require.Equal(t, 1, plain.only(t).ProtoMajor)
}

func TestWebhookURLUserinfoAndHost(t *testing.T) {
	rc := newReceiver(t)
	u := "http://user:pa%40ss@" + rc.Listener.Addr().String() + "/p"
	d := newDest(t, "webhook", map[string]any{"url": u, "headers": map[string]any{"Host": "example.test"}}, Options{})
	require.NoError(t, d.Send(context.Background(), Batch{Source: "s"}))
	r := rc.only(t)
	require.True(t, r.BasicAuth)
	require.Equal(t, "user", r.User)
	require.Equal(t, "pa@ss", r.Pass)
	require.Equal(t, "example.test", r.Host)
	require.Equal(t, "[]", string(r.Body))
}

func TestWebhookTestConnection(t *testing.T) {
	rc := newReceiver(t)
	d := newDest(t, "webhook", map[string]any{"url": rc.URL, "headers": map[string]any{"x-k": "v"}}, Options{})
	ok, reason := d.Test(context.Background())
	require.True(t, ok)
	require.Empty(t, reason)
	r := rc.only(t)
	require.Equal(t, "[]", string(r.Body))
	require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
	require.Equal(t, "v", r.Header.Get("X-K"))
}

package dest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// edgeEvents makes n events shaped like Supabase's edge logs, about 1 KB
// each.
func edgeEvents(tb testing.TB, n int) []Event {
	base := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC).UnixMicro()
	out := make([]Event, n)
	for i := range out {
		ts := base + int64(i)*1137
		path := fmt.Sprintf("/rest/v1/todos?select=*&order=id.desc&offset=%d", i*10)
		msg := fmt.Sprintf("GET | 200 | 203.0.113.%d | 8a1b2c3d4e5f%04x | https://abcdefghijklmnop.supabase.co%s | Mozilla/5.0 (X11; Linux x86_64)", i%250, i, path)
		body := map[string]any{
			"id":            fmt.Sprintf("6f1c2d3e-4b5a-4c6d-8e7f-%012x", i),
			"timestamp":     ts,
			"event_message": msg,
			"project":       "abcdefghijklmnop",
			"metadata": []any{map[string]any{
				"request": []any{map[string]any{
					"cf": []any{map[string]any{"asn": 13335, "country": "US", "city": "San Francisco", "colo": "SJC", "latitude": "37.78", "longitude": "-122.39", "timezone": "America/Los_Angeles"}},
					"headers": []any{map[string]any{
						"accept": "application/json", "user_agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36",
						"x_client_info": "supabase-js-web/2.45.4", "cf_ray": fmt.Sprintf("8a1b2c3d4e5f%04x-SJC", i), "x_forwarded_proto": "https",
					}},
					"host": "abcdefghijklmnop.supabase.co", "method": "GET", "path": "/rest/v1/todos", "protocol": "https:",
					"search": "?select=*&order=id.desc", "url": "https://abcdefghijklmnop.supabase.co" + path,
				}},
				"response": []any{map[string]any{
					"headers":     []any{map[string]any{"content_type": "application/json; charset=utf-8", "date": "Wed, 06 May 2026 07:08:09 GMT", "x_kong_proxy_latency": "1"}},
					"origin_time": 20 + i%17, "status_code": 200,
				}},
			}},
		}
		b, err := json.Marshal(body)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = Event{Body: b, Timestamp: ts, Message: msg}
	}
	return out
}

func benchSend(b *testing.B, typ string, config func(url string) map[string]any, opts Options, parallel bool) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	if typ == "datadog" {
		opts.intakeURL = srv.URL
	}
	d, err := New(typ, config(srv.URL), opts)
	if err != nil {
		b.Fatal(err)
	}
	evs := edgeEvents(b, MaxBatch)
	size := 0
	for _, e := range evs {
		size += len(e.Body)
	}
	batch := Batch{Source: "edge_logs", Events: evs}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := d.Send(context.Background(), batch); err != nil {
					b.Error(err)
					return
				}
			}
		})
	} else {
		for b.Loop() {
			if err := d.Send(context.Background(), batch); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(evs))/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(size)/float64(len(evs)), "B/event")
}

// BenchmarkWebhookSend250 sends batches of 250 edge-like 1 KB events, gzip
// on, to a local receiver, one request at a time.
func BenchmarkWebhookSend250(b *testing.B) {
	benchSend(b, "webhook", func(u string) map[string]any { return map[string]any{"url": u, "gzip": true} }, Options{}, false)
}

// BenchmarkWebhookSend250Parallel is the same with concurrent requests.
func BenchmarkWebhookSend250Parallel(b *testing.B) {
	benchSend(b, "webhook", func(u string) map[string]any { return map[string]any{"url": u, "gzip": true} }, Options{}, true)
}

func BenchmarkDatadogSend250(b *testing.B) {
	benchSend(b, "datadog", func(string) map[string]any { return map[string]any{"api_key": "k", "region": "US1"} }, Options{}, false)
}

func BenchmarkLokiSend250(b *testing.B) {
	benchSend(b, "loki", func(u string) map[string]any { return map[string]any{"url": u} }, Options{}, false)
}

func BenchmarkOTLPSend250(b *testing.B) {
	benchSend(b, "otlp", func(u string) map[string]any { return map[string]any{"endpoint": u} }, Options{}, false)
}

// BenchmarkEncode measures the bodies alone (no gzip, no HTTP).
func BenchmarkEncode(b *testing.B) {
	evs := edgeEvents(b, MaxBatch)
	batch := Batch{Source: "edge_logs", Events: evs}
	for _, tc := range []struct {
		name string
		enc  func([]byte) []byte
	}{
		{"webhook", func(dst []byte) []byte { return appendWebhook(dst, batch) }},
		{"datadog", func(dst []byte) []byte { return appendDatadog(dst, batch) }},
		{"loki", func(dst []byte) []byte { return appendLoki(dst, batch) }},
		{"otlp", func(dst []byte) []byte { out, _ := appendOTLP(dst, batch, false, time.Now()); return out }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				buf = tc.enc(buf[:0])
			}
			b.ReportMetric(float64(b.N*len(evs))/b.Elapsed().Seconds(), "events/s")
		})
	}
}

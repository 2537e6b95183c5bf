package api

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"

	"logq/fixtures"
	"logq/logstore"
)

// BenchmarkIngestForms posts 500 events a request through each body form;
// events/s is the figure of merit (compare with BenchmarkIngestHTTPEdge).
func BenchmarkIngestForms(b *testing.B) {
	const n = 500
	evs := fixtures.Generate(fixtures.DefaultSpec(n, time.Now()), "cloudflare.logs.prod")
	var syslog, ndjson bytes.Buffer
	otlp := &logspb.ScopeLogs{}
	for i, ev := range evs {
		ndjson.Write(ev)
		ndjson.WriteByte('\n')
		fmt.Fprintf(&syslog, "<14>1 2026-03-14T15:00:%02d.000Z host-%d app %d - - request %d served\n", i%60, i%7, i, i)
		otlp.LogRecords = append(otlp.LogRecords, &logspb.LogRecord{TimeUnixNano: uint64(time.Now().UnixNano()),
			Body:       &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: fmt.Sprintf("request %d served", i)}},
			Attributes: []*common.KeyValue{{Key: "http.status", Value: &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: 200}}}}})
	}
	pb, _ := proto.Marshal(&collogs.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{ScopeLogs: []*logspb.ScopeLogs{otlp}}}})
	array := fixtures.ArrayBody(evs)
	for _, c := range []struct {
		name, path, ctype string
		body              []byte
	}{
		{"array", "/api/logs?source_name=s", "application/json", array},
		{"ndjson", "/logs/json?source_name=s", "application/x-ndjson", ndjson.Bytes()},
		{"syslog", "/api/logs/syslogs?source_name=s", "text/plain", syslog.Bytes()},
		{"otlp", "/v1/logs?source_name=s", "application/x-protobuf", pb},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv := New(Config{Keys: Keys(testKey), Backend: Local(logstore.New(logstore.Options{})), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			srv.SetReady(true)
			hs := httptest.NewServer(srv.Handler())
			defer hs.Close()
			client := hs.Client()
			b.SetBytes(int64(len(c.body)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req, _ := http.NewRequest(http.MethodPost, hs.URL+c.path, bytes.NewReader(c.body))
				req.Header.Set("X-API-KEY", testKey)
				req.Header.Set("Content-Type", c.ctype)
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatal(resp.StatusCode)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/trace"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	"google.golang.org/protobuf/proto"

	"logq/endpoint"
	"logq/logstore"
)

// The official OTLP/HTTP log exporter ships records; they are queried back,
// laid out as Logflare's OtelLog lays them out (lib/logflare/logs/otel_log.ex):
// the record's fields at the top level, metadata {type: "otel_log"}.
func TestOTLPLogsFromTheOfficialExporter(t *testing.T) {
	e, err := endpoint.Parse("otel.yaml", []byte("id: 11111111-2222-4333-8444-000000000777\nname: t.otel\nquery: |\n"+
		"  select timestamp, event_message, severity_text, severity_number, trace_id, span_id, attributes, scope, resource, metadata\n"+
		"  from `otel.src` order by timestamp\n"))
	require.NoError(t, err)
	h := newHarness(t, func(cfg *Config) { cfg.Endpoints = append(cfg.Endpoints, e) })
	ctx := context.Background()
	exp, err := otlploghttp.New(ctx,
		otlploghttp.WithEndpointURL(h.http.URL+"/v1/logs"),
		otlploghttp.WithHeaders(map[string]string{"X-API-KEY": testKey, "X-Source-Name": "otel.src"}),
		otlploghttp.WithCompression(otlploghttp.GzipCompression),
		otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}))
	require.NoError(t, err)
	provider := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewSimpleProcessor(exp)))
	logger := provider.Logger("logq-test", otellog.WithInstrumentationVersion("1.2.3"))

	t1 := time.Date(2026, 3, 14, 15, 0, 0, 123_456_000, time.UTC)
	var r1 otellog.Record
	r1.SetTimestamp(t1)
	r1.SetBody(attribute.StringValue("payment accepted"))
	r1.SetSeverity(otellog.SeverityWarn)
	r1.SetSeverityText("WARN")
	r1.AddAttributes(attribute.String("order.id", "o-17"), attribute.Int("items", 3))
	logger.Emit(ctx, r1)
	var r2 otellog.Record
	r2.SetTimestamp(t1.Add(time.Second))
	r2.SetBody(attribute.MapValue(attribute.String("k", "v")))
	r2.SetSeverity(otellog.SeverityError2)
	r2.SetEventName("checkout.failed")
	// Emitted under a span: the SDK copies its trace and span ids.
	traceID := trace.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c}
	spanID := trace.SpanID{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74}
	logger.Emit(trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID})), r2)
	require.NoError(t, provider.ForceFlush(ctx))
	require.NoError(t, provider.Shutdown(ctx))

	r := h.get("/api/endpoints/query/t.otel")
	require.Equal(t, 200, r.code, string(r.body))
	var out struct{ Result []map[string]any }
	require.NoError(t, json.Unmarshal(r.body, &out))
	got := out.Result
	require.Len(t, got, 2)
	require.Equal(t, float64(t1.UnixMicro()), got[0]["timestamp"])
	require.Equal(t, "payment accepted", got[0]["event_message"], "a string body is the message")
	require.Equal(t, "WARN", got[0]["severity_text"])
	require.Equal(t, float64(13), got[0]["severity_number"], "SeverityWarn is 13 in OTLP")
	require.Equal(t, "", got[0]["trace_id"], "no trace: Logflare's encode16 of no bytes")
	require.Equal(t, []any{map[string]any{"order_id": "o-17", "items": float64(3)}}, got[0]["attributes"])
	scope := got[0]["scope"].([]any)[0].(map[string]any)
	require.Equal(t, "logq-test", scope["name"])
	require.Equal(t, "1.2.3", scope["version"])
	res := got[0]["resource"].([]any)[0].(map[string]any)
	require.Equal(t, "go", res["telemetry_sdk_language"], "the SDK's default resource")
	require.Equal(t, []any{map[string]any{"type": "otel_log"}}, got[0]["metadata"])

	require.Equal(t, float64(t1.Add(time.Second).UnixMicro()), got[1]["timestamp"])
	require.Equal(t, "checkout.failed", got[1]["event_message"], "a body that is not a string: the event name")
	require.Equal(t, float64(18), got[1]["severity_number"], "SeverityError2 is 18")
	require.Equal(t, "", got[1]["severity_text"], "kept as sent")
	require.Equal(t, "5b8efff798038103d269b633813fc60c", got[1]["trace_id"])
	require.Equal(t, "eee19b7ec3c1b174", got[1]["span_id"])
}

// OTLP/JSON writes trace and span ids in hex (not protobuf JSON's base64
// for bytes); they are stored as the same lower-case hex.
func TestOTLPJSONHexIDs(t *testing.T) {
	h := newHarness(t, nil)
	hdr := map[string]string{"X-API-KEY": testKey, "Content-Type": "application/json"}
	body := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[
		{"timeUnixNano":"1773500400000000001","body":{"stringValue":"a"},"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"eee19b7ec3c1b174"},
		{"timeUnixNano":1773500400000000002,"body":{"stringValue":"b"}}]}]}]}`
	r := h.do(http.MethodPost, "/v1/logs?source_name=o.hex", strings.NewReader(body), hdr)
	require.Equal(t, 200, r.code, string(r.body))
	seg := h.store.Snapshot("o.hex").Segments[0]
	require.Equal(t, 2, seg.Rows())
	col := func(p string) *logstore.Column {
		c, err := seg.Column(p)
		require.NoError(t, err)
		return c
	}
	require.Equal(t, "5b8efff798038103d269b633813fc60c", col("trace_id").Str(0))
	require.Equal(t, "eee19b7ec3c1b174", col("span_id").Str(0))
	require.Equal(t, "", col("trace_id").Str(1))
	require.Equal(t, int64(1773500400000000), col("timestamp").Int(1), "a numeric time keeps its digits")
	// Rewriting the ids must not drop what protojson would refuse.
	bad := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1","traceId":"5b8efff798038103d269b633813fc60c"}]}]}]} trailing`
	requireError(t, h.do(http.MethodPost, "/v1/logs?source_name=o.hex", strings.NewReader(bad), hdr), 400, "INVALID_ARGUMENT", "")
}

func TestOTLPRepliesAndRefusals(t *testing.T) {
	h := newHarness(t, nil)
	hdr := map[string]string{"X-API-KEY": testKey, "Content-Type": "application/json"}
	// JSON, one record refused (no body, no time): partial_success says so.
	body := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1773500400000000000","body":{"stringValue":"ok"}},{"severityText":"INFO"}]}]}]}`
	r := h.do(http.MethodPost, "/v1/logs?source_name=o.json", strings.NewReader(body), hdr)
	require.Equal(t, 200, r.code, string(r.body))
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	require.JSONEq(t, `{"partialSuccess":{"rejectedLogRecords":"1","errorMessage":"event 1: a log record needs a body or a time"}}`, string(r.body))
	require.Equal(t, 1, h.store.Snapshot("o.json").Segments[0].Rows())
	// Protobuf reply to a protobuf request.
	pb, err := proto.Marshal(&collogs.ExportLogsServiceRequest{})
	require.NoError(t, err)
	r = h.do(http.MethodPost, "/v1/logs?source_name=o.pb", bytes.NewReader(pb), map[string]string{"X-API-KEY": testKey, "Content-Type": "application/x-protobuf"})
	require.Equal(t, 200, r.code)
	var resp collogs.ExportLogsServiceResponse
	require.NoError(t, proto.Unmarshal(r.body, &resp))
	require.Nil(t, resp.PartialSuccess)
	requireError(t, h.do(http.MethodPost, "/v1/logs?source_name=o.pb", strings.NewReader("\xff\xff garbage"), map[string]string{"X-API-KEY": testKey, "Content-Type": "application/x-protobuf"}), 400, "INVALID_ARGUMENT", "")
	requireError(t, h.do(http.MethodPost, "/v1/logs?source_name=x", bytes.NewReader(pb), nil), 401, "UNAUTHENTICATED", "")
	// Neither protobuf nor JSON: 415, as OTLP/HTTP asks.
	requireError(t, h.do(http.MethodPost, "/v1/logs?source_name=o.pb", bytes.NewReader(pb), map[string]string{"X-API-KEY": testKey, "Content-Type": "text/plain"}), 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type")
	require.Equal(t, 200, h.do(http.MethodPost, "/v1/logs?source_name=o.pb", bytes.NewReader(pb), map[string]string{"X-API-KEY": testKey, "Content-Type": "application/x-protobuf; charset=binary"}).code)
	for _, p := range []string{"/v1/traces", "/v1/metrics"} {
		requireError(t, h.do(http.MethodPost, p, bytes.NewReader(pb), hdr), 501, "UNIMPLEMENTED", "")
	}
}

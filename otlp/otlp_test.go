package otlp

import (
	"testing"

	"github.com/stretchr/testify/require"
	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The hand-written response reads, through the collector's own generated
// message, as the collector would have encoded it.
func TestResponseReadsAsTheCollectorsMessage(t *testing.T) {
	for _, c := range []struct {
		rejected int
		reason   string
	}{{0, ""}, {1, "event 0: a log record needs a body or a time"}, {300, ""}, {2, "é \"quoted\"\n"}} {
		want := &collogs.ExportLogsServiceResponse{}
		if c.rejected > 0 {
			want.PartialSuccess = &collogs.ExportLogsPartialSuccess{RejectedLogRecords: int64(c.rejected), ErrorMessage: c.reason}
		}

		pb, ctype := Response(false, c.rejected, c.reason)
		require.Equal(t, "application/x-protobuf", ctype)
		got := &collogs.ExportLogsServiceResponse{}
		require.NoError(t, proto.Unmarshal(pb, got))
		require.True(t, proto.Equal(want, got), "protobuf %+v: got %v", c, got)
		wantPB, err := proto.Marshal(want)
		require.NoError(t, err)
		require.Equal(t, wantPB, pb, "the same bytes as the generated encoder")

		js, ctype := Response(true, c.rejected, c.reason)
		require.Equal(t, "application/json", ctype)
		got = &collogs.ExportLogsServiceResponse{}
		require.NoError(t, protojson.Unmarshal(js, got))
		require.True(t, proto.Equal(want, got), "json %+v: got %s", c, js)
	}
}

// A request encoded as the collector's ExportLogsServiceRequest decodes
// (it is read as LogsData, the same wire form), in protobuf and in JSON.
func TestDecodeReadsTheCollectorsRequest(t *testing.T) {
	req := &collogs.ExportLogsServiceRequest{ResourceLogs: []*logspb.ResourceLogs{{ScopeLogs: []*logspb.ScopeLogs{{
		LogRecords: []*logspb.LogRecord{
			{TimeUnixNano: 1_767_225_600_000_000_000, Body: &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: "hello"}},
				TraceId: []byte{0xab, 0xcd}, SeverityText: "INFO"},
			{}, // neither body nor time: refused
		}}}}}}
	pb, err := proto.Marshal(req)
	require.NoError(t, err)
	js, err := protojson.Marshal(req)
	require.NoError(t, err)
	for _, c := range []struct {
		body  []byte
		ctype string
	}{{pb, "application/x-protobuf"}, {js, "application/json"}} {
		got, err := Decode(c.body, c.ctype)
		require.NoError(t, err)
		require.Len(t, got.Events, 1)
		require.Equal(t, []int{0}, got.Index)
		require.Len(t, got.Rejects, 1)
		require.Equal(t, 1, got.Rejects[0].Index)
		require.Contains(t, string(got.Events[0]), `"event_message":"hello"`)
		require.Contains(t, string(got.Events[0]), `"timestamp":"2026-01-01T00:00:00Z"`)
		require.Equal(t, c.ctype == "application/json", got.JSON)
	}
	_, err = Decode([]byte("\xff\xff"), "")
	require.Error(t, err)
}

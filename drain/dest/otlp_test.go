package dest

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	logs "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"
)

// goValue turns a received AnyValue into a Go value.
func goValue(v *common.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return x.IntValue
	case *common.AnyValue_DoubleValue:
		return x.DoubleValue
	case *common.AnyValue_BoolValue:
		return x.BoolValue
	case *common.AnyValue_ArrayValue:
		out := []any{}
		for _, e := range x.ArrayValue.Values {
			out = append(out, goValue(e))
		}
		return out
	case *common.AnyValue_KvlistValue:
		return kvMap(x.KvlistValue.Values)
	}
	return nil
}

func kvMap(kvs []*common.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		out[kv.Key] = goValue(kv.Value)
	}
	return out
}

func kvKeys(kvs []*common.KeyValue) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, kv.Key)
	}
	return out
}

// expectValue is the test's own JSON → OTLP value mapping: integers int64,
// other numbers float64.
func expectValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			out[k] = expectValue(val)
		}
		return out
	case []any:
		out := []any{}
		for _, val := range x {
			out = append(out, expectValue(val))
		}
		return out
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// expectFlat flattens nested objects to dotted keys (lists stay).
func expectFlat(prefix string, m map[string]any, out map[string]any) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			expectFlat(key, sub, out)
			continue
		}
		out[key] = expectValue(v)
	}
}

var otlpKnown = []string{"timestamp", "event_message", "attributes", "trace_id", "span_id", "severity_number", "severity_text"}

func receiveOTLP(t *testing.T, r request) *logs.LogsData {
	t.Helper()
	require.Equal(t, "application/x-protobuf", r.Header.Get("Content-Type"))
	got := &logs.LogsData{}
	require.NoError(t, proto.Unmarshal(r.Body, got))
	return got
}

func otlpEvents(t *testing.T) []Event {
	evs := sampleEvents(t)
	return append(evs,
		eventOf(t, map[string]any{
			"id": "otel", "timestamp": int64(1700000000123456), "event_message": "with otel fields",
			"attributes":      map[string]any{"http": map[string]any{"method": "POST"}, "n": 3},
			"trace_id":        "0123456789ABCDEF0123456789abcdef",
			"span_id":         "not-hex!",
			"severity_number": 17,
			"severity_text":   "ERROR",
			"metadata":        map[string]any{"level": "info"},
		}),
		eventOf(t, map[string]any{"id": "nomsg", "timestamp": int64(1700000000000000), "metadata": map[string]any{"parsed": map[string]any{"error_severity": "WARNING"}}}),
	)
}

func TestOTLPSend(t *testing.T) {
	for _, gz := range []bool{true, false} {
		rc := newReceiver(t)
		d := newDest(t, "otlp", map[string]any{
			"endpoint": rc.URL + "/otlp/v1/logs",
			"gzip":     gz,
			"headers":  map[string]any{"Authorization": "Bearer t", "Content-Type": "application/json"},
		}, Options{})
		evs := otlpEvents(t)
		before := uint64(time.Now().UnixNano())
		require.NoError(t, d.Send(context.Background(), Batch{Source: "edge_logs", Events: evs}))
		after := uint64(time.Now().UnixNano())

		r := rc.only(t)
		require.Equal(t, "/otlp/v1/logs", r.Path)
		require.Equal(t, "Bearer t", r.Header.Get("Authorization"))
		require.Len(t, r.Header.Values("Content-Type"), 1)
		if gz {
			require.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
		} else {
			require.Empty(t, r.Header.Get("Content-Encoding"))
		}
		got := receiveOTLP(t, r)
		require.Len(t, got.ResourceLogs, 1)
		rl := got.ResourceLogs[0]
		require.Equal(t, map[string]any{"service.name": "edge_logs"}, kvMap(rl.Resource.Attributes))
		require.Equal(t, "https://opentelemetry.io/schemas/1.26.0", rl.SchemaUrl)
		require.Len(t, rl.ScopeLogs, 1)
		require.Equal(t, "logq", rl.ScopeLogs[0].Scope.GetName())
		recs := rl.ScopeLogs[0].LogRecords
		require.Len(t, recs, len(evs))
		for i, e := range evs {
			rec := recs[i]
			body := decodeObject(t, e.Body)
			require.Equal(t, uint64(e.Timestamp)*1000, rec.TimeUnixNano, "event %d", i)
			require.GreaterOrEqual(t, rec.ObservedTimeUnixNano, before)
			require.LessOrEqual(t, rec.ObservedTimeUnixNano, after)
			msg, _ := body["event_message"].(string)
			require.Equal(t, msg, rec.EventName)
			extra := map[string]any{}
			var keys []string
			for k, v := range body {
				if !contains(otlpKnown, k) {
					extra[k] = expectValue(v)
					keys = append(keys, k)
				}
			}
			sort.Strings(keys) // encoding/json wrote the keys sorted: the kvlist keeps that order
			require.Equal(t, extra, goValue(rec.Body), "event %d", i)
			require.Equal(t, keys, kvKeys(rec.Body.GetKvlistValue().Values))
			if a, ok := body["attributes"].(map[string]any); ok {
				require.Equal(t, expectValue(a), kvMap(rec.Attributes))
			} else {
				require.Empty(t, rec.Attributes)
			}
		}
		// metadata.response.status_code 200..204 → INFO
		require.Equal(t, logs.SeverityNumber_SEVERITY_NUMBER_INFO, recs[0].SeverityNumber)
		o := recs[len(evs)-2]
		require.Equal(t, logs.SeverityNumber(17), o.SeverityNumber) // explicit wins over metadata.level
		require.Equal(t, "ERROR", o.SeverityText)
		require.Equal(t, []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}, o.TraceId)
		require.Equal(t, []byte("not-hex!"), o.SpanId)
		n := recs[len(evs)-1]
		require.Equal(t, logs.SeverityNumber_SEVERITY_NUMBER_WARN, n.SeverityNumber)
		require.Empty(t, n.EventName)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestOTLPFlatten(t *testing.T) {
	rc := newReceiver(t)
	d := newDest(t, "otlp", map[string]any{"endpoint": rc.URL, "flatten_to_attributes": true}, Options{})
	evs := otlpEvents(t)
	require.NoError(t, d.Send(context.Background(), Batch{Source: "s", Events: evs}))
	recs := receiveOTLP(t, rc.only(t)).ResourceLogs[0].ScopeLogs[0].LogRecords
	require.Len(t, recs, len(evs))
	for i, e := range evs {
		body := decodeObject(t, e.Body)
		msg, _ := body["event_message"].(string)
		require.Equal(t, msg, goValue(recs[i].Body))
		require.Empty(t, recs[i].EventName)
		want := map[string]any{}
		if a, ok := body["attributes"].(map[string]any); ok {
			expectFlat("", a, want)
		}
		rest := map[string]any{}
		for k, v := range body {
			if !contains(otlpKnown, k) {
				rest[k] = v
			}
		}
		expectFlat("", rest, want)
		require.Equal(t, want, kvMap(recs[i].Attributes), "event %d", i)
	}
	require.Equal(t, "GET", kvMap(recs[0].Attributes)["metadata.request.method"])
}

func TestOTLPSeverity(t *testing.T) {
	for _, tc := range []struct {
		md   string
		want logs.SeverityNumber
	}{
		{`{"level":"ERROR"}`, logs.SeverityNumber_SEVERITY_NUMBER_ERROR},
		{`{"level":"warning"}`, logs.SeverityNumber_SEVERITY_NUMBER_WARN},
		{`{"level":"notice"}`, logs.SeverityNumber_SEVERITY_NUMBER_INFO},
		{`{"level":"trace"}`, logs.SeverityNumber_SEVERITY_NUMBER_TRACE},
		{`{"level":"debug"}`, logs.SeverityNumber_SEVERITY_NUMBER_DEBUG},
		{`{"level":"panic"}`, logs.SeverityNumber_SEVERITY_NUMBER_FATAL},
		{`{"level":"weird","response":{"status_code":500}}`, logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED},
		{`{"parsed":{"error_severity":"FATAL"},"level":"info"}`, logs.SeverityNumber_SEVERITY_NUMBER_FATAL},
		{`{"parsed":{"error_severity":"log"}}`, logs.SeverityNumber_SEVERITY_NUMBER_INFO},
		{`{"parsed":{"error_severity":"DEBUG3"}}`, logs.SeverityNumber_SEVERITY_NUMBER_DEBUG},
		{`{"parsed":{"error_severity":"ERROR"}}`, logs.SeverityNumber_SEVERITY_NUMBER_ERROR},
		{`{"parsed":{"other":1},"level":"warn"}`, logs.SeverityNumber_SEVERITY_NUMBER_WARN},
		{`{"response":{"status_code":503}}`, logs.SeverityNumber_SEVERITY_NUMBER_ERROR},
		{`{"response":{"status_code":404}}`, logs.SeverityNumber_SEVERITY_NUMBER_WARN},
		{`{"response":{"status_code":301}}`, logs.SeverityNumber_SEVERITY_NUMBER_INFO},
		{`{"response":{"status_code":500.0}}`, logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED},
		{`[{"level":"error"}]`, logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED},
		{`"x"`, logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED},
	} {
		e := Event{Body: []byte(`{"id":"1","timestamp":5,"metadata":` + tc.md + `}`), Timestamp: 5}
		b, err := appendOTLP(nil, Batch{Source: "s", Events: []Event{e}}, false, time.Now())
		require.NoError(t, err)
		got := &logs.LogsData{}
		require.NoError(t, proto.Unmarshal(b, got))
		require.Equal(t, tc.want, got.ResourceLogs[0].ScopeLogs[0].LogRecords[0].SeverityNumber, tc.md)
		require.Equal(t, tc.want, refRecord(e, 0, false).SeverityNumber, tc.md)
	}
}

func TestOTLPTestConnection(t *testing.T) {
	rc := newReceiver(t)
	rc.answer = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }
	d := newDest(t, "otlp", map[string]any{"endpoint": rc.URL + "/v1/logs", "headers": map[string]any{"x-api-key": "k"}}, Options{})
	ok, reason := d.Test(context.Background())
	require.True(t, ok, reason)
	r := rc.only(t)
	require.Equal(t, "k", r.Header.Get("X-Api-Key"))
	got := receiveOTLP(t, r)
	require.Len(t, got.ResourceLogs, 1)
	require.Equal(t, map[string]any{"service.name": "logq"}, kvMap(got.ResourceLogs[0].Resource.Attributes))
	require.Len(t, got.ResourceLogs[0].ScopeLogs, 1)
	require.Empty(t, got.ResourceLogs[0].ScopeLogs[0].LogRecords)
}

func TestOTLPInvalidUTF8(t *testing.T) {
	e := Event{Body: []byte("{\"id\":\"a\xffb\",\"timestamp\":1,\"event_message\":\"m\xfe\",\"k\":\"\\ud800\"}"), Timestamp: 1}
	b, err := appendOTLP(nil, Batch{Source: "s\xff", Events: []Event{e}}, false, time.Now())
	require.NoError(t, err)
	got := &logs.LogsData{}
	require.NoError(t, proto.Unmarshal(b, got))
	rec := got.ResourceLogs[0].ScopeLogs[0].LogRecords[0]
	require.True(t, strings.Contains(rec.EventName, "\uFFFD"))
	require.Equal(t, "a\uFFFDb", kvMap(rec.Body.GetKvlistValue().Values)["id"])
}

// TestOTLPMatchesReference compares the fast encoder with the generated
// types' encoding of the same records, in both modes, over many bodies.
func TestOTLPMatchesReference(t *testing.T) {
	evs := append(otlpEvents(t), edgeEvents(t, 20)...)
	for _, body := range []string{
		`{}`,
		`{"id":"x","timestamp":1}`,
		`{"id":"","timestamp":-5,"event_message":"","severity_number":0,"trace_id":"","span_id":"abc"}`,
		`{"":"empty key","n":null,"t":true,"f":false,"big":123456789012345678901234,"neg":-9223372036854775808,"d":-0.0,"e":1e-7}`,
		`{"arr":[[],[[1,2],[]],{},{"a":{}},null,"s",-1,2.5],"obj":{"x":{"y":{"z":[{"w":1}]}}}}`,
		`{"esc":"\u00e9\ud83d\ude00\n\t\"\\\/\b\f","lone":"\ud800x","k\u00e9y":1}`,
		`{"attributes":{"a":{"b":1},"c":[1]},"metadata":{"x":1}}`,
		`{"attributes":"not an object","severity_number":"3","severity_text":7,"event_message":5}`,
		`{"severity_number":2147483648,"metadata":{"level":"info"}}`,
		`{"severity_number":-2,"trace_id":"0102"}`,
		`{"metadata":{"parsed":{"error_severity":"PANIC"},"level":"debug","response":{"status_code":500}}}`,
		`{"dup":1,"dup":2,"metadata":{"level":"error","level":"info"}}`,
		`{"a":"` + strings.Repeat("long ", 100) + `"}`,
		`{"bad":"\x"}`,
		`{"trunc":[1,2`,
	} {
		evs = append(evs, Event{Body: []byte(body), Timestamp: 1700000000000000})
	}
	now := time.Now()
	for _, flatten := range []bool{false, true} {
		for i, e := range evs {
			b := Batch{Source: "src", Events: []Event{e}}
			fast, err := appendOTLP(nil, b, flatten, now)
			require.NoError(t, err)
			ref, err := refOTLP(nil, b, flatten, now)
			require.NoError(t, err)
			gotFast, gotRef := &logs.LogsData{}, &logs.LogsData{}
			require.NoError(t, proto.Unmarshal(fast, gotFast), "event %d %s", i, e.Body)
			require.NoError(t, proto.Unmarshal(ref, gotRef))
			require.True(t, proto.Equal(gotRef, gotFast), "event %d (flatten %v) %s\nfast %v\nref  %v", i, flatten, e.Body, gotFast, gotRef)
			require.Equal(t, ref, fast, "the same bytes: event %d %s", i, e.Body)
		}
		// a whole batch, and the empty batch of Test
		for _, b := range []Batch{{Source: "src", Events: evs}, {}} {
			fast, _ := appendOTLP(nil, b, flatten, now)
			ref, _ := refOTLP(nil, b, flatten, now)
			require.Equal(t, ref, fast)
		}
	}
}

package otlp

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	common "go.opentelemetry.io/proto/otlp/common/v1"
	logs "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"logq/ingest"
)

// Request is a decoded OTLP/HTTP logs export request.
type Request struct {
	ingest.Batch
	JSON bool // the request was JSON: answer in JSON
}

// DecodeOTLP reads an ExportLogsServiceRequest, protobuf or (when
// contentType is application/json) JSON, into events laid out as Logflare's
// OtelLog lays them out: one per LogRecord, {timestamp (time_unix_nano, else
// observed_time_unix_nano), event_message (the body when it is a string,
// else event_name, else the body as JSON), body, attributes,
// severity_number, severity_text, trace_id and span_id (lower-case hex),
// scope {name, version, attributes}, resource (its attributes), metadata
// {type: "otel_log"}}. A record with neither a body nor a time is refused
// (the export's partial_success counts it). In JSON, trace and span ids are
// hex, as OTLP/JSON writes them, not base64 as protobuf JSON writes bytes.
//
// The body is read as a LogsData message: an ExportLogsServiceRequest has
// the same single field (1, resource_logs) and so the same wire and JSON
// forms, and LogsData comes without the collector's gRPC service.
func Decode(body []byte, contentType string) (*Request, error) {
	req := &logs.LogsData{}
	out := &Request{JSON: strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/json")}
	var err error
	if out.JSON {
		body, err = hexIDsToBase64(body)
		if err == nil {
			err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, req)
		}
	} else {
		err = proto.Unmarshal(body, req)
	}
	if err != nil {
		return nil, &ingest.BodyError{Msg: fmt.Sprintf("the body is not an OTLP ExportLogsServiceRequest: %v", err)}
	}
	i := 0
	for _, rl := range req.GetResourceLogs() {
		resource := attrs(rl.GetResource().GetAttributes())
		for _, sl := range rl.GetScopeLogs() {
			scope := map[string]any{"name": sl.GetScope().GetName(), "version": sl.GetScope().GetVersion(),
				"attributes": attrs(sl.GetScope().GetAttributes())}
			for _, lr := range sl.GetLogRecords() {
				ts := lr.GetTimeUnixNano()
				if ts == 0 {
					ts = lr.GetObservedTimeUnixNano()
				}
				if lr.GetBody() == nil && ts == 0 {
					out.Refuse(i, "a log record needs a body or a time")
					i++
					continue
				}
				body := value(lr.GetBody())
				ev := map[string]any{
					"metadata":        map[string]any{"type": "otel_log"},
					"scope":           scope,
					"resource":        resource,
					"body":            body,
					"attributes":      attrs(lr.GetAttributes()),
					"severity_number": int32(lr.GetSeverityNumber()),
					"severity_text":   lr.GetSeverityText(),
					"trace_id":        hex.EncodeToString(lr.GetTraceId()),
					"span_id":         hex.EncodeToString(lr.GetSpanId()),
				}
				switch b := body.(type) {
				case string:
					ev["event_message"] = b
				default:
					// Logflare takes event_name; a record without one keeps
					// its body as the message rather than an empty one.
					if n := lr.GetEventName(); n != "" {
						ev["event_message"] = n
					} else if b != nil {
						txt, _ := json.Marshal(b)
						ev["event_message"] = string(txt)
					}
				}
				if ts != 0 {
					ev["timestamp"] = time.Unix(0, int64(ts)).UTC().Format(time.RFC3339Nano)
				}
				raw, err := json.Marshal(ev)
				if err != nil {
					out.Refuse(i, "%v", err)
				} else {
					out.Add(i, raw)
				}
				i++
			}
		}
	}
	return out, nil
}

func attrs(kvs []*common.KeyValue) map[string]any {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		out[kv.GetKey()] = value(kv.GetValue())
	}
	return out
}

// value turns an OTLP AnyValue into a JSON value (bytes as base64 text by
// encoding/json's rule for []byte).
func value(v *common.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_BoolValue:
		return x.BoolValue
	case *common.AnyValue_IntValue:
		return x.IntValue
	case *common.AnyValue_DoubleValue:
		return x.DoubleValue
	case *common.AnyValue_BytesValue:
		return x.BytesValue
	case *common.AnyValue_ArrayValue:
		out := make([]any, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, value(e))
		}
		return out
	case *common.AnyValue_KvlistValue:
		return attrs(x.KvlistValue.GetValues())
	}
	return nil
}

// Response encodes the ExportLogsServiceResponse and its content type:
// partial_success (field 1) names how many records were refused
// (rejected_log_records, field 1) and the first reason (error_message,
// field 2); with nothing refused the message is empty, as the collector's
// own encoding leaves it. It is written by hand, in the request's encoding,
// so that this package needs only the logs data messages.
func Response(asJSON bool, rejected int, firstReason string) ([]byte, string) {
	if asJSON {
		if rejected == 0 {
			return []byte("{}"), "application/json"
		}
		// protojson's form: int64 as a decimal string, camelCase names.
		msg, _ := json.Marshal(firstReason)
		return fmt.Appendf(nil, `{"partialSuccess":{"rejectedLogRecords":"%d","errorMessage":%s}}`, rejected, msg), "application/json"
	}
	if rejected == 0 {
		return []byte{}, "application/x-protobuf"
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(rejected))
	if firstReason != "" {
		ps = protowire.AppendTag(ps, 2, protowire.BytesType)
		ps = protowire.AppendString(ps, firstReason)
	}
	out := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(out, ps), "application/x-protobuf"
}

// hexIDsToBase64 rewrites the trace and span ids of an OTLP/JSON logs
// request from hex, which OTLP/JSON prescribes for them, to the base64 that
// protojson reads for every bytes field. An id that is not hex is left as
// it is. Numbers keep their text (a time in nanoseconds may be past 2^53).
func hexIDsToBase64(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON value in the body")
	}
	changed := false
	for _, rl := range arrayAt(doc, "resourceLogs", "resource_logs") {
		for _, sl := range arrayAt(rl, "scopeLogs", "scope_logs") {
			for _, lr := range arrayAt(sl, "logRecords", "log_records") {
				rec, ok := lr.(map[string]any)
				if !ok {
					continue
				}
				for _, k := range []string{"traceId", "trace_id", "spanId", "span_id"} {
					h, ok := rec[k].(string)
					if !ok || h == "" {
						continue
					}
					if raw, err := hex.DecodeString(h); err == nil {
						rec[k] = base64.StdEncoding.EncodeToString(raw)
						changed = true
					}
				}
			}
		}
	}
	if !changed {
		return body, nil
	}
	return json.Marshal(doc)
}

// arrayAt returns the array under the first of keys that o, an object, has.
func arrayAt(o any, keys ...string) []any {
	m, ok := o.(map[string]any)
	if !ok {
		return nil
	}
	for _, k := range keys {
		if a, ok := m[k].([]any); ok {
			return a
		}
	}
	return nil
}

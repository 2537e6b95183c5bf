package ingest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// OTLP is a decoded OTLP/HTTP logs export request.
type OTLP struct {
	Batch
	JSON bool // the request was JSON: answer in JSON
}

// DecodeOTLP reads an ExportLogsServiceRequest, protobuf or (when
// contentType is application/json) JSON, into events: one per LogRecord,
// {timestamp (time_unix_nano, else observed_time_unix_nano), event_message
// (the body: a string as is, any other value as JSON), metadata:
// {severity_text, severity_number, trace_id, span_id, flags, event_name,
// attributes, resource, scope}}. A record with neither a body nor a time is
// refused (the export's partial_success counts it).
func DecodeOTLP(body []byte, contentType string) (*OTLP, error) {
	req := &collogs.ExportLogsServiceRequest{}
	out := &OTLP{JSON: strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "application/json")}
	var err error
	if out.JSON {
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(body, req)
	} else {
		err = proto.Unmarshal(body, req)
	}
	if err != nil {
		return nil, &BodyError{fmt.Sprintf("the body is not an OTLP ExportLogsServiceRequest: %v", err)}
	}
	i := 0
	for _, rl := range req.GetResourceLogs() {
		resource := attrs(rl.GetResource().GetAttributes())
		for _, sl := range rl.GetScopeLogs() {
			scope := map[string]any{"name": sl.GetScope().GetName(), "version": sl.GetScope().GetVersion()}
			if a := sl.GetScope().GetAttributes(); len(a) > 0 {
				scope["attributes"] = attrs(a)
			}
			for _, lr := range sl.GetLogRecords() {
				ts := lr.GetTimeUnixNano()
				if ts == 0 {
					ts = lr.GetObservedTimeUnixNano()
				}
				if lr.GetBody() == nil && ts == 0 {
					out.refuse(i, "a log record needs a body or a time")
					i++
					continue
				}
				meta := map[string]any{"severity_number": int32(lr.GetSeverityNumber()), "attributes": attrs(lr.GetAttributes()),
					"resource": resource, "scope": scope}
				if s := lr.GetSeverityText(); s != "" {
					meta["severity_text"] = s
				} else if lr.GetSeverityNumber() != 0 {
					meta["severity_text"] = severityName(int32(lr.GetSeverityNumber()))
				}
				if id := lr.GetTraceId(); len(id) > 0 {
					meta["trace_id"] = hex.EncodeToString(id)
				}
				if id := lr.GetSpanId(); len(id) > 0 {
					meta["span_id"] = hex.EncodeToString(id)
				}
				if f := lr.GetFlags(); f != 0 {
					meta["flags"] = f
				}
				if n := lr.GetEventName(); n != "" {
					meta["event_name"] = n
				}
				ev := map[string]any{"metadata": meta}
				switch b := value(lr.GetBody()).(type) {
				case nil:
				case string:
					ev["event_message"] = b
				default:
					txt, _ := json.Marshal(b)
					ev["event_message"] = string(txt)
				}
				if ts != 0 {
					ev["timestamp"] = time.Unix(0, int64(ts)).UTC().Format(time.RFC3339Nano)
				}
				raw, err := json.Marshal(ev)
				if err != nil {
					out.refuse(i, "%v", err)
				} else {
					out.add(i, raw)
				}
				i++
			}
		}
	}
	return out, nil
}

// severityName is the OTLP short name of a severity number (1–24).
func severityName(n int32) string {
	names := []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}
	if n < 1 || n > 24 {
		return ""
	}
	name := names[(n-1)/4]
	if k := (n-1)%4 + 1; k > 1 {
		name += fmt.Sprint(k)
	}
	return name
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

// OTLPResponse encodes the ExportLogsServiceResponse: partial_success
// names how many records were refused and the first reason.
func OTLPResponse(asJSON bool, rejected int, firstReason string) ([]byte, string) {
	resp := &collogs.ExportLogsServiceResponse{}
	if rejected > 0 {
		resp.PartialSuccess = &collogs.ExportLogsPartialSuccess{RejectedLogRecords: int64(rejected), ErrorMessage: firstReason}
	}
	if asJSON {
		b, _ := protojson.Marshal(resp)
		return b, "application/json"
	}
	b, _ := proto.Marshal(resp)
	return b, "application/x-protobuf"
}

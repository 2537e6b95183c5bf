package dest

// The reference OTLP encoder: the same records built with the generated
// message types and proto.Marshal. The fast encoder's output must decode
// to the same messages.

import (
	"bytes"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	common "go.opentelemetry.io/proto/otlp/common/v1"
	logs "go.opentelemetry.io/proto/otlp/logs/v1"
	resource "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"
)

// appendOTLP appends the OTLP export: a LogsData (the wire form of an
// ExportLogsServiceRequest) with one ResourceLogs (service.name = the
// source, "logq" for a Test's empty batch), one ScopeLogs (scope "logq")
// and one LogRecord per event.
func refOTLP(dst []byte, b Batch, flatten bool, now time.Time) ([]byte, error) {
	observed := uint64(max(now.UnixNano(), 0))
	recs := make([]*logs.LogRecord, 0, len(b.Events))
	for _, e := range b.Events {
		recs = append(recs, refRecord(e, observed, flatten))
	}
	service := b.Source
	if service == "" {
		service = "logq"
	}
	msg := &logs.LogsData{ResourceLogs: []*logs.ResourceLogs{{
		Resource: &resource.Resource{Attributes: []*common.KeyValue{
			{Key: "service.name", Value: refStringValue(strings.ToValidUTF8(service, "\uFFFD"))},
		}},
		ScopeLogs: []*logs.ScopeLogs{{
			Scope:      &common.InstrumentationScope{Name: "logq"},
			LogRecords: recs,
		}},
		SchemaUrl: otlpSchemaURL,
	}}}
	return proto.MarshalOptions{}.MarshalAppend(dst, msg)
}

// otlpRecord makes an event's LogRecord as Logflare's ProtobufFormatter
// does.
func refRecord(e Event, observed uint64, flatten bool) *logs.LogRecord {
	r := &logs.LogRecord{ObservedTimeUnixNano: observed}
	if e.Timestamp > 0 && e.Timestamp <= math.MaxInt64/1000 {
		r.TimeUnixNano = uint64(e.Timestamp) * 1000
	}
	var (
		extra  []*common.KeyValue
		attrs  []*common.KeyValue
		msg    string
		hasMsg bool
		hasSev bool
	)
	sc := newScanner(e.Body)
	s := &sc
	s.members(func(k []byte, esc bool) {
		key := decodeString(k, esc)
		switch key {
		case "timestamp":
			s.skip() // Event.Timestamp
		case "event_message":
			if s.peek() == '"' {
				raw, esc := s.str()
				msg, hasMsg = decodeString(raw, esc), true
			} else {
				s.skip()
			}
		case "attributes":
			if kv := refAnyValue(s).GetKvlistValue(); kv != nil {
				attrs = kv.Values
			}
		case "trace_id", "span_id":
			if s.peek() != '"' {
				s.skip()
				return
			}
			raw, esc := s.str()
			id := decodeString(raw, esc)
			b, err := hex.DecodeString(id)
			if err != nil {
				b = []byte(id)
			}
			if key == "trace_id" {
				r.TraceId = b
			} else {
				r.SpanId = b
			}
		case "severity_number":
			if v := refAnyValue(s); v.GetValue() != nil {
				if n, ok := v.Value.(*common.AnyValue_IntValue); ok && n.IntValue >= math.MinInt32 && n.IntValue <= math.MaxInt32 {
					r.SeverityNumber, hasSev = logs.SeverityNumber(n.IntValue), true
				}
			}
		case "severity_text":
			if s.peek() == '"' {
				raw, esc := s.str()
				r.SeverityText = decodeString(raw, esc)
			} else {
				s.skip()
			}
		default:
			extra = append(extra, &common.KeyValue{Key: key, Value: refAnyValue(s)})
		}
	})
	if !hasSev {
		r.SeverityNumber = refDeriveSeverity(extra)
	}
	if flatten {
		if hasMsg {
			r.Body = refStringValue(msg)
		} else {
			r.Body = refStringValue("")
		}
		r.Attributes = refFlattenKV(refFlattenKV(nil, "", attrs), "", extra)
		return r
	}
	if hasMsg {
		r.EventName = msg
	}
	r.Attributes = attrs
	r.Body = &common.AnyValue{Value: &common.AnyValue_KvlistValue{KvlistValue: &common.KeyValueList{Values: extra}}}
	return r
}

// flattenKV appends kvs to out, nested objects as dotted keys (lists stay
// lists), as Logflare's flatten_to_attributes mode does.
func refFlattenKV(out []*common.KeyValue, prefix string, kvs []*common.KeyValue) []*common.KeyValue {
	for _, kv := range kvs {
		key := kv.Key
		if prefix != "" {
			key = prefix + "." + key
		}
		if m := kv.Value.GetKvlistValue(); m != nil {
			out = refFlattenKV(out, key, m.Values)
			continue
		}
		out = append(out, &common.KeyValue{Key: key, Value: kv.Value})
	}
	return out
}

// deriveSeverity reads a severity from the body's metadata, in Logflare's
// order: metadata.parsed.error_severity (Postgres), else metadata.level,
// else metadata.response.status_code; the first present decides, even
// when its value is not recognised (then UNSPECIFIED).
func refDeriveSeverity(fields []*common.KeyValue) logs.SeverityNumber {
	md := refKVGet(fields, "metadata").GetKvlistValue()
	if md == nil {
		return logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED
	}
	if p := refKVGet(md.Values, "parsed").GetKvlistValue(); p != nil {
		if v, ok := refKVGet(p.Values, "error_severity").GetValue().(*common.AnyValue_StringValue); ok {
			return postgresSeverity[strings.ToUpper(v.StringValue)]
		}
	}
	if v, ok := refKVGet(md.Values, "level").GetValue().(*common.AnyValue_StringValue); ok {
		return levelSeverity[strings.ToLower(v.StringValue)]
	}
	if resp := refKVGet(md.Values, "response").GetKvlistValue(); resp != nil {
		if v, ok := refKVGet(resp.Values, "status_code").GetValue().(*common.AnyValue_IntValue); ok {
			switch {
			case v.IntValue >= 500:
				return logs.SeverityNumber_SEVERITY_NUMBER_ERROR
			case v.IntValue >= 400:
				return logs.SeverityNumber_SEVERITY_NUMBER_WARN
			}
			return logs.SeverityNumber_SEVERITY_NUMBER_INFO
		}
	}
	return logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED
}

// kvGet returns the value of key in kvs (the last one), or nil.
func refKVGet(kvs []*common.KeyValue, key string) *common.AnyValue {
	for i := len(kvs) - 1; i >= 0; i-- {
		if kvs[i].Key == key {
			return kvs[i].Value
		}
	}
	return nil
}

func refStringValue(s string) *common.AnyValue {
	return &common.AnyValue{Value: &common.AnyValue_StringValue{StringValue: s}}
}

// anyValue reads the JSON value at the cursor as an OTLP AnyValue: string,
// bool, int (an integer that fits in 64 bits), double (another number),
// array, kvlist (in the object's order); null is an empty AnyValue.
func refAnyValue(s *scanner) *common.AnyValue {
	switch c := s.peek(); {
	case c == '{':
		var kvs []*common.KeyValue
		s.members(func(k []byte, esc bool) {
			kvs = append(kvs, &common.KeyValue{Key: decodeString(k, esc), Value: refAnyValue(s)})
		})
		return &common.AnyValue{Value: &common.AnyValue_KvlistValue{KvlistValue: &common.KeyValueList{Values: kvs}}}
	case c == '[':
		var vals []*common.AnyValue
		s.elements(func(int) { vals = append(vals, refAnyValue(s)) })
		return &common.AnyValue{Value: &common.AnyValue_ArrayValue{ArrayValue: &common.ArrayValue{Values: vals}}}
	case c == '"':
		raw, esc := s.str()
		return refStringValue(decodeString(raw, esc))
	case c == '-' || c >= '0' && c <= '9':
		num := s.number()
		if !bytes.ContainsAny(num, ".eE") {
			if n, err := strconv.ParseInt(string(num), 10, 64); err == nil {
				return &common.AnyValue{Value: &common.AnyValue_IntValue{IntValue: n}}
			}
		}
		f, _ := strconv.ParseFloat(string(num), 64)
		return &common.AnyValue{Value: &common.AnyValue_DoubleValue{DoubleValue: f}}
	}
	switch s.literal() {
	case "true":
		return &common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: true}}
	case "false":
		return &common.AnyValue{Value: &common.AnyValue_BoolValue{BoolValue: false}}
	}
	return &common.AnyValue{}
}

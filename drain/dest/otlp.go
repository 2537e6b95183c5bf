package dest

import (
	"bytes"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	logs "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP body is written straight from the events' JSON with protowire,
// with no message structs in between: a body is parsed into a reusable
// tree of nodes whose encoded sizes are known bottom-up, then written
// top-down. The wire form is the generated types' (the tests decode it with
// proto.Unmarshal and compare it with the generated types' encoding).

// otlpSchemaURL is the resource's schema URL (Logflare's).
const otlpSchemaURL = "https://opentelemetry.io/schemas/1.26.0"

// Field numbers of the OTLP messages written here.
const (
	fLogsDataResourceLogs   = 1
	fResourceLogsResource   = 1
	fResourceLogsScopeLogs  = 2
	fResourceLogsSchemaURL  = 3
	fResourceAttributes     = 1
	fScopeLogsScope         = 1
	fScopeLogsLogRecords    = 2
	fScopeName              = 1
	fRecordTime             = 1
	fRecordSeverityNumber   = 2
	fRecordSeverityText     = 3
	fRecordBody             = 5
	fRecordAttributes       = 6
	fRecordTraceID          = 9
	fRecordSpanID           = 10
	fRecordObservedTime     = 11
	fRecordEventName        = 12
	fKeyValueKey            = 1
	fKeyValueValue          = 2
	fAnyString              = 1
	fAnyBool                = 2
	fAnyInt                 = 3
	fAnyDouble              = 4
	fAnyArray               = 5
	fAnyKvlist              = 6
	fArrayValues            = 1
	fKvlistValues           = 1
	bytesType               = protowire.BytesType
	scopeName               = "logq"
	serviceNameKey          = "service.name"
	testServiceName         = "logq"
	otlpMaxTimestampMicros  = math.MaxInt64 / 1000
	otlpUnspecifiedSeverity = logs.SeverityNumber_SEVERITY_NUMBER_UNSPECIFIED
)

// Node kinds.
const (
	nNull uint8 = iota
	nString
	nBool
	nInt
	nDouble
	nArray
	nObject
)

// pnode is one JSON value of a body. Members of an object carry their key.
type pnode struct {
	kind  uint8
	key   []byte // member key (decoded)
	str   []byte // string value (decoded, valid UTF-8)
	num   uint64 // int64 or float64 bits; 1 for true
	first int32  // first child, -1 when none
	next  int32  // next sibling, -1 when none
	inner int    // array/object: the ArrayValue/KeyValueList size
	size  int    // the AnyValue's size
}

// flatAttr is a flatten_to_attributes attribute: a dotted key and a value.
type flatAttr struct {
	k0, k1 int // in otlpEncoder.flatKeys
	node   int32
}

// otlpEncoder holds buffers reused from event to event and batch to batch.
type otlpEncoder struct {
	s        scanner
	nodes    []pnode
	arena    []byte // decoded strings
	recs     []byte // the encoded records of a batch
	flat     []flatAttr
	flatKeys []byte
	path     []byte
}

var otlpPool = sync.Pool{New: func() any { return &otlpEncoder{} }}

// appendOTLP appends the OTLP export: a LogsData (the wire form of an
// ExportLogsServiceRequest) with one ResourceLogs (service.name = the
// source, "logq" for a Test's empty batch; Logflare's schema URL), one
// ScopeLogs (scope "logq") and one LogRecord per event.
func appendOTLP(dst []byte, b Batch, flatten bool, now time.Time) ([]byte, error) {
	enc := otlpPool.Get().(*otlpEncoder)
	defer func() {
		if cap(enc.recs) <= 16<<20 && cap(enc.arena) <= 16<<20 {
			otlpPool.Put(enc)
		}
	}()
	observed := uint64(max(now.UnixNano(), 0))
	enc.recs = enc.recs[:0]
	for i := range b.Events {
		enc.record(&b.Events[i], observed, flatten)
	}

	service := b.Source
	if service == "" {
		service = testServiceName
	}
	service = strings.ToValidUTF8(service, "\uFFFD")
	anySize := sizeBytesField(fAnyString, len(service))
	kvSize := sizeBytesField(fKeyValueKey, len(serviceNameKey)) + sizeBytesField(fKeyValueValue, anySize)
	resourceSize := sizeBytesField(fResourceAttributes, kvSize)
	scopeSize := sizeBytesField(fScopeName, len(scopeName))
	scopeLogsSize := sizeBytesField(fScopeLogsScope, scopeSize) + len(enc.recs)
	rlSize := sizeBytesField(fResourceLogsResource, resourceSize) +
		sizeBytesField(fResourceLogsScopeLogs, scopeLogsSize) +
		sizeBytesField(fResourceLogsSchemaURL, len(otlpSchemaURL))

	dst = appendLen(dst, fLogsDataResourceLogs, rlSize)
	dst = appendLen(dst, fResourceLogsResource, resourceSize)
	dst = appendLen(dst, fResourceAttributes, kvSize)
	dst = appendStringField(dst, fKeyValueKey, serviceNameKey)
	dst = appendLen(dst, fKeyValueValue, anySize)
	dst = appendStringField(dst, fAnyString, service)
	dst = appendLen(dst, fResourceLogsScopeLogs, scopeLogsSize)
	dst = appendLen(dst, fScopeLogsScope, scopeSize)
	dst = appendStringField(dst, fScopeName, scopeName)
	dst = append(dst, enc.recs...)
	dst = appendStringField(dst, fResourceLogsSchemaURL, otlpSchemaURL)
	return dst, nil
}

func sizeBytesField(num protowire.Number, n int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

func appendLen(dst []byte, num protowire.Number, n int) []byte {
	dst = protowire.AppendTag(dst, num, bytesType)
	return protowire.AppendVarint(dst, uint64(n))
}

func appendStringField[T ~string | ~[]byte](dst []byte, num protowire.Number, s T) []byte {
	dst = appendLen(dst, num, len(s))
	return append(dst, s...)
}

// record appends one event's LogRecord (as a ScopeLogs log_records field)
// to enc.recs, as Logflare's ProtobufFormatter builds it: time from the
// timestamp; severity from severity_number, else derived from metadata;
// severity_text; trace and span ids hex-decoded (else their text); default
// mode: event_name = event_message, attributes = the body's "attributes"
// object, body = a kvlist of the other fields; flatten mode: body =
// event_message, attributes = "attributes" and the other fields flattened
// to dotted keys.
func (enc *otlpEncoder) record(e *Event, observed uint64, flatten bool) {
	enc.nodes = enc.nodes[:0]
	enc.arena = enc.arena[:0]
	enc.s = newScanner(e.Body)
	root := int32(-1)
	if enc.s.peek() == '{' {
		root = enc.parse()
	}

	var (
		msg, sevText, traceID, spanID []byte
		hasMsg, hasSev                bool
		sev                           logs.SeverityNumber
		attrs                         = int32(-1)
		extraInner                    int // the body kvlist's size
		metadata                      = int32(-1)
	)
	for c := enc.firstChild(root); c >= 0; c = enc.nodes[c].next {
		n := &enc.nodes[c]
		switch string(n.key) {
		case "timestamp":
		case "event_message":
			if n.kind == nString {
				msg, hasMsg = n.str, true
			}
		case "attributes":
			if n.kind == nObject {
				attrs = c
			}
		case "trace_id":
			if n.kind == nString {
				traceID = enc.hexID(n.str)
			}
		case "span_id":
			if n.kind == nString {
				spanID = enc.hexID(n.str)
			}
		case "severity_number":
			if n.kind == nInt {
				if v := int64(n.num); v >= math.MinInt32 && v <= math.MaxInt32 {
					sev, hasSev = logs.SeverityNumber(v), true
				}
			}
		case "severity_text":
			if n.kind == nString {
				sevText = n.str
			}
		default:
			if string(n.key) == "metadata" {
				metadata = c
			}
			kv := enc.kvSize(c)
			extraInner += sizeBytesField(fKvlistValues, kv)
		}
	}
	if !hasSev {
		sev = enc.deriveSeverity(metadata)
	}

	// attributes, and the body's size
	var attrsSize, bodySize int
	if flatten {
		enc.flat, enc.flatKeys, enc.path = enc.flat[:0], enc.flatKeys[:0], enc.path[:0]
		if attrs >= 0 {
			enc.flattenMembers(attrs, false)
		}
		if root >= 0 {
			enc.flattenMembers(root, true)
		}
		for _, f := range enc.flat {
			attrsSize += sizeBytesField(fRecordAttributes, enc.flatKVSize(f))
		}
		bodySize = sizeBytesField(fAnyString, len(msg))
	} else {
		for c := enc.firstChild(attrs); c >= 0; c = enc.nodes[c].next {
			attrsSize += sizeBytesField(fRecordAttributes, enc.kvSize(c))
		}
		bodySize = sizeBytesField(fAnyKvlist, extraInner)
	}

	var timeNano uint64
	if e.Timestamp > 0 && e.Timestamp <= otlpMaxTimestampMicros {
		timeNano = uint64(e.Timestamp) * 1000
	}
	size := 0
	if timeNano != 0 {
		size += protowire.SizeTag(fRecordTime) + 8
	}
	if sev != otlpUnspecifiedSeverity {
		size += protowire.SizeTag(fRecordSeverityNumber) + protowire.SizeVarint(uint64(int64(sev)))
	}
	if len(sevText) > 0 {
		size += sizeBytesField(fRecordSeverityText, len(sevText))
	}
	size += sizeBytesField(fRecordBody, bodySize)
	size += attrsSize
	if len(traceID) > 0 {
		size += sizeBytesField(fRecordTraceID, len(traceID))
	}
	if len(spanID) > 0 {
		size += sizeBytesField(fRecordSpanID, len(spanID))
	}
	if observed != 0 {
		size += protowire.SizeTag(fRecordObservedTime) + 8
	}
	if !flatten && len(msg) > 0 {
		size += sizeBytesField(fRecordEventName, len(msg))
	}

	d := appendLen(enc.recs, fScopeLogsLogRecords, size)
	if timeNano != 0 {
		d = protowire.AppendTag(d, fRecordTime, protowire.Fixed64Type)
		d = protowire.AppendFixed64(d, timeNano)
	}
	if sev != otlpUnspecifiedSeverity {
		d = protowire.AppendTag(d, fRecordSeverityNumber, protowire.VarintType)
		d = protowire.AppendVarint(d, uint64(int64(sev)))
	}
	if len(sevText) > 0 {
		d = appendStringField(d, fRecordSeverityText, sevText)
	}
	d = appendLen(d, fRecordBody, bodySize)
	if flatten {
		d = appendStringField(d, fAnyString, msg)
		for _, f := range enc.flat {
			d = appendLen(d, fRecordAttributes, enc.flatKVSize(f))
			d = enc.appendKV(d, enc.flatKeys[f.k0:f.k1], f.node)
		}
	} else {
		d = appendLen(d, fAnyKvlist, extraInner)
		for c := enc.firstChild(root); c >= 0; c = enc.nodes[c].next {
			if !otlpKnownKey(enc.nodes[c].key) {
				d = appendLen(d, fKvlistValues, enc.kvSize(c))
				d = enc.appendKV(d, enc.nodes[c].key, c)
			}
		}
		for c := enc.firstChild(attrs); c >= 0; c = enc.nodes[c].next {
			d = appendLen(d, fRecordAttributes, enc.kvSize(c))
			d = enc.appendKV(d, enc.nodes[c].key, c)
		}
	}
	if len(traceID) > 0 {
		d = appendStringField(d, fRecordTraceID, traceID)
	}
	if len(spanID) > 0 {
		d = appendStringField(d, fRecordSpanID, spanID)
	}
	if observed != 0 {
		d = protowire.AppendTag(d, fRecordObservedTime, protowire.Fixed64Type)
		d = protowire.AppendFixed64(d, observed)
	}
	if !flatten && hasMsg && len(msg) > 0 {
		d = appendStringField(d, fRecordEventName, msg)
	}
	enc.recs = d
}

// otlpKnownKey reports whether a top-level key is one a LogRecord field
// takes (and so is not in the body).
func otlpKnownKey(k []byte) bool {
	switch string(k) {
	case "timestamp", "event_message", "attributes", "trace_id", "span_id", "severity_number", "severity_text":
		return true
	}
	return false
}

func (enc *otlpEncoder) firstChild(n int32) int32 {
	if n < 0 {
		return -1
	}
	return enc.nodes[n].first
}

// child returns the member key of object n, or -1.
func (enc *otlpEncoder) child(n int32, key string) int32 {
	if n < 0 || enc.nodes[n].kind != nObject {
		return -1
	}
	found := int32(-1)
	for c := enc.nodes[n].first; c >= 0; c = enc.nodes[c].next {
		if string(enc.nodes[c].key) == key {
			found = c // the last, as a map keeps it
		}
	}
	return found
}

// hexID decodes a trace or span id written in hex; another text is sent as
// it is.
func (enc *otlpEncoder) hexID(s []byte) []byte {
	out := make([]byte, hex.DecodedLen(len(s)))
	if _, err := hex.Decode(out, s); err != nil {
		return s
	}
	return out
}

// deriveSeverity reads a severity from the body's metadata, in Logflare's
// order: metadata.parsed.error_severity (Postgres), else metadata.level,
// else metadata.response.status_code; the first present decides, even
// when its value is not recognised (then UNSPECIFIED).
func (enc *otlpEncoder) deriveSeverity(md int32) logs.SeverityNumber {
	if md < 0 || enc.nodes[md].kind != nObject {
		return otlpUnspecifiedSeverity
	}
	if es := enc.child(enc.child(md, "parsed"), "error_severity"); es >= 0 && enc.nodes[es].kind == nString {
		return postgresSeverity[strings.ToUpper(string(enc.nodes[es].str))]
	}
	if lv := enc.child(md, "level"); lv >= 0 && enc.nodes[lv].kind == nString {
		return levelSeverity[strings.ToLower(string(enc.nodes[lv].str))]
	}
	if sc := enc.child(enc.child(md, "response"), "status_code"); sc >= 0 && enc.nodes[sc].kind == nInt {
		switch v := int64(enc.nodes[sc].num); {
		case v >= 500:
			return logs.SeverityNumber_SEVERITY_NUMBER_ERROR
		case v >= 400:
			return logs.SeverityNumber_SEVERITY_NUMBER_WARN
		}
		return logs.SeverityNumber_SEVERITY_NUMBER_INFO
	}
	return otlpUnspecifiedSeverity
}

var postgresSeverity = map[string]logs.SeverityNumber{
	"PANIC":   logs.SeverityNumber_SEVERITY_NUMBER_FATAL,
	"FATAL":   logs.SeverityNumber_SEVERITY_NUMBER_FATAL,
	"ERROR":   logs.SeverityNumber_SEVERITY_NUMBER_ERROR,
	"WARNING": logs.SeverityNumber_SEVERITY_NUMBER_WARN,
	"NOTICE":  logs.SeverityNumber_SEVERITY_NUMBER_INFO,
	"LOG":     logs.SeverityNumber_SEVERITY_NUMBER_INFO,
	"INFO":    logs.SeverityNumber_SEVERITY_NUMBER_INFO,
	"DEBUG1":  logs.SeverityNumber_SEVERITY_NUMBER_DEBUG,
	"DEBUG2":  logs.SeverityNumber_SEVERITY_NUMBER_DEBUG,
	"DEBUG3":  logs.SeverityNumber_SEVERITY_NUMBER_DEBUG,
	"DEBUG4":  logs.SeverityNumber_SEVERITY_NUMBER_DEBUG,
	"DEBUG5":  logs.SeverityNumber_SEVERITY_NUMBER_DEBUG,
}

var levelSeverity = map[string]logs.SeverityNumber{
	"trace":    logs.SeverityNumber_SEVERITY_NUMBER_TRACE,
	"debug":    logs.SeverityNumber_SEVERITY_NUMBER_DEBUG,
	"info":     logs.SeverityNumber_SEVERITY_NUMBER_INFO,
	"notice":   logs.SeverityNumber_SEVERITY_NUMBER_INFO,
	"warn":     logs.SeverityNumber_SEVERITY_NUMBER_WARN,
	"warning":  logs.SeverityNumber_SEVERITY_NUMBER_WARN,
	"error":    logs.SeverityNumber_SEVERITY_NUMBER_ERROR,
	"critical": logs.SeverityNumber_SEVERITY_NUMBER_FATAL,
	"fatal":    logs.SeverityNumber_SEVERITY_NUMBER_FATAL,
	"panic":    logs.SeverityNumber_SEVERITY_NUMBER_FATAL,
}

// parse reads the value at the cursor into a node (and its children) and
// returns its index, with its sizes computed.
func (enc *otlpEncoder) parse() int32 {
	s := &enc.s
	idx := int32(len(enc.nodes))
	enc.nodes = append(enc.nodes, pnode{first: -1, next: -1})
	var n pnode
	n.first, n.next = -1, -1
	switch c := s.peek(); {
	case c == '{':
		n.kind = nObject
		last := int32(-1)
		s.members(func(k []byte, esc bool) {
			key := enc.decode(k, esc)
			ci := enc.parse()
			enc.nodes[ci].key = key
			if last < 0 {
				n.first = ci
			} else {
				enc.nodes[last].next = ci
			}
			last = ci
			n.inner += sizeBytesField(fKvlistValues, enc.kvSize(ci))
		})
		n.size = sizeBytesField(fAnyKvlist, n.inner)
	case c == '[':
		n.kind = nArray
		last := int32(-1)
		s.elements(func(int) {
			ci := enc.parse()
			if last < 0 {
				n.first = ci
			} else {
				enc.nodes[last].next = ci
			}
			last = ci
			n.inner += sizeBytesField(fArrayValues, enc.nodes[ci].size)
		})
		n.size = sizeBytesField(fAnyArray, n.inner)
	case c == '"':
		n.kind = nString
		raw, esc := s.str()
		n.str = enc.decode(raw, esc)
		n.size = sizeBytesField(fAnyString, len(n.str))
	case c == '-' || c >= '0' && c <= '9':
		num := s.number()
		if !bytes.ContainsAny(num, ".eE") {
			if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
				n.kind, n.num = nInt, uint64(v)
				n.size = protowire.SizeTag(fAnyInt) + protowire.SizeVarint(n.num)
				break
			}
		}
		f, _ := strconv.ParseFloat(string(num), 64)
		n.kind, n.num = nDouble, math.Float64bits(f)
		n.size = protowire.SizeTag(fAnyDouble) + 8
	default:
		switch s.literal() {
		case "true":
			n.kind, n.num = nBool, 1
			n.size = protowire.SizeTag(fAnyBool) + 1
		case "false":
			n.kind = nBool
			n.size = protowire.SizeTag(fAnyBool) + 1
		}
	}
	enc.nodes[idx] = n
	return idx
}

// decode returns a raw string's value: the body's bytes when they need no
// decoding, else a decoded copy in the arena.
func (enc *otlpEncoder) decode(raw []byte, esc bool) []byte {
	if !esc && utf8.Valid(raw) {
		return raw
	}
	start := len(enc.arena)
	enc.arena = appendDecoded(enc.arena, raw)
	return enc.arena[start:len(enc.arena):len(enc.arena)]
}

// kvSize is the size of the KeyValue of member c.
func (enc *otlpEncoder) kvSize(c int32) int {
	return keyValueSize(len(enc.nodes[c].key), enc.nodes[c].size)
}

func (enc *otlpEncoder) flatKVSize(f flatAttr) int {
	return keyValueSize(f.k1-f.k0, enc.nodes[f.node].size)
}

func keyValueSize(keyLen, valueSize int) int {
	size := sizeBytesField(fKeyValueValue, valueSize)
	if keyLen > 0 {
		size += sizeBytesField(fKeyValueKey, keyLen)
	}
	return size
}

// appendKV appends a KeyValue's content.
func (enc *otlpEncoder) appendKV(d, key []byte, c int32) []byte {
	if len(key) > 0 {
		d = appendStringField(d, fKeyValueKey, key)
	}
	d = appendLen(d, fKeyValueValue, enc.nodes[c].size)
	return enc.appendAny(d, c)
}

// appendAny appends an AnyValue's content.
func (enc *otlpEncoder) appendAny(d []byte, c int32) []byte {
	n := &enc.nodes[c]
	switch n.kind {
	case nString:
		d = appendStringField(d, fAnyString, n.str)
	case nBool:
		d = protowire.AppendTag(d, fAnyBool, protowire.VarintType)
		d = protowire.AppendVarint(d, n.num)
	case nInt:
		d = protowire.AppendTag(d, fAnyInt, protowire.VarintType)
		d = protowire.AppendVarint(d, n.num)
	case nDouble:
		d = protowire.AppendTag(d, fAnyDouble, protowire.Fixed64Type)
		d = protowire.AppendFixed64(d, n.num)
	case nArray:
		d = appendLen(d, fAnyArray, n.inner)
		for ch := n.first; ch >= 0; ch = enc.nodes[ch].next {
			d = appendLen(d, fArrayValues, enc.nodes[ch].size)
			d = enc.appendAny(d, ch)
		}
	case nObject:
		d = appendLen(d, fAnyKvlist, n.inner)
		for ch := n.first; ch >= 0; ch = enc.nodes[ch].next {
			d = appendLen(d, fKvlistValues, enc.kvSize(ch))
			d = enc.appendKV(d, enc.nodes[ch].key, ch)
		}
	}
	return d
}

// flattenMembers adds the members of object n as flat attributes, nested
// objects as dotted keys (lists stay lists); top skips the LogRecord's own
// fields.
func (enc *otlpEncoder) flattenMembers(n int32, top bool) {
	base := len(enc.path)
	for c := enc.nodes[n].first; c >= 0; c = enc.nodes[c].next {
		if top && otlpKnownKey(enc.nodes[c].key) {
			continue
		}
		enc.path = enc.path[:base]
		if base > 0 {
			enc.path = append(enc.path, '.')
		}
		enc.path = append(enc.path, enc.nodes[c].key...)
		if enc.nodes[c].kind == nObject {
			enc.flattenMembers(c, false)
			continue
		}
		k0 := len(enc.flatKeys)
		enc.flatKeys = append(enc.flatKeys, enc.path...)
		enc.flat = append(enc.flat, flatAttr{k0, len(enc.flatKeys), c})
	}
	enc.path = enc.path[:base]
}

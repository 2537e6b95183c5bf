// Package otlp decodes OTLP/HTTP logs exports (protobuf, or JSON by
// Content-Type) into ingest batches, and encodes the export's reply.
//
// One event per LogRecord, laid out as Logflare's OtelLog: the record's
// fields at the top level (timestamp, event_message, body, attributes,
// severity_number, severity_text, trace_id, span_id, scope, resource) and
// metadata {type: "otel_log"}; see Decode. A record with neither body nor
// time is refused and counted in the reply's partial_success.
//
// The request is read as the OTLP logs data message (LogsData), which has
// the wire and JSON form of ExportLogsServiceRequest, and the reply
// (ExportLogsServiceResponse) is written by hand: the collector module
// would bring gRPC into the binary for two messages.
//
// Only api imports this package. It imports ingest (Batch, BodyError), the
// OTLP logs data messages and the protobuf runtime.
package otlp

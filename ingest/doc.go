// Package ingest is the ingest contract's body side (CONTRACT.md §3): it
// turns a request body of one of Logflare's ingest forms into raw JSON
// events for the log store, and lists the events it refused, so that api can
// store the good ones and report the bad ones (406) the same way in every
// form. Only a body that is not JSON (or NDJSON, syslog, logplex) at all is a
// *BodyError, which api answers with 400.
//
// Forms, by the path suffix under /logs, /api/logs and /api/events:
//   - "" "/json" "/vector" "/cloudflare": a JSON array of events,
//     {"batch": [events]}, one event object, or NDJSON (one object a line;
//     a line that is not a JSON object is refused, the others kept).
//   - "/syslogs" "/logplex": syslog lines (RFC 5424, or RFC 3164), one a line,
//     or logplex's octet-counted frames ("<len> <syslog line>").
//   - "/cloud-event": events as for "/json", with the CloudEvent attributes
//     of the ce-* headers added (cloudevent.go).
//   - "/browser/reports": browser reports (a Reporting API array, or one CSP
//     report object): each report the metadata of an event whose message is
//     its JSON (browser.go).
//   - Logflare's "/typecasts" is not served (404).
//
// Decisions (Logflare's behaviour where known, else written here):
//   - The message is log_entry, else message, else event_message (Logflare's
//     order); it is written as event_message, first, and log_entry dropped.
//     Events without log_entry or message pass through byte for byte.
//   - A syslog line becomes what Logflare's syslog parser makes of it:
//     {timestamp, event_message (the message, terminal colour codes
//     removed), metadata: {priority, facility and severity (Logflare's
//     names), level (= severity), hostname, appname, process_id,
//     message_id, message_text (as sent), message_raw (the whole line), sd
//     (structured-data elements as {id, name: value…}, plus {id: "json", …}
//     when the message is a JSON object)}}; fields given as "-" are left
//     out. RFC 3164 lines are read too (Logflare reads only RFC 5424). A
//     line that does not parse is refused.
//   - /cloud-event, as Logflare's controller: each event of the body keeps
//     its keys; cloud_event (top level) holds the ce-* headers, named
//     without "ce-" and with "_" for "-"; timestamp is ce-time, else the
//     time of ingest (the body's own timestamp is overwritten, as in
//     Logflare); the attributes are also put in metadata, beside its own
//     keys, so that they read as the other routes' attributes do.
//   - OTLP logs (DecodeOTLP): one event per LogRecord, laid out as
//     Logflare's OtelLog: the record's fields at the top level (timestamp,
//     event_message, body, attributes, severity_number, severity_text,
//     trace_id, span_id, scope, resource) and metadata {type: "otel_log"};
//     see DecodeOTLP. A record with neither body nor time is refused and
//     counted in the reply's partial_success.
//
// One event's bytes (whatever route they came by, and the WAL replayed at
// start-up) are read by the rules here too, which logstore applies as it
// writes fields into columns:
//   - scan.go: a scanner that visits a JSON text in place without building
//     values, and Split, which cuts a well-formed body into raw events (a
//     JSON array, {"batch": [...]}, one object, or NDJSON) at a fraction of
//     encoding/json's cost; splitJSON (split.go) decides what is refused
//     when Split fails.
//   - keys.go: keys made SQL-safe as Logflare makes them.
//   - timestamp.go: ISO 8601 text, or an integer whose digit count gives its
//     unit (seconds, ms, µs, ns).
//   - id.go: generated ids (random per chunk, the same when replayed) and
//     scalar text.
//   - array.go: JSON arrays as boxed ARRAY values.
//
// Which keys are special (timestamp, id, event_message) and how fields
// become columns is logstore's (source.go).
//
// This package imports types, the standard library and the OTLP protobuf
// definitions (go.opentelemetry.io/proto/otlp) only; it never imports
// logstore nor net/http.
package ingest

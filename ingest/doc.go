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
//   - OTLP logs are decoded by package otlp, into the same Batch.
//
// One event's bytes (the scanner that cuts a body into events, keys,
// timestamps, ids, arrays) are read by package event, which every storage
// engine reads them with too; Reject is event's. Which keys are special
// (timestamp, id, event_message) and how fields become columns is event's
// shredding (event.Shredder), which storage engines drive.
//
// This package imports types, event and the standard library only; it never
// imports a storage engine nor net/http.
package ingest

// Package dest owns everything destination-specific about log drains: it
// validates and normalises a drain's config (Validate), hides and restores
// its secrets (Redact, Unredact), and builds, sends and classifies one HTTP
// request per batch (New, Destination.Send), or one test request
// (Destination.Test). The delivery engine (package drain) owns the rest:
// reading the durable log, batching (at most MaxBatch events of one
// source), retries and their backoff, and metrics. It follows Logflare
// HEAD's webhook, datadog, loki and otlp adaptors, with the differences
// listed at the end.
//
// # Requests
//
// Every request is a POST with Content-Type and, when the body is
// gzip-compressed (klauspost/compress, fastest level), Content-Encoding:
// gzip; User-Agent is Options.UserAgent when set. A drain's own headers are
// sent as configured, except Content-Type, Content-Encoding, Content-Length
// and Transfer-Encoding (the body's own are sent); a Host header sets the
// request's host.
//
//   - webhook: to config url. Body: the JSON array of the events' bodies,
//     their bytes copied as they are ([body1,body2,…]); application/json;
//     gzip when config gzip (default true). http "http1" keeps to HTTP/1.1,
//     "http2" (default) lets TLS negotiate HTTP/2; cleartext is HTTP/1.1
//     either way. Userinfo in the URL is sent as basic auth (Go's client
//     does this when no Authorization header is set).
//   - datadog: to the region's intake URL (US1, US3, US5, EU, AP1, AP2,
//     UK1, US1-FED, US2-FED → https://http-intake.logs.<site>/api/v2/logs),
//     header dd-api-key, always gzip, HTTP/2 allowed. Body: a JSON array of
//     {"message": "<time> <message>", "ddsource": "Supabase", "service":
//     <source name>, "data": <body>}, the time as RFC 3339 UTC with 6
//     fractional digits and Z, the message the body's top-level "message"
//     string when it has one, else its event_message, else "".
//   - loki: to config url exactly (the user gives the push path), HTTP/1.1,
//     always gzip, the config headers, and Authorization: Basic
//     base64(username:password) when both are set (it replaces a configured
//     authorization header). Body: {"streams":[{"stream":{"source":
//     "supabase","service":<source name>},"values":[[<timestamp in ns, a
//     decimal string>, <event_message or "">, <structured metadata>],…]}]}
//     where the structured metadata is the body flattened with "_" joining
//     nested keys (list elements keyed by their index, from 0), every leaf a
//     string (strings as they are, numbers as the JSON writes them,
//     true/false, null as "nil"), without "timestamp" and "event_message".
//   - otlp: to config endpoint exactly (nothing appended), HTTP/2 allowed,
//     Content-Type application/x-protobuf, gzip when config gzip (default
//     true). Body: a protobuf LogsData, the wire form of an OTLP
//     ExportLogsServiceRequest (written with protowire; the collector
//     package would bring gRPC into the binary): one ResourceLogs (resource
//     attribute service.name = the source name; schema URL
//     https://opentelemetry.io/schemas/1.26.0), one ScopeLogs (scope name
//     "logq"), one LogRecord per event: time_unix_nano = timestamp × 1000,
//     observed_time_unix_nano = the time of the send, severity_number from
//     the body's severity_number, else from metadata.parsed.error_severity
//     (Postgres levels), else metadata.level, else
//     metadata.response.status_code (≥500 ERROR, ≥400 WARN, else INFO),
//     severity_text from severity_text, trace_id and span_id hex-decoded
//     (their text when not hex). Default mode: event_name = event_message,
//     attributes = the body's "attributes" object, body = a kvlist of every
//     other field (JSON objects → kvlist, arrays → array, integers → int,
//     other numbers → double). With config flatten_to_attributes: body =
//     event_message, attributes = "attributes" and the other fields with
//     nested objects flattened to dotted keys.
//
// Test sends an empty batch as Logflare's test_connection does: webhook and
// datadog "[]", loki {"streams":[]}, otlp an export whose one ScopeLogs has
// no records (service.name "logq").
//
// # Secrets
//
// Redact shows as "REDACTED": webhook header values whose lower-cased name
// is api-key, apikey, authorization, cookie, proxy-authorization,
// webhook-secret, x-access-token, x-amz-security-token, x-api-key,
// x-api-token, x-auth-token, x-hub-signature, x-hub-signature-256,
// x-secret-key, x-signature or x-webhook-secret, and the URL's userinfo
// (https://REDACTED@host/…); the datadog api_key; the loki password and
// loki headers with the webhook's sensitive names (Logflare shows them); otlp
// authorization, x-api-key and x-auth-token headers. Unredact merges a
// submitted config over the stored one (omitted keys keep their stored
// values, a null clears one) and restores the stored secret wherever the
// submission holds "REDACTED": a webhook, loki or otlp header (looked up by
// lower-cased name; dropped when nothing is stored), the webhook URL when
// it is exactly the redacted stored URL, the datadog api_key and the loki
// password (dropped when nothing is stored, so that Validate reports it).
// An update validates the merge: Validate(typ, Unredact(typ, submitted,
// stored)).
//
// # Failures
//
// Send returns nil on a 2xx answer, else a *SendError: Status (0 for a
// transport error), Msg (the status and the first 200 bytes of the answer
// on one line, or the transport error without the URL), RetryAfter (from a
// Retry-After header in seconds or as a date) and Retry: true for transport
// errors (refused or reset connections, timeouts, a cancelled context),
// 408, 425, 429 and 5xx; false for other 4xx, 3xx (redirects are never
// followed), other statuses, and a DenyPrivate refusal. Test reports
// "http_client_error" (4xx), "http_server_error" (5xx),
// "http_unknown_error" (another status), "unknown_error: <text>" (a
// transport error) or "refused: private address".
//
// # DenyPrivate
//
// With Options.DenyPrivate every connection's address is checked as it is
// dialled, after DNS resolution (so a public name resolving to a private
// address, or re-resolving to one later, is refused, and a name with both
// kinds of address reaches only the public ones). Refused: 0/8, 10/8,
// 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.0.2/24,
// 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24,
// 224/4, 240/4 (with 255.255.255.255), ::/96 (with :: and ::1), 100::/64,
// 2001::/32, 2001:db8::/32, 64:ff9b:1::/48, fc00::/7, fe80::/10,
// fec0::/10, ff00::/8; IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4
// (2002::/16) addresses are judged by the IPv4 address they hold. No proxy
// is used then (a proxy would be the address dialled). A caller's
// Options.Client is copied with a checked dialer (its transport must be an
// *http.Transport).
//
// # Differences from Logflare
//
//   - Validation: a URL (webhook url, loki url, otlp endpoint) must also be
//     an http or https URL with a host ("must be an http or https URL";
//     Logflare only checks that the text contains http(s)://, "has invalid
//     format", which logq keeps for text that fails that check). Headers
//     must be an object of at most 20 strings with HTTP-token names, values
//     without control characters, and no name twice in different case
//     (Logflare does not check them; Studio limits them to 20). Only the
//     four types here are accepted ("type": ["is invalid"] for the others).
//     No DNS lookup at validation: Logflare refuses webhook URLs resolving
//     to private addresses when the config is saved, logq refuses them
//     when connecting, and only under DenyPrivate, for every type
//     (self-hosted drains often point at the private network).
//   - "REDACTED" is restored for every type (Logflare only restores the
//     webhook's and would save a datadog api_key "REDACTED").
//   - Delivery failures are classified for retries; Logflare drops failed
//     batches. Redirects are not followed (as Logflare's client).
//   - Content-Encoding configured by the user is never sent (Logflare
//     drops it only when gzip is on), nor Content-Length or
//     Transfer-Encoding.
//   - The default client allows HTTP/2 over TLS where the config asks for
//     http2 (webhook, datadog, otlp); Logflare's pools speak HTTP/1.1 to
//     arbitrary hosts. Timeouts are 10 s to connect and 30 s per request
//     (Logflare: 5 s to receive).
//   - Loki: values are in arrival order (Logflare reverses them); numbers
//     keep their JSON text (Elixir would print 1e3 as "1.0e3"); an empty
//     object or list is "{}" or "[]"; when two leaves flatten to one key the
//     later wins. Only one stream per request (a batch is one source).
//   - Datadog: a top-level "message" that is not a string is ignored
//     (Elixir would interpolate a number).
//   - OTLP: scope "logq" without a version (Logflare: "Logflare" and its
//     version); no service.namespace (logq has no project_ref);
//     observed_time_unix_nano is the send time (Logflare: ingestion time);
//     Test's resource is service.name "logq"; any 2xx counts as connected
//     (Logflare requires a 200 answered in protobuf). Duplicate keys in a
//     body (logq never writes them) are all sent.
//   - logq has no service_name: the source name is the service everywhere.
//
// This package imports the standard library, github.com/klauspost/compress
// (gzip), go.opentelemetry.io/proto/otlp's logs/v1 (severity numbers; the
// common and resource messages only in tests) and
// google.golang.org/protobuf (protowire), and of logq only types (JSON
// string encoding) and event, whose scanner reads the bodies (jsonscan.go
// wraps it: a body that is not JSON is read as far as it is, never
// refused).
package dest

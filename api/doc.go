// Package api is logq's HTTP surface (CONTRACT.md §2, §3, §6): the query API
// for saved endpoints, the Logflare-compatible ingest API, health, readiness
// and Prometheus metrics, API-key authentication, CORS, and the result cache.
//
// Decisions the contract leaves open:
//   - /health, /ready and /metrics need no key, so probes and scrapers work
//     without secrets; everything else needs one (checked before anything else).
//   - A required parameter that is absent or empty fails with 400.
//   - POST parameters may come as a JSON object body; its values must be
//     strings (as every parameter is), anything else is a 400.
//   - A source addressed by UUID (?source=, X-Source, or the "source" key
//     beside "batch" in the body, as logflare-transport-core sends it) is the
//     source whose name-based UUID (version 5, URL namespace,
//     "logq:source:<name>") matches, else a source named by the UUID itself;
//     else 404: creating a source no endpoint reads would lose the events.
//   - A source name is printable UTF-8 of at most MaxSourceName bytes (400).
//   - GET /api/endpoints and /api/sources list what exists (behind the key);
//     source event times there are RFC 3339 strings, not µs: people read them.
//   - The source of every ingest route, OTLP included, is read where
//     Logflare's fetch_resource plug reads it (?source_name= or
//     ?collection_name=, else ?source= or ?collection=, else the X-Source or
//     X-Collection header); logq also takes an X-Source-Name header and the
//     body's "source". Unlike Logflare, a ?source= that is not a UUID is
//     taken as a name, and a name is created on first use.
//   - OTLP/HTTP logs at POST /v1/logs (protobuf, or JSON by Content-Type;
//     gzip or zstd). The reply is an
//     ExportLogsServiceResponse in the request's encoding, 200, with
//     partial_success counting refused records. /v1/traces and /v1/metrics
//     answer 501: logq stores logs only.
//   - Ingest bodies are decoded by package ingest, per route suffix; the
//     refusals of decoding and of the store are merged into one 406 list,
//     numbered by the event's position in the body.
//   - Concurrent queries are bounded by a semaphore; a call that finds it full
//     gets 429 at once rather than queueing. Cache hits do not take a slot.
//   - A cache refresh that succeeds replaces the entry, whose lifetime then
//     starts again; a refresh that fails drops it.
//   - A sandboxed endpoint called with a non-empty sql= runs the caller's
//     SELECT in place of its own final SELECT (sandbox.go), under the same
//     concurrency bound, time limit and max rows, logged and metered under
//     the endpoint's name, and never cached (Logq-Cache: bypass). An empty
//     sql= is the same as none. A refusal is 400 INVALID_ARGUMENT with
//     location line:col in the caller's SQL. A non-empty sql= to an
//     endpoint that is not sandboxed is 400 INVALID_ARGUMENT with location
//     sql, saying how to sandbox it (endpoint.Endpoint.CallerQuery):
//     answering the endpoint's own rows would pass them off as the
//     caller's query's. (CONTRACT.md §2 said "ignores"; docs/sandbox.md.)
//   - A query past its memory budget (Config.QueryMemory) is 400 with reason
//     resourcesExceeded, as BigQuery answers: the query is at fault and a
//     retry would fail again, so neither 429 nor 5xx.
//   - FLOAT64 NaN and ±Inf, which JSON cannot carry, are encoded as the
//     strings "NaN", "Infinity" and "-Infinity", as BigQuery does; BYTES as base64.
//   - Routes are defined once (routes.go) with their methods: an unknown path
//     is 404 and a known path with a wrong method 405 with Allow, both in the
//     error shape and before the key is checked (they reveal nothing); OPTIONS
//     is a CORS preflight (204) only on a known path.
//   - The request line plus headers may be 64 KiB (MaxHeaderBytes); more is
//     a JSON 431. net/http's own plain-text 431 only answers above 4 MiB.
//   - Every 429 and 503 carries Retry-After: 1 (writeError is the one place).
//   - Draining (Drain, on SIGTERM) turns /ready to 503 while the API still
//     answers, so load balancers stop sending before the listener closes.
//   - Responses of 1 KiB or more are zstd- or gzip-compressed when the client
//     accepts it (zstd preferred); every response says Vary: Accept-Encoding.
//   - /metrics comes from prometheus/client_golang. Label values come only
//     from bounded sets: route templates ("other" when no route matched),
//     configured endpoint names ("other" for unknown names and requests
//     without a valid key; "ingest" for ingest), status codes, and the
//     first Config.MaxSourceLabels source names (later sources, and a
//     source literally named "other", are counted together as "other").
//
// Runtime errors from exec are mapped to statuses in one place (errors.go).
//
// Storage is a Backend (backend.go): queries run over it as an
// exec.Storage, events go in and sources are listed through it as a
// storage.Engine. Local wraps the local store, whose data-directory metrics
// are exported only then. Ingest into a source past the engine's limit is
// 400 tooManySources; an ingest the engine cannot store is 503, whose
// message names no server path (the log line does).
//
// This package imports exec, endpoint, event, ingest, otlp, storage,
// logstore (for Local) and types, never fixtures.
package api

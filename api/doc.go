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
//   - A source addressed by UUID (?source= or X-Source) is the source whose
//     name-based UUID (version 5, URL namespace, "logq:source:<name>") matches,
//     else a source named by the UUID itself.
//   - Concurrent queries are bounded by a semaphore; a call that finds it full
//     gets 429 at once rather than queueing. Cache hits do not take a slot.
//   - A cache refresh that succeeds replaces the entry, whose lifetime then
//     starts again; a refresh that fails drops it.
//   - A sandboxed endpoint called with a non-empty sql= runs the caller's
//     SELECT in place of its own final SELECT (sandbox.go), under the same
//     concurrency bound, time limit and max rows, logged and metered under
//     the endpoint's name, and never cached (Logq-Cache: bypass). An empty
//     sql= is the same as none. A refusal is 400 INVALID_ARGUMENT with
//     location line:col in the caller's SQL. Endpoints that are not
//     sandboxed ignore sql=.
//   - A query past its memory budget (Config.QueryMemory) is 400 with reason
//     resourcesExceeded, as BigQuery answers: the query is at fault and a
//     retry would fail again, so neither 429 nor 5xx.
//   - FLOAT64 NaN and ±Inf, which JSON cannot carry, are encoded as the
//     strings "NaN", "Infinity" and "-Infinity", as BigQuery does; BYTES as base64.
//
// Runtime errors from exec are mapped to statuses in one place (errors.go).
// This package imports exec, endpoint, logstore, planner and types, never fixtures.
package api

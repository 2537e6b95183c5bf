// Package clickhouse is logq's second storage engine: events kept in a
// ClickHouse server or cluster, reached over its HTTP interface, with logq
// a stateless front (any number of instances serve the same rows).
//
// It implements storage.Engine (ingest, sources, stats) and exec.Storage
// (queries). Events are shredded by the same event.Tree as the local
// store's, so keys, ids, timestamps, types, widening, the field cap and
// refusals are decided by one piece of code for both engines; the rows go
// to one table per source (schema.go says its columns, ingest.go how they
// are written, retry.go how a failed insert is retried without storing
// a row twice). A query binds against the schema read back from the
// table's columns; each plan node that can be written exactly in the SQL
// of the oldest supported server (18.16) runs there (translate.go), and
// exec's operators run the rest over the streamed rows (view.go).
//
// The package talks HTTP as a client (client.go, the standard library's
// net/http); it serves nothing. docs/clickhouse.md is the operator's view:
// the layout and why, what runs where, what a 200 and a 503 promise.
package clickhouse

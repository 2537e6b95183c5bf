// Package event reads one log event's bytes, the same way for every route
// it arrives by and every storage engine that keeps it. It is a leaf: it
// imports types and the standard library only, so that ingest (the body
// forms), logstore (the local engine) and any other storage engine share it
// without pulling in each other.
//
// What it owns:
//   - scan.go: a JSON scanner that visits a text in place without building
//     values (strings decoded, or as written with RawStr and decoded later
//     with AppendUnescaped: the drains' encoders read bodies so), and Split,
//     which cuts a well-formed body into raw events (a JSON array,
//     {"batch": [...]}, one object, or NDJSON).
//   - keys.go: keys made SQL-safe as Logflare makes them.
//   - timestamp.go: ISO 8601 text, or an integer whose digit count gives its
//     unit (seconds, ms, µs, ns).
//   - id.go: generated ids (random per chunk, the same when replayed).
//   - array.go: JSON arrays as boxed ARRAY values.
//   - body.go, body_clean.go: AppendBody, one event as drains send it and
//     the tail shows it (fixed fields first, keys made safe). A nested value
//     that is already as the body writes it (compact, safe unique keys) is
//     checked in one pass and copied whole; any other is written token by
//     token.
//   - reject.go: Reject, one refused event, as api reports it (406).
//   - tree.go, shred.go, fieldcap.go, schema.go: shredding. A source's Tree
//     holds its field paths and their types; Tree.Shred walks one event,
//     decides its timestamp, id and message, makes and widens fields under
//     the field cap, and hands each value, converted to its field's kind,
//     to a Sink that the storage engine provides (logstore's writes columns
//     of its open segment). Tree.Schema is what queries bind against. Every
//     rule an engine must agree on to give the same schema (key
//     sanitising, first key wins, widening, shape conflicts in
//     "<key>__json", overflow past the cap) is decided here, once; shred.go
//     lists them.
//
// A Tree is not safe for concurrent use; its owner serialises Shred and
// Schema (logstore holds the source's lock). Schema returns an immutable
// value that any goroutine may read.
package event

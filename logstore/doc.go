// Package logstore holds log events as columnar segments, grouped by named
// source, and hands consistent snapshots of them to queries. A store made by
// New lives in memory; one made by Open lives in a data directory, where an
// event's life is: WAL record (fsynced before Ingest returns, one fsync for
// every request waiting: wal.go) → open segment in memory → sealed segment
// file (segfile.go; rows sorted by time, sort.go; its WAL file then deleted)
// read on demand through a bounded column cache (colcache.go; each column's
// checksum checked on first read, every file's by a scrub after a start:
// scrub.go) → merged with
// its small neighbours (merge.go) → deleted by retention or the disk budget
// (retention.go). Start-up and
// recovery are in datadir.go; docs/storage.md has the formats and the
// recovery policy.
//
// Storage model (BigQuery's, which saved queries are written for; CONTRACT.md §3):
// every top-level key of an event is a column; `timestamp` (TIMESTAMP), `id`
// and `event_message` (STRING) always exist. A JSON object nested anywhere is
// an ARRAY<STRUCT> of exactly one element, so it is stored column-wise by field
// path ("metadata.request.url"), plus a presence column for the object itself.
// Arrays are stored as whole values. Keys are made SQL-safe: every byte
// outside [A-Za-z0-9_] becomes '_', and a key starting with a digit gets a
// leading '_'. When two keys of one object are equal after that (or repeat),
// the first value is kept.
//
// Segments. Ingest writes into one open segment per source; in a durable
// store a request goes whole into one segment (source.go), so it is stored
// or refused whole. At SegmentRows rows (or its memory budget) the segment
// is retired and sealed outside the source lock, on a background goroutine when one of two slots is free (a read-only
// view stands in meanwhile): immutable from then on, so queries read it
// without locks. Each segment records its minimum and maximum timestamp
// (queries skip segments outside their time range).
//
// Columns and encodings (column.go, column_open.go). A column's values are
// in one encoding, each its own type with its own reader, its own writer of
// segment-file parts and its own loader, so the in-memory and on-disk forms
// are one: integers (enc_ints.go) are eight bytes a value while open, then a
// base plus 0-, 1-, 2- or 4-byte deltas; strings (enc_dict.go, enc_plain.go,
// compress.go) a dictionary while values repeat, else plain bytes, which
// sealing compresses with zstd in blocks of 1024 values when that saves a
// third; floats and arrays (enc_other.go) as they are. NULLs are a mask
// beside them (nulls.go). A column stores only its rows [lo, hi) and reads
// the others as NULL: a field first seen at row r of an open segment stores
// nothing for the r rows before it, and sealing keeps only the span from a
// column's first value to its last, so one event with hundreds of new keys
// costs its own values, open and sealed. Within the span, a row that lacks
// the field stores a NULL in it (bounded by the field cap and the segment's
// memory budget).
//
// Visibility. Snapshot takes the source lock only long enough to copy slice
// headers of the open segment; appends never overwrite rows a snapshot can see
// (they only add past its length, and type changes copy), so a query sees every
// event whose Append returned before the snapshot and never waits on ingest.
// While no row has been written or rolled back since, a snapshot gets the
// view the one before took (Segment.gen), not a new copy of the headers.
//
// Field types. A path's SQL type is fixed by the first non-null value seen in
// the source, then widened, never narrowed, when a later value disagrees:
// INT64 meeting a fraction becomes FLOAT64; a scalar meeting a scalar of
// another kind becomes STRING (values read back as their JSON text). Sealed
// segments keep their physical type and are converted as they are read, so no
// value is lost. A path first seen as an object that later receives a scalar or
// an array (or the reverse) stores that value as JSON text in the STRING
// column "<key>__json" beside it.
//
// Retention: a snapshot carries the cutoff (NotBefore) and queries never
// return rows older than it; whole segments whose newest event is older are
// dropped with their files. Memory held is accounted per segment (Stats).
//
// What an event stores (key sanitising, the fixed fields, types and their
// widening, shape conflicts, the field cap) is decided by package event's
// shredding (event.Tree.Shred), which every storage engine shares; this
// package keeps a source's event.Tree, persists it in segment files, and
// writes the shredded values into the open segment's columns (shred.go).
//
// It implements storage.Engine (Ingest, Names, Stats); queries read it
// through exec.Local. Sources are bounded (Options.MaxSources, and the
// process's file limit for a data directory), and so are the segment files
// held open (openfiles.go).
//
// This package imports types, event, storage, the standard library, zstd
// and golang-lru.
package logstore

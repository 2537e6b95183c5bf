// Package drain forwards events to drains: Logflare's backends (where:
// a destination type and its config) and rules (which events: one source
// each and an LQL string), kept in a ConfigStore, and an engine that
// delivers each acknowledged event a rule matches, at least once, from the
// store's feed (storage.Feed).
//
// The Manager is what api's management routes call (Logflare's
// /api/backends and /api/rules, which Supabase Studio's Log Drains page
// uses): it checks what a request asks (422s keyed as Logflare keys them),
// applies it to a copy of the config, saves it and makes the engine run
// what the config asks. The engine (engine.go) runs one stream per
// (backend, source): it reads the source's feed from its position, builds
// each event's body (event.AppendBody), keeps those its rules match
// (package lql), sends batches through package dest and moves its position
// only once a batch is taken. Positions are saved (Positions) and held in
// the feed (storage.Holds), so that a durable store keeps, in its spool,
// the WAL files a drain still needs, across restarts.
//
// docs/drains.md says what each type sends, the delivery promise in each
// storage mode, and the metrics.
//
// This package imports storage, event, lql and drain/dest, and net/http
// only through dest: it is beside api, above storage.
package drain

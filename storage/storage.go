package storage

import (
	"errors"

	"logq/event"
)

// Engine is a storage engine as the server uses it beside queries (which
// read it through exec.Storage): it takes events and says what it holds.
//
// Who calls: api's ingest handlers and listings, any number at once;
// implementations are safe for concurrent use.
type Engine interface {
	// Ingest stores events (raw JSON objects, as event.Split cuts them) in
	// the named source, making the source on first use. Each event is
	// shredded by event.Tree.Shred; those it refuses are returned, numbered
	// by their index in events, and the others stored. A nil error means
	// every accepted event is durable and visible to any query that starts
	// afterwards. An error means nothing of the call may be acknowledged:
	// errors.Is(err, ErrTooManySources) when the source would be one too
	// many (the caller's fault), anything else when the engine could not
	// store them now (retry later). The engine keeps none of the events of
	// a failed call, unless its documentation says otherwise.
	//
	// The events' bytes are not kept past the call.
	Ingest(source string, events [][]byte) (accepted int, rejects []event.Reject, err error)
	// Names lists the sources, sorted.
	Names() []string
	// Stats says what each source holds, sorted by name.
	Stats() []SourceStats
}

// SourceStats describes what one source holds.
type SourceStats struct {
	Name     string
	Events   int   // events held now
	Ingested int64 // events accepted since this process started
	Segments int   // storage units (the local store's segments; 0 where the engine has none)
	Bytes    int64 // bytes held, estimated
	// Overflowed counts keys kept in __overflow fields because the source
	// was at its field cap.
	Overflowed int64
	// First and Last are the oldest and newest event times (µs) held;
	// meaningful only when Events > 0.
	First, Last int64
}

// ErrTooManySources refuses an event for a new source once the engine holds
// as many sources as it is allowed (the server's --max-sources).
var ErrTooManySources = errors.New("too many sources")

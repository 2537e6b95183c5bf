package storage

import (
	"sync"

	"logq/event"
)

// Feed is every source's log of acknowledged events in the order they were
// acknowledged, as chunks (Record): what drains deliver and the tail
// follows. The local store's durable feed is its write-ahead log (a reader
// that falls behind keeps the files it still needs, Holds); a store in
// memory, and the ClickHouse engine, keep a bounded Ring of recent chunks.
//
// Who calls: the drain engine and tail handlers, any number at once;
// implementations are safe for concurrent use.
type Feed interface {
	// FeedHead returns the position just past source's newest acknowledged
	// chunk: a reader that starts there sees only what comes next.
	FeedHead(source string) Pos
	// ReadFeed reads source's chunks from the position from, up to about
	// maxEvents events (at least one chunk when there is one), and returns
	// them with the position after the last. Lost counts the events between
	// from and the first chunk returned that are kept no more (retention,
	// the disk budget, a memory feed's bound). The chunks' bytes belong to
	// the caller.
	ReadFeed(source string, from Pos, maxEvents int) (recs []Record, next Pos, lost int64, err error)
	// FeedBacklog counts the events of source's chunks from the position
	// from to the head (what a reader there has still to read).
	FeedBacklog(source string, from Pos) (int64, error)
	// FeedChanged returns a channel that is closed the next time any
	// source's head moves (then the caller asks again for a new one).
	FeedChanged() <-chan struct{}
	// FeedHolds returns where readers say which chunks they still need, or
	// nil for a feed that keeps a fixed budget whatever readers need.
	FeedHolds() *Holds
}

// Pos is a position in a source's feed: a WAL file (the segment it holds)
// and the byte offset of a chunk in it. A Ring numbers its chunks in Off
// and counts in Seq the events before the chunk. Positions of one source
// order by (Seq, Off) either way.
type Pos struct {
	Seq uint64 `json:"seq"`
	Off int64  `json:"off"`
}

// Less reports whether p comes before q.
func (p Pos) Less(q Pos) bool { return p.Seq < q.Seq || p.Seq == q.Seq && p.Off < q.Off }

// Record is one acknowledged chunk of a request: its events as received
// (raw JSON objects, refused ones included: event.Body refuses them again)
// and what names and times the events that carry no id or timestamp
// (event.Origin: the arrival, the seed, and each event's index here).
type Record struct {
	Arrival int64 // µs since the epoch
	Seed    [16]byte
	MaxAge  int64 // µs: the retention the chunk was ingested under (0: none)
	Events  [][]byte
	Next    Pos // the position just after this chunk
}

// Origin is what event i of the chunk was ingested with: a reader that
// turns it into a body (event.AppendBody) refuses exactly the events the
// ingest refused.
func (r *Record) Origin(i int) event.Origin {
	return event.Origin{Arrival: r.Arrival, Seed: r.Seed, Index: uint64(i), MaxAge: r.MaxAge}
}

// Holds records, for each source, the oldest feed position each reader
// (a drain, named by the caller) still needs, so that a durable feed keeps
// the files from there on; and the events of those files it had to drop
// anyway (retention, the disk budget), counted as lost to each reader that
// still needed them. A nil *Holds holds nothing.
type Holds struct {
	mu   sync.Mutex
	need map[string]map[string]Pos // source → holder → position
	lost map[string]map[string]int64
}

// NewHolds returns an empty Holds.
func NewHolds() *Holds {
	return &Holds{need: map[string]map[string]Pos{}, lost: map[string]map[string]int64{}}
}

// Set says holder still needs source's feed from p on.
func (h *Holds) Set(source, holder string, p Pos) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.need[source]
	if m == nil {
		m = map[string]Pos{}
		h.need[source] = m
	}
	m[holder] = p
}

// Release says holder needs nothing more of source.
func (h *Holds) Release(source, holder string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.need[source], holder)
	if len(h.need[source]) == 0 {
		delete(h.need, source)
	}
	delete(h.lost[source], holder)
}

// Needs reports whether some holder still needs the chunks of source's WAL
// file seq.
func (h *Holds) Needs(source string, seq uint64) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.need[source] {
		if p.Seq <= seq {
			return true
		}
	}
	return false
}

// Holders returns each holder of source with the position it needs.
func (h *Holds) Holders(source string) map[string]Pos {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]Pos, len(h.need[source]))
	for k, p := range h.need[source] {
		out[k] = p
	}
	return out
}

// AddLost counts n events of source that holder needed and the feed
// dropped.
func (h *Holds) AddLost(source, holder string, n int64) {
	if h == nil || n <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.lost[source]
	if m == nil {
		m = map[string]int64{}
		h.lost[source] = m
	}
	m[holder] += n
}

// TakeLost returns, and forgets, the events of source lost to holder.
func (h *Holds) TakeLost(source, holder string) int64 {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.lost[source][holder]
	delete(h.lost[source], holder)
	return n
}

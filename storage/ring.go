package storage

import (
	"sync"
	"time"
)

// Ring is a Feed kept in memory: the most recent chunks of every source,
// within a byte budget (the oldest chunk, of any source, goes first). A
// store that keeps nothing on disk, and the ClickHouse engine (whose
// instances deliver what each acknowledged), feed their readers from one;
// a reader that falls further behind than the budget loses the events it
// missed, counted. A restart forgets everything.
type Ring struct {
	mu      sync.Mutex
	maxAge  int64 // µs, given to every Record
	budget  int64
	bytes   int64
	sources map[string]*ringSource
	order   []ringRef // every kept chunk, oldest first (a queue: head is dropped)
	head    int
	changed chan struct{}
}

type ringSource struct {
	recs []ringRec // oldest first; recs[i].n == first + i
	next uint64    // the number of the next chunk
	cum  uint64    // events in every chunk so far
}

type ringRec struct {
	n, cum uint64 // the chunk's number, and the events before it
	rec    Record
	bytes  int64
}

type ringRef struct {
	src *ringSource
	n   uint64
}

// NewRing returns a Ring that keeps about budget bytes of events ingested
// under the retention maxAge (0: none; Record.MaxAge).
func NewRing(budget int64, maxAge time.Duration) *Ring {
	return &Ring{budget: budget, maxAge: maxAge.Microseconds(), sources: map[string]*ringSource{}, changed: make(chan struct{})}
}

// Add appends a chunk to source's feed: events (copied) that arrived at
// arrival (µs) with the seed that named those without an id.
func (r *Ring) Add(source string, arrival int64, seed [16]byte, events [][]byte) {
	if len(events) == 0 {
		return
	}
	size := int64(64)
	for _, ev := range events {
		size += int64(len(ev)) + 24
	}
	buf := make([]byte, 0, size)
	evs := make([][]byte, len(events))
	for i, ev := range events {
		start := len(buf)
		buf = append(buf, ev...)
		evs[i] = buf[start:len(buf):len(buf)]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sources[source]
	if s == nil {
		s = &ringSource{}
		r.sources[source] = s
	}
	rr := ringRec{n: s.next, cum: s.cum, rec: Record{Arrival: arrival, Seed: seed, MaxAge: r.maxAge, Events: evs}, bytes: size}
	s.next++
	s.cum += uint64(len(events))
	rr.rec.Next = Pos{Seq: s.cum, Off: int64(s.next)}
	s.recs = append(s.recs, rr)
	r.order = append(r.order, ringRef{s, rr.n})
	r.bytes += size
	for r.bytes > r.budget && r.head < len(r.order)-1 {
		r.evictOldest()
	}
	if r.head > 1024 && r.head*2 > len(r.order) {
		r.order = append([]ringRef(nil), r.order[r.head:]...)
		r.head = 0
	}
	close(r.changed)
	r.changed = make(chan struct{})
}

// evictOldest drops the oldest chunk. Called with mu held.
func (r *Ring) evictOldest() {
	ref := r.order[r.head]
	r.order[r.head] = ringRef{}
	r.head++
	s := ref.src
	if len(s.recs) == 0 || s.recs[0].n != ref.n {
		return
	}
	r.bytes -= s.recs[0].bytes
	s.recs[0] = ringRec{}
	s.recs = s.recs[1:]
}

// FeedHead implements Feed.
func (r *Ring) FeedHead(source string) Pos {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.sources[source]; s != nil {
		return Pos{Seq: s.cum, Off: int64(s.next)}
	}
	return Pos{}
}

// ReadFeed implements Feed.
func (r *Ring) ReadFeed(source string, from Pos, maxEvents int) ([]Record, Pos, int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sources[source]
	if s == nil || uint64(from.Off) >= s.next {
		return nil, from, 0, nil
	}
	var lost int64
	i := 0
	if len(s.recs) > 0 {
		first := s.recs[0]
		if uint64(from.Off) < first.n {
			lost = int64(first.cum) - int64(from.Seq) // the events of the chunks dropped since
			from = Pos{Seq: first.cum, Off: int64(first.n)}
		}
		i = int(uint64(from.Off) - first.n)
	} else {
		// every chunk was dropped
		return nil, Pos{Seq: s.cum, Off: int64(s.next)}, int64(s.cum) - int64(from.Seq), nil
	}
	var out []Record
	events := 0
	for ; i < len(s.recs) && (len(out) == 0 || events+len(s.recs[i].rec.Events) <= maxEvents); i++ {
		rec := s.recs[i].rec
		rec.Events = append([][]byte(nil), rec.Events...) // the bytes are never written again
		out = append(out, rec)
		events += len(rec.Events)
		from = rec.Next
	}
	return out, from, lost, nil
}

// FeedChanged implements Feed.
func (r *Ring) FeedChanged() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

// FeedHolds implements Feed: a Ring keeps its budget whatever readers need.
func (r *Ring) FeedHolds() *Holds { return nil }

// FeedBacklog implements Feed: a Ring counts in Pos.Seq the events before
// a position.
func (r *Ring) FeedBacklog(source string, from Pos) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.sources[source]; s != nil && s.cum > from.Seq {
		return int64(s.cum - from.Seq), nil
	}
	return 0, nil
}

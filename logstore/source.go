package logstore

import (
	"crypto/rand"
	"sync"
	"sync/atomic"
	"time"

	"logq/event"
)

// Source is one named stream of events (a Logflare "source").
type Source struct {
	name string

	mu      sync.Mutex
	sealed  []*Segment       // copy-on-write: replaced, never modified in place
	pending map[*Segment]int // retired segments being sealed → position of their view
	open    *Segment
	// openView is the view of open the last snapshot took (nil once open
	// is replaced): a query after a query with no event between them gets
	// the same view, not a copy of every column's header again.
	openView *Segment
	tree     *event.Tree // the fields events have made (schema, field cap)
	sink     segSink     // writes shredded events into the open segment
	events   int64       // accepted since start
	rows     int
	opts     *Options
	sealer   *sealer
	store    *Store
	wal      *wal // nil when the store is in memory only
	// warned tells whether reaching the field cap has been logged.
	warned      bool
	merging     atomic.Bool // a merge pass or a retention trim runs (merge.go)
	mergeWanted atomic.Bool // a merge was asked for since the last pass began
	seq         uint64      // the open segment's number (its WAL file's)
	// walGen is the WAL generation the open segment matches; a failed fsync
	// starts a new one, and the open segment is then rebuilt from its file
	// (dropUndone).
	walGen uint64
	// base is the field tree (encodeNode) when everything in it was last
	// known durable: at the start, and at each retire. Segment files carry
	// it, and rebuildOpen starts from it, so that fields and types that
	// refused events brought leave with them, as a restart forgets them.
	base []byte
	// mustRebuild says the open segment may hold events its WAL file does
	// not (a write failed beside the apply, or a rebuild itself failed):
	// nothing is ingested or retired until rebuildOpen succeeds.
	mustRebuild bool
	// writeFirstUntil (unix ns) is set after a WAL write failed: until
	// then chunks are written before they are applied, so that while the
	// disk refuses now and then, a refused chunk costs no rebuild.
	writeFirstUntil int64
	// repairErr is why the last attempt to repair the source (cut its WAL
	// file back, rebuild its open segment) failed; none is made again
	// before repairAt (unix ns, the store's clock), repairDelay after it.
	repairErr   error
	repairAt    int64
	repairDelay time.Duration
}

// Name returns the source's name.
func (s *Source) Name() string { return s.name }

// ingest stores events; see Store.Ingest. In a durable store a request goes
// whole into one segment, as one WAL record (every WAL file holds exactly
// one segment's events), so that it is stored or refused whole: a refused
// request leaves nothing behind, and a client's retry doubles nothing. It
// goes into the open segment unless that would take the segment past half
// again SegmentRows (or the segment is past its memory budget); the open
// segment is then retired first. A segment is retired once a request leaves
// it at SegmentRows or more, so segments hold up to 1.5 × SegmentRows events
// (one request more than that for a request larger than a segment), and
// merges join the small ones that early retirements leave. A store in
// memory, which cannot refuse part of a request, cuts a request at segment
// boundaries instead.
//
// The record is written and applied to memory under the source lock (so
// replay sees records in the order queries did). The write, and then its
// fsync, run on another goroutine while the events are applied, so that the
// copy into the page cache (which the kernel throttles under writeback) and
// the disk work beside the decoding. A record whose write fails is taken
// back before the lock is released, by rebuilding the open segment and the
// field tree from the WAL as a restart would (rebuildOpen); for a while
// after that, records are written first. The reply waits for the fsync (or
// a later one: every request waiting at that moment shares it) after the
// lock is released.
func (s *Source) ingest(events [][]byte, arrival time.Time) (accepted int, rejects []event.Reject, err error) {
	var (
		full []*Segment
		pos  walPos // the request's record
	)
	// A straggler after Close must not retire or seal anything: the
	// directory may already belong to another store. Close waits for the
	// ingests under way, and the seals they start, before it closes.
	s.store.closeMu.RLock()
	defer s.store.closeMu.RUnlock()
	if s.store.closing.Load() {
		return 0, nil, errClosed
	}
	s.mu.Lock()
	if s.wal != nil {
		// A failed fsync (another request's) or a rebuild that could not
		// be done: the open segment must match its file before it grows.
		if err := s.dropUndoneLocked(); err != nil {
			s.mu.Unlock()
			return 0, nil, err
		}
	}
	for start := 0; err == nil && start < len(events); {
		n := len(events) - start // durable: the whole request
		if s.wal == nil {
			n = min(n, s.opts.SegmentRows-s.open.rows)
		}
		if s.open.rows > 0 && (s.open.rows >= s.opts.SegmentRows || s.overBudget() ||
			s.open.rows+n > s.opts.SegmentRows+s.opts.SegmentRows/2) {
			seg, rerr := s.retire()
			if seg != nil {
				full = append(full, seg)
			}
			if err = rerr; err != nil {
				break
			}
			if s.wal == nil {
				n = min(len(events)-start, s.opts.SegmentRows)
			}
		}
		b := walBatch{arrival: arrival.UnixMicro(), events: events[start : start+n]}
		_, _ = rand.Read(b.seed[:])
		var acc int
		var rej []event.Reject
		pos, acc, rej, err = s.writeAndApply(&b, start)
		accepted += acc
		rejects = append(rejects, rej...)
		start += n
	}
	if err == nil && (s.open.rows >= s.opts.SegmentRows || s.overBudget()) {
		// This request's events are in the segment retired here, made
		// durable (or dropped) by retire's fsync: their fate is read from
		// their own WAL positions below. A failed rotation only leaves the
		// next append to make the new file.
		if seg, _ := s.retire(); seg != nil {
			full = append(full, seg)
		}
	}
	s.mu.Unlock()
	// Sealing (narrowing, compressing) takes milliseconds per segment: do it
	// outside the lock, so queries and other appends do not wait for it, and
	// on another goroutine when one is free, so the appender does not either.
	for _, seg := range full {
		s.sealer.run(func() { s.seal(seg) })
	}
	if err == nil && s.wal != nil && len(events) > 0 {
		if err = s.wal.sync(pos); err != nil {
			s.dropUndone()
		}
	}
	return accepted, rejects, err
}

// writeFirstFor is how long records are written before they are applied
// after a write failed: a rebuild replays up to a segment's events, which
// should happen once per episode of a full disk, not once per refused
// request.
const writeFirstFor = 10 * time.Second

// writeAndApply writes one request's record to the WAL, when the source has
// one, and applies it to the open segment: both, or (with an error)
// neither. Called with mu held.
func (s *Source) writeAndApply(b *walBatch, index0 int) (p walPos, accepted int, rejects []event.Reject, err error) {
	switch {
	case s.wal == nil:
		accepted, rejects = s.apply(b, index0)
	case time.Now().UnixNano() < s.writeFirstUntil:
		if p, err = s.wal.append(b); err != nil {
			return p, 0, nil, err // nothing applied
		}
		go func() { _ = s.wal.sync(p) }() // its outcome is read by the ingest's sync
		accepted, rejects = s.apply(b, index0)
	default:
		written := make(chan error, 1)
		go s.writeAhead(b, &p, written)
		accepted, rejects = s.apply(b, index0)
		if err = <-written; err != nil {
			s.writeFirstUntil = time.Now().Add(writeFirstFor).UnixNano()
			s.mustRebuild = true // until the rebuild succeeds: nothing goes on
			_ = s.rebuildOpen()
			return p, 0, nil, err
		}
	}
	return p, accepted, rejects, nil
}

// writeAhead writes b's WAL record, sets *p and reports the outcome on done,
// then starts the record's fsync, whose outcome the ingest's own sync reads.
func (s *Source) writeAhead(b *walBatch, p *walPos, done chan<- error) {
	pos, err := s.wal.append(b)
	*p = pos
	done <- err
	if err == nil {
		_ = s.wal.sync(pos)
	}
}

// overBudget reports whether the open segment holds more memory than its
// budget allows. Called with mu held.
func (s *Source) overBudget() bool {
	if s.opts.MaxOpenBytes <= 0 || s.open.rows == 0 {
		return false
	}
	// An estimate in O(1): the events' own bytes, plus a value slot and a
	// NULL flag for every cell (rows × columns), which is what wide, sparse
	// events cost an open segment.
	est := s.open.rawBytes + int64(s.open.rows)*int64(len(s.open.cols))*9
	return est > s.opts.MaxOpenBytes
}

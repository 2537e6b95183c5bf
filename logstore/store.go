package logstore

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"logq/event"
	"logq/storage"
)

// Options configure a Store.
type Options struct {
	// SegmentRows is the number of events at which an open segment is sealed.
	SegmentRows int
	// Retention drops segments whose newest event is older than this; 0 keeps all.
	Retention time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives recovery and storage warnings; nil discards them.
	Logger *slog.Logger
	// CacheBytes bounds the memory of columns read from segment files
	// (durable stores); 0 means DefaultCacheBytes.
	CacheBytes int64
	// MaxFields bounds a source's field paths; keys past it are kept in
	// __overflow columns (event/fieldcap.go). 0 means event.DefaultMaxFields.
	MaxFields int
	// MaxDiskBytes bounds the bytes of a durable store's files: past it the
	// oldest sealed segments, of any source, are dropped; 0 means no bound.
	MaxDiskBytes int64
	// noMerge holds merges back (tests that need unmerged files).
	noMerge bool
	// noScrub skips the start-up scrub (tests of damage met by a query).
	noScrub bool
	// onMergePassEnd, when set, runs as a merge pass ends, before it lets
	// go of the source's merging flag, and onMergeReturn as any call of
	// merge returns (tests of requests made meanwhile).
	onMergePassEnd, onMergeReturn func()
	// MaxOpenBytes seals a source's open segment early once it holds this
	// much memory (wide or large events), so the open segments stay within
	// a memory budget; 0 means only SegmentRows seals.
	MaxOpenBytes int64
	// MaxSources bounds the sources; a new one past it is refused
	// (storage.ErrTooManySources). 0 means DefaultMaxSources. A durable
	// store may allow fewer, as the process's file limit does (openfiles.go).
	MaxSources int
	// MaxOpenFiles bounds the segment files a durable store holds open at
	// once; 0 means a quarter of the process's file limit (openfiles.go).
	MaxOpenFiles int
	// Holds says which WAL files the feed's readers (drains) still need: a
	// durable store spools those instead of deleting them (feed.go). Set it
	// before Open, which seals what it replays (nil: Open makes an empty
	// one).
	Holds *storage.Holds
	// FeedBytes bounds the recent chunks a store in memory keeps for its
	// feed's readers; 0 means DefaultFeedBytes.
	FeedBytes int64
}

// DefaultFeedBytes is the memory feed's budget when none is given.
const DefaultFeedBytes = 32 << 20

// DefaultCacheBytes is the column cache's budget when none is given.
const DefaultCacheBytes = 256 << 20

// DefaultSegmentRows balances scan granularity (time pruning skips whole
// segments) against per-segment overhead.
const DefaultSegmentRows = 1 << 16

// Store holds every source. It is safe for concurrent use.
type Store struct {
	opts    Options
	mu      sync.RWMutex
	sources map[string]*Source
	sealer  *sealer

	// Durable stores only (Open): the data directory, its lock, the seam
	// for file writes, and what recovery found.
	dir      string
	lock     *os.File
	fs       fileSystem
	recMu    sync.Mutex // recovery changes after start-up too (scrub.go)
	recovery RecoveryStats
	scrubbed chan struct{} // closed when the start-up scrub has finished
	closing  atomic.Bool
	// closeMu is held shared by every ingest under way and exclusively by
	// Close, so that Close waits for them (and the seals they start).
	closeMu sync.RWMutex
	cache   *colCache
	files   *openFiles // the budget of open segment files
	// maxSources bounds the sources (Options.MaxSources, or fewer, as
	// limitWhy says, for the file limit).
	maxSources int
	limitWhy   string
	segBytes   atomic.Int64 // bytes of segment files held
	trimming   atomic.Bool  // a disk-budget pass is running
	bg         sync.WaitGroup
	mergeMu    sync.Mutex
	merges     MergeStats

	// The feed (feed.go): readers waiting for a WAL's durable end to move,
	// a store in memory's ring of recent chunks, and the spool's bytes.
	feedMu     sync.Mutex
	feedCh     chan struct{}
	ring       *storage.Ring
	spoolBytes atomic.Int64
}

// sealer runs seals in the background, a bounded number at a time; when all
// slots are busy the caller seals itself, which bounds the backlog of
// uncompressed segments.
type sealer struct {
	slots chan struct{}
	wg    sync.WaitGroup
}

func (s *sealer) run(seal func()) {
	select {
	case s.slots <- struct{}{}:
		s.wg.Add(1)
		go func() {
			defer func() { <-s.slots; s.wg.Done() }()
			seal()
		}()
	default:
		seal()
	}
}

// wait blocks until background seals have finished.
func (s *sealer) wait() { s.wg.Wait() }

// New returns an empty store.
func New(opts Options) *Store {
	if opts.SegmentRows <= 0 {
		opts.SegmentRows = DefaultSegmentRows
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxFields <= 0 {
		opts.MaxFields = event.DefaultMaxFields
	}
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.FeedBytes <= 0 {
		opts.FeedBytes = DefaultFeedBytes
	}
	s := &Store{opts: opts, sources: make(map[string]*Source), sealer: &sealer{slots: make(chan struct{}, 2)}, fs: osFS{}, cache: newColCache(opts.CacheBytes)}
	s.maxSources, s.limitWhy = opts.sourceLimit(false, 0)
	return s
}

// Source returns the named source, or nil.
func (s *Store) Source(name string) *Source {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.sources[name]
}

// source returns the named source, making it when it is new, unless the
// store holds its limit of sources already (a start loads every source it
// finds, beyond the limit too: their events are kept).
func (s *Store) source(name string, limited bool) (*Source, error) {
	if src := s.Source(name); src != nil {
		return src, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.sources[name]
	if src == nil && limited && len(s.sources) >= s.maxSources {
		return nil, fmt.Errorf("%w: this store holds its limit of %d sources%s", storage.ErrTooManySources, s.maxSources, s.limitWhy)
	}
	if src == nil {
		src = &Source{name: name, open: newSegment(), opts: &s.opts, pending: map[*Segment]int{}, sealer: s.sealer, store: s}
		src.tree = src.newTree()
		src.seq, src.open.seq = 1, 1
		if s.dir != "" {
			// The directory and first file are made by the first append, so
			// a full disk is an ingest error (503), not a lost source.
			src.base = encodeTree(nil, src.tree)
			src.wal = &wal{dir: filepath.Join(s.dir, "sources", encodeName(name)), fs: s.fs, genEnd: map[uint64]int64{}, seq: 1, tree: src.base, notify: s.feedMoved}
		}
		s.sources[name] = src
	}
	return src, nil
}

// Ingest stores events (raw JSON objects) in the named source, creating the
// source on first use. Events that are not valid JSON objects are refused and
// reported; the others are stored. When Ingest returns without error, every
// accepted event is visible to any snapshot taken afterwards and, for a store
// opened on a data directory, on disk (fsynced). An error means the events
// could not be made durable and must not be acknowledged; they are not kept
// (a failed fsync rebuilds the open segment from its WAL: Source.dropUndone),
// except the earlier chunks of a request cut across a segment boundary (one
// of more than an eighth of SegmentRows events). Close waits for ingests
// under way; one after it fails without touching anything.
func (s *Store) Ingest(source string, events [][]byte) (accepted int, rejects []event.Reject, err error) {
	src, err := s.source(source, true)
	if err != nil {
		return 0, nil, err
	}
	return src.ingest(events, s.opts.Now())
}

// Append is Ingest for callers that only want counts (tools and tests): when
// the events cannot be made durable, each is reported refused with the
// reason.
func (s *Store) Append(source string, events [][]byte) (accepted int, rejects []event.Reject) {
	accepted, rejects, err := s.Ingest(source, events)
	if err != nil {
		rejects = rejects[:0]
		for i := range events {
			rejects = append(rejects, event.Reject{Index: i, Reason: err.Error()})
		}
		return 0, rejects
	}
	return accepted, rejects
}

// Durable reports whether the store writes to a data directory.
func (s *Store) Durable() bool { return s.dir != "" }

// Recovery reports what opening the data directory found damaged.
func (s *Store) Recovery() RecoveryStats {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	return s.recovery
}

// errClosed refuses an ingest after Close.
var errClosed = errors.New("the store is closed")

// Close makes everything written durable, closes the WAL files and releases
// the data directory. Appends fail afterwards.
func (s *Store) Close() error {
	s.closing.Store(true)
	s.closeMu.Lock() // ingests under way finish; later ones see closing
	defer s.closeMu.Unlock()
	s.sealer.wait()
	s.bg.Wait()
	var first error
	for _, name := range s.Names() {
		src := s.Source(name)
		src.mu.Lock()
		if src.wal != nil {
			if err := src.wal.close(); err != nil && first == nil {
				first = err
			}
		}
		for _, seg := range src.sealed {
			if seg.disk != nil {
				seg.disk.close()
			}
		}
		src.mu.Unlock()
	}
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	return first
}

// Names lists the sources, sorted.
func (s *Store) Names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.sources))
	for n := range s.sources {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Snapshot is a consistent, read-only view of one source.
type Snapshot struct {
	Segments []*Segment
	Schema   *event.Schema
	// NotBefore is the retention cutoff (µs) when the snapshot was taken:
	// rows older than it must not be returned, whichever segment holds them
	// (an open segment, or one a future-dated event keeps from being
	// dropped). math.MinInt64 when nothing expires.
	NotBefore int64
}

// Snapshot returns the current contents of the named source; an unknown source
// gives an empty snapshot (its fields are unknown, so every field reads NULL).
func (s *Store) Snapshot(source string) Snapshot {
	src := s.Source(source)
	if src == nil {
		return Snapshot{Schema: event.EmptySchema(), NotBefore: math.MinInt64}
	}
	return src.snapshot()
}

func (src *Source) snapshot() Snapshot {
	src.mu.Lock()
	defer src.mu.Unlock()
	segs := src.sealed
	if src.open.rows > 0 {
		if v := src.openView; v == nil || v.retiredFrom != src.open || v.gen != src.open.gen {
			src.openView = src.open.view()
		}
		segs = append(segs[:len(segs):len(segs)], src.openView)
	}
	return Snapshot{Segments: segs, Schema: src.tree.Schema(), NotBefore: src.opts.notBefore()}
}

// Stats reports per-source counts and memory, sorted by name.
func (s *Store) Stats() []storage.SourceStats {
	var out []storage.SourceStats
	for _, name := range s.Names() {
		src := s.Source(name)
		src.mu.Lock()
		st := storage.SourceStats{Name: name, Events: src.rows, Ingested: src.events, Segments: len(src.sealed), Overflowed: src.tree.Overflowed}
		first := true
		for _, seg := range append(src.sealed[:len(src.sealed):len(src.sealed)], src.open) {
			if seg.rows == 0 {
				continue
			}
			if lo, hi := seg.TimeRange(); first {
				st.First, st.Last, first = lo, hi, false
			} else {
				st.First, st.Last = min(st.First, lo), max(st.Last, hi)
			}
		}
		for _, seg := range src.sealed {
			if seg.retiredFrom != nil {
				st.Bytes += seg.openBytes() // still being sealed
			} else {
				st.Bytes += seg.bytes
			}
		}
		st.Bytes += src.open.openBytes()
		if src.open.rows > 0 {
			st.Segments++
		}
		src.mu.Unlock()
		out = append(out, st)
	}
	return out
}

// Flush seals every open segment and waits for background seals, e.g. after
// a bulk load, so that all data is in its compact form.
func (s *Store) Flush() error {
	var first error
	for _, name := range s.Names() {
		src := s.Source(name)
		src.mu.Lock()
		if err := src.sealOpen(); err != nil && first == nil {
			first = err
		}
		src.mu.Unlock()
	}
	s.sealer.wait()
	return first
}

package logstore

import (
	"container/list"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
)

// Descriptors. A durable store holds one WAL file open per source, and
// segment files while queries read them; the server around it needs
// descriptors for its connections too. So that the listener always has some
// to accept with, the store keeps within a share of the process's limit on
// open files (RLIMIT_NOFILE, which Go raises to its hard limit at start):
//
//   - segment files: at most a quarter of the limit (Options.MaxOpenFiles)
//     are open at once; the least recently read is closed when another
//     must open, and reopened by path when read again;
//   - sources: at most the limit less that quarter and another quarter
//     (kept for connections and the rest), and at most Options.MaxSources;
//     a source past it is refused (storage.ErrTooManySources).
//
// A segment whose file is about to be unlinked or replaced (retention, a
// merge, damage) is pinned first: its file is opened if it was closed, and
// stays open, outside the budget, for the queries that still hold the
// segment, until nothing refers to it (a cleanup closes it then).

// DefaultMaxSources bounds the sources of a store when Options.MaxSources
// is 0: far beyond the nine of a self-hosted Supabase.
const DefaultMaxSources = 1000

// fileLimit is the process's limit on open files (0 when unknown).
func fileLimit() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return int(min(r.Cur, 1<<30))
}

// descriptorBudgets splits a limit of n open files: segment files may hold
// a quarter (at least 16), another quarter (at least 64) is kept for
// connections and everything else, and sources' WAL files may use the
// rest. n = 0 (unknown) bounds nothing by descriptors.
func descriptorBudgets(n int) (segFiles, sources int) {
	if n <= 0 {
		return 1 << 20, 1 << 30
	}
	segFiles = max(16, n/4)
	return segFiles, max(1, n-segFiles-max(64, n/4))
}

// sourceLimit returns the store's bound on sources and, when the file
// limit lowered it, says so (for the refusal's message).
func (o *Options) sourceLimit(durable bool, files int) (int, string) {
	limit := o.MaxSources
	if limit <= 0 {
		limit = DefaultMaxSources
	}
	if !durable {
		return limit, ""
	}
	if _, byFiles := descriptorBudgets(files); byFiles < limit {
		return byFiles, fmt.Sprintf(" (lowered from %d by the process's limit of %d open files)", limit, files)
	}
	return limit, ""
}

// openFiles bounds the segment files a store holds open: the least recently
// read are closed first. It is safe for concurrent use; it never waits for a
// segment's lock (a segment being read is not closed, and another is).
type openFiles struct {
	mu     sync.Mutex
	budget int
	lru    *list.List // of *diskSegment, most recently read first
	at     map[*diskSegment]*list.Element
}

func newOpenFiles(budget int) *openFiles {
	return &openFiles{budget: budget, lru: list.New(), at: map[*diskSegment]*list.Element{}}
}

// used notes that d's file is open and was just read, and closes the least
// recently read files past the budget. Called with d.mu held.
func (o *openFiles) used(d *diskSegment) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e, ok := o.at[d]; ok {
		o.lru.MoveToFront(e)
	} else {
		o.at[d] = o.lru.PushFront(d)
	}
	for e := o.lru.Back(); e != nil && o.lru.Len() > o.budget; {
		prev := e.Prev()
		old := e.Value.(*diskSegment)
		if old != d && old.mu.TryLock() {
			if old.f != nil {
				old.f.Close()
				old.f = nil
			}
			old.mu.Unlock()
			o.lru.Remove(e)
			delete(o.at, old)
		}
		e = prev
	}
}

// forget stops counting d (its file is closed, or pinned).
func (o *openFiles) forget(d *diskSegment) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e, ok := o.at[d]; ok {
		o.lru.Remove(e)
		delete(o.at, d)
	}
}

// open returns d's file, reopening it by path if the budget closed it.
// Called with d.mu held.
func (d *diskSegment) open() (*os.File, error) {
	if d.f == nil {
		if d.pinned {
			return nil, fmt.Errorf("segment file %s: closed", d.path)
		}
		f, err := os.Open(d.path)
		if err != nil {
			return nil, err
		}
		d.f = f
	}
	if !d.pinned && d.files != nil {
		d.files.used(d)
	}
	return d.f, nil
}

// pin opens d's file if the budget closed it and keeps it open, outside the
// budget, until d is unreachable: called before its path is unlinked or
// replaced, for the queries that still hold the segment.
func (d *diskSegment) pin() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pinned {
		return
	}
	if d.f == nil {
		if f, err := os.Open(d.path); err == nil {
			d.f = f
		}
	}
	d.pinned = true
	if d.files != nil {
		d.files.forget(d)
	}
	if d.f != nil {
		runtime.AddCleanup(d, func(f *os.File) { f.Close() }, d.f)
	}
}

package logstore

// Taking refused writes back: after a failed WAL write or fsync, the open
// segment and the field tree are rebuilt from the WAL file, as a start
// would rebuild them (rebuildOpen).

import (
	"fmt"
	"time"
)

// dropUndone makes the open segment hold what its WAL file holds again
// after a failed fsync cut that file back to what was durable: the events
// of the requests that fsync refused leave memory too, so that a client's
// retry does not store them twice and a later seal does not write them to a
// segment file, and so do the fields and types they brought (rebuildOpen).
// A failure in an earlier segment's file (a rotation's fsync) is not undone
// here. Several refused requests may call it for one failure: only the
// first rebuilds.
func (s *Source) dropUndone() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.dropUndoneLocked()
}

// dropUndoneLocked is dropUndone with mu held. It fails while the WAL file
// cannot be cut back (wal.broken) or the open segment cannot be made to
// match it (mustRebuild stays set). Each is tried again, but after a
// failure only once its back-off has passed (repairRetry): a disk that
// keeps failing costs one attempt, and one log line, per back-off, not per
// request.
func (s *Source) dropUndoneLocked() error {
	s.wal.mu.Lock()
	gen, broken := s.wal.gen, s.wal.broken != nil
	s.wal.mu.Unlock()
	if gen != s.walGen {
		s.mustRebuild = true
	}
	if !s.mustRebuild && !broken {
		return nil
	}
	now := s.opts.Now().UnixNano()
	if s.repairErr != nil && now < s.repairAt {
		return s.repairErr
	}
	err := s.wal.repair()
	if err == nil && s.mustRebuild {
		err = s.rebuildOpen()
	}
	s.repairBackOff(err, now)
	return err
}

// repairBackOff notes the outcome of an attempt to repair the source at
// now (unix ns): after a failure the next waits twice as long as the last
// (from repairFirst up to repairMost); a success ends the back-off.
func (s *Source) repairBackOff(err error, now int64) {
	if err == nil {
		s.repairErr, s.repairDelay = nil, 0
		return
	}
	s.repairDelay = min(max(2*s.repairDelay, repairFirst), repairMost)
	s.repairErr, s.repairAt = err, now+int64(s.repairDelay)
}

// The back-off of repairs: the first retry after repairFirst, then twice
// as long each time, at most repairMost.
const (
	repairFirst = 100 * time.Millisecond
	repairMost  = 30 * time.Second
)

// rebuildOpen makes the open segment hold what its WAL file holds, and the
// field tree the tree of the last retire plus what that file adds: what a
// start would make of the directory. The records keep their arrival times
// and id seeds, so the rows come back the same; snapshots taken before keep
// reading the old segment. Called with mu held, after a failed write or
// fsync cut the file back. The file is read through the WAL's own
// descriptor, so that a process out of descriptors can still do it; when it
// cannot be read, mustRebuild stays set and the error is returned.
func (s *Source) rebuildOpen() error {
	w := s.wal
	w.mu.Lock()
	gen, f := w.gen, w.f
	w.mu.Unlock()
	var batches []walBatch
	if f != nil { // else the file was never made, and holds nothing
		data, err := w.fs.read(f)
		var scan walScan
		if err == nil {
			scan, err = scanWAL(data)
		}
		if err != nil {
			err = fmt.Errorf("wal %s: the open segment could not be matched to its file: %w", f.Name(), err)
			s.store.log().Error("wal: could not reread the open segment's file; ingest into this source is refused until it can", "source", s.name, "err", err)
			return err
		}
		batches = scan.batches
	}
	tree, err := s.decodeTree(s.base)
	if err != nil {
		err = fmt.Errorf("source %s: the field tree could not be restored: %w", s.name, err)
		s.store.log().Error("wal: could not restore the field tree; ingest into this source is refused", "source", s.name, "err", err)
		return err
	}
	old := s.open
	// The replay counts its rows and events again.
	s.rows -= old.rows
	s.events -= int64(old.rows)
	overflowed := s.tree.Overflowed
	s.tree = tree
	s.open, s.openView = newSegment(), nil
	s.open.seq = old.seq
	kept := s.replay(batches)
	s.tree.Overflowed = overflowed
	s.walGen = gen
	s.mustRebuild = false
	s.store.log().Warn("wal: dropped refused events from memory", "source", s.name, "dropped", old.rows-kept, "kept", kept)
	return nil
}

// replay applies WAL records to the open segment, as they were applied when
// written (same arrival times and id seeds), and returns the events kept.
// Called with mu held.
func (s *Source) replay(batches []walBatch) (kept int) {
	for i := range batches {
		acc, _ := s.apply(&batches[i], 0)
		kept += acc
	}
	return kept
}

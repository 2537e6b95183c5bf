package logstore

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Damage found after start-up. A restart checks only each segment file's
// meta (segfile.go), so that it costs milliseconds per file, not a read of
// every byte; each column's checksum is checked when a query first reads
// it, and a scrub reads every file once in the background after a start.
// A file found damaged either way is moved aside as <file>.corrupt, its
// segment dropped from its source (its WAL file is long gone: its events
// are lost, and logged and counted as such), and the query that met it gets
// a *StorageError.

// StorageError is a segment file that could not be read. A query meeting
// one fails with it (the api answers 503: the damaged file has been moved
// aside, and the query run again answers without it).
type StorageError struct {
	File string
	Err  error
}

func (e *StorageError) Error() string {
	return fmt.Sprintf("storage: segment file %s could not be read (%v); it has been moved aside and its events are lost", e.File, e.Err)
}

func (e *StorageError) Unwrap() error { return e.Err }

// isDamage tells a file whose bytes are wrong (moved aside) from one the
// system failed to read (kept: the next read may work).
func isDamage(err error) bool { return errors.Is(err, errSegFile) }

// quarantine drops the segment whose file is d from its source and moves
// the file aside. It does nothing if the segment is gone already (a second
// reader met the same damage, or a merge or retention replaced it).
func (src *Source) quarantine(d *diskSegment, cause error) {
	st := src.store
	src.mu.Lock()
	var hit *Segment
	kept := make([]*Segment, 0, len(src.sealed))
	for _, seg := range src.sealed {
		if seg.disk == d && hit == nil {
			hit = seg
			continue
		}
		kept = append(kept, seg)
	}
	if hit == nil {
		src.mu.Unlock()
		return
	}
	src.sealed = kept
	src.rows -= hit.rows
	src.mu.Unlock()
	aside := d.path + ".corrupt"
	if err := os.Rename(d.path, aside); err != nil {
		st.log().Error("could not move a damaged segment file aside", "file", d.path, "err", err)
	}
	d.forget()
	st.segBytes.Add(-d.fileBytes)
	// Log before counting: a reader that waits on the count sees the log line.
	st.log().Error("segment file is damaged; moved aside, its events are lost",
		"source", src.name, "file", d.path, "moved_to", aside, "events", hit.rows, "err", cause)
	st.recMu.Lock()
	st.recovery.CorruptFiles++
	st.recMu.Unlock()
}

// scrub checks every segment file a start found, one column at a time, and
// moves aside those that fail. It stops early when the store closes.
func (s *Store) scrub() {
	defer close(s.scrubbed)
	start, files := time.Now(), 0
	for _, name := range s.Names() {
		src := s.Source(name)
		src.mu.Lock()
		segs := append([]*Segment(nil), src.sealed...)
		src.mu.Unlock()
		for _, seg := range segs {
			if s.closing.Load() {
				return
			}
			if seg.disk == nil {
				continue
			}
			files++
			if err := seg.disk.verify(); err != nil {
				if isDamage(err) {
					src.quarantine(seg.disk, err)
				} else {
					s.log().Warn("scrub: could not read a segment file", "file", seg.disk.path, "err", err)
				}
			}
		}
	}
	s.log().Info("scrub: checked every segment file", "files", files, "seconds", time.Since(start).Seconds())
}

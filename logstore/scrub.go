package logstore

import (
	"cmp"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
	"time"
)

// Damage found after start-up. A restart checks only each segment file's
// meta (segfile.go), so that it costs milliseconds per file, not a read of
// every byte; each column's checksum is checked when a query first reads
// it, and a scrub checks every file's checksums once in the background
// after a start.
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
//
// It checks each column's checksum only (checkSums), not its structure:
// bit rot and torn writes are what it looks for, and a query that loads a
// column still checks both. Reading 2.9 GB of files this way takes ~1 s of
// one core where loading every column took ~9.5 s, and the scrub runs
// beside the first queries after a restart. It rests as long as it works,
// so that it takes at most half a core from them.
func (s *Store) scrub() {
	defer close(s.scrubbed)
	start, files := time.Now(), 0
	var buf []byte
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
			t0 := time.Now()
			var err error
			if buf, err = seg.disk.checkSums(buf); err != nil {
				if isDamage(err) {
					src.quarantine(seg.disk, err)
				} else {
					s.log().Warn("scrub: could not read a segment file", "file", seg.disk.path, "err", err)
				}
			}
			// A tenth of a second at most, so that a close waits little.
			time.Sleep(min(time.Since(t0), 100*time.Millisecond))
		}
	}
	s.log().Info("scrub: checked every segment file", "files", files, "seconds", time.Since(start).Seconds())
}

// scrubChunk bounds the buffer checkSums reads a part through.
const scrubChunk = 1 << 20

// checkSums reads every column's parts of the segment's file and checks
// them against the column's checksum, through buf (returned, grown to at
// most scrubChunk), without decoding or caching anything. The writer
// checksums a column's blobs in the order it writes them (segWriter.blob),
// so they are read in file order.
func (d *diskSegment) checkSums(buf []byte) ([]byte, error) {
	if cap(buf) < scrubChunk {
		buf = make([]byte, scrubChunk)
	}
	buf = buf[:scrubChunk]
	for _, m := range d.cols {
		parts := make([]blobRef, 0, numParts)
		for _, p := range m.parts {
			if p.len > 0 {
				parts = append(parts, p)
			}
		}
		slices.SortFunc(parts, func(a, b blobRef) int { return cmp.Compare(a.off, b.off) })
		// Locked per column, so that a query loading a column of this
		// segment waits for one column's check at most.
		d.mu.Lock()
		f, err := d.open()
		var crc uint32
		for _, p := range parts {
			for off, end := p.off, p.off+p.len; err == nil && off < end; {
				n := min(end-off, int64(len(buf)))
				_, err = f.ReadAt(buf[:n], off)
				crc = crc32.Update(crc, crcTable, buf[:n])
				off += n
			}
		}
		d.mu.Unlock()
		if err != nil {
			return buf, fmt.Errorf("segment file %s, column %s: %w", d.path, m.path, err)
		}
		if crc != m.crc {
			return buf, fmt.Errorf("segment file %s, column %s: %w: checksum mismatch", d.path, m.path, errSegFile)
		}
	}
	return buf, nil
}

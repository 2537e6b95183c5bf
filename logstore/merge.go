package logstore

import (
	"os"
	"sort"

	"logq/event"
	"logq/types"
)

// Merging. Segments sealed early (a memory budget, a flush, a restart) can
// be small, and many small segments cost a file, an index and a scan step
// each. After a seal, a background pass merges the first run of adjacent
// small sealed segments of the source (each under half of SegmentRows, at
// least two, together at most SegmentRows) into one, sealed and sorted like
// any other. A row is rewritten only while its segment is small, so write
// amplification stays a small constant (MergeStats reports it).
//
// Crash safety: the merged file takes the newest number of the run and
// records the first one it covers (segMeta.first). It is written beside the
// file it replaces ("<name>.merging"), renamed into place only once the run
// is known intact under the source lock (retention may have dropped part of
// it meanwhile), and the files it covers are deleted after; a start-up that
// finds a file covering others deletes them, and deletes any ".merging"
// file, so no row is ever read twice or lost.

// mergeSuffix names a merged file written but not yet put in place; a
// start-up deletes any it finds.
const mergeSuffix = ".merging"

// MergeStats says how much merging has rewritten.
type MergeStats struct {
	Merges      int64 // merged segments written
	BytesSealed int64 // bytes of segment files written by seals
	BytesMerged int64 // bytes of segment files written by merges
}

// mergeRun returns the first run of adjacent small sealed segments worth
// merging, or nil. Called with mu held.
func (s *Source) mergeRun() []*Segment {
	small := s.opts.SegmentRows / 2
	var run []*Segment
	rows := 0
	for _, seg := range s.sealed {
		if seg.disk == nil || seg.rows >= small || rows+seg.rows > s.opts.SegmentRows {
			if len(run) >= 2 {
				return run
			}
			run, rows = nil, 0
			if seg.disk == nil || seg.rows >= small {
				continue
			}
		}
		run = append(run, seg)
		rows += seg.rows
	}
	if len(run) >= 2 {
		return run
	}
	return nil
}

// merge merges runs of small segments until none is left. It runs on the
// store's background group, one pass per source at a time. A request that
// comes while another pass (or a retention trim, which holds the same
// flag) runs is not lost: it is noted (mergeWanted), and whoever holds the
// flag runs one more pass when it lets go.
func (s *Source) merge() {
	if s.opts.noMerge || s.wal == nil {
		return
	}
	if s.opts.onMergeReturn != nil {
		defer s.opts.onMergeReturn()
	}
	s.mergeWanted.Store(true)
	for s.mergeWanted.Load() && s.merging.CompareAndSwap(false, true) {
		s.mergeWanted.Store(false)
		s.mergePass()
		if s.opts.onMergePassEnd != nil {
			s.opts.onMergePassEnd()
		}
		s.merging.Store(false)
	}
}

// mergePass merges runs until none is left or one fails. Called with the
// merging flag held.
func (s *Source) mergePass() {
	for {
		s.mu.Lock()
		run := s.mergeRun()
		s.mu.Unlock()
		if run == nil || !s.mergeOnce(run) {
			return
		}
	}
}

// mergeOnce writes run as one segment and swaps it in; it reports whether it
// did.
func (s *Source) mergeOnce(run []*Segment) bool {
	parts := make([]segRows, len(run))
	for i, seg := range run {
		parts[i] = segRows{seg: seg}
	}
	return s.rewrite(run, parts)
}

// rewrite writes the rows parts select from run as one segment file, which
// replaces run (a merge, or retention trimming one segment's expired rows);
// it reports whether it did.
func (s *Source) rewrite(run []*Segment, parts []segRows) (done bool) {
	st := s.store
	merged, err := concatSegments(parts)
	if err != nil {
		// A damaged file in the run has been moved aside (colcache.go);
		// the next pass merges what is left.
		st.log().Error("merge: a segment file could not be read; the run stays as it is", "source", s.name, "err", err)
		return false
	}
	merged.seq = run[len(run)-1].seq
	merged.first = run[0].seq
	if run[0].first > 0 {
		merged.first = run[0].first // it was merged before: cover what it covers
	}
	merged.seal()
	s.mu.Lock()
	// The newest segment's tree covers the others' (a tree only grows from
	// one retire to the next), and is no newer than the run: a restart
	// replays later WAL files over no more than they were first written
	// with.
	tree := run[len(run)-1].disk.tree
	s.mu.Unlock()
	final := segPath(s.wal.dir, merged.seq)
	pending := final + mergeSuffix
	if err := writeSegmentFileAs(s.wal.fs, s.wal.dir, pending, merged, tree); err != nil {
		st.log().Error("merge: segment file not written; the segments stay as they are", "source", s.name, "err", err)
		return false
	}
	seg, _, err := openSegmentFile(pending, s)
	if err != nil {
		os.Remove(pending)
		st.log().Error("merge: merged file unreadable", "source", s.name, "err", err)
		return false
	}
	s.mu.Lock()
	sealed := make([]*Segment, 0, len(s.sealed))
	at := -1
	for i, cur := range s.sealed {
		if i+len(run) <= len(s.sealed) && cur == run[0] {
			same := true
			for k := range run {
				same = same && s.sealed[i+k] == run[k]
			}
			if same {
				at = i
				break
			}
		}
	}
	if at < 0 {
		// Retention dropped part of the run meanwhile: the merge is moot.
		s.mu.Unlock()
		os.Remove(pending)
		return false
	}
	// Only now, with the run known intact and the source locked (so no
	// retention pass can drop part of it), does the merged file replace the
	// run's newest; the covered ones are deleted after.
	run[len(run)-1].disk.pin() // its path is about to name the merged file
	if err := os.Rename(pending, final); err != nil {
		s.mu.Unlock()
		os.Remove(pending)
		st.log().Error("merge: could not put the merged file in place", "source", s.name, "err", err)
		return false
	}
	seg.disk.mu.Lock()
	seg.disk.path = final
	seg.disk.mu.Unlock()
	if err := syncDir(s.wal.dir); err != nil {
		st.log().Warn("merge: directory not synced", "source", s.name, "err", err)
	}
	st.mergeMu.Lock()
	st.merges.Merges++
	st.merges.BytesMerged += seg.disk.fileBytes
	st.mergeMu.Unlock()
	for _, old := range run {
		s.rows -= old.rows
	}
	s.rows += seg.rows
	// The file that had this number was replaced by the rename.
	st.segBytes.Add(seg.disk.fileBytes - run[len(run)-1].disk.fileBytes)
	sealed = append(sealed, s.sealed[:at]...)
	sealed = append(sealed, seg)
	sealed = append(sealed, s.sealed[at+len(run):]...)
	s.sealed = sealed
	s.mu.Unlock()
	for _, old := range run[:len(run)-1] {
		s.removeFiles(old)
	}
	run[len(run)-1].disk.forget() // its file was replaced, not removed
	return true
}

// segRows is the rows of a segment from row from on.
type segRows struct {
	seg  *Segment
	from int
}

// concatSegments builds an open segment holding the rows parts select, in
// order; each column takes the widest physical kind any of them has, and
// stores only the span of rows its parts store (a late field of one part
// costs its own rows, not the merged segment's); a column that stores no
// row is not kept. Sealing the result trims each span to its values.
func concatSegments(parts []segRows) (*Segment, error) {
	out := newSegment()
	kinds := map[string]types.Kind{}
	for _, part := range parts {
		seg := part.seg
		for _, p := range seg.columnPaths() {
			c, err := seg.Column(p)
			if err != nil {
				return nil, err
			}
			k := c.kind
			if have, ok := kinds[p]; ok && have != k {
				k = event.WidenKind(have, k)
			}
			kinds[p] = k
		}
		out.rows += seg.rows - part.from
	}
	paths := make([]string, 0, len(kinds))
	for p := range kinds {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	type piece struct {
		src      *Column
		from, to int // the part's rows the column stores
		at       int // where the part's row from lands in the merged segment
	}
	for _, p := range paths {
		var pieces []piece
		at := 0
		for _, part := range parts {
			src, err := part.seg.Column(p)
			if err != nil {
				return nil, err
			}
			if src != nil {
				from, to := max(part.from, src.lo), min(part.seg.rows, src.hi)
				if from < to {
					pieces = append(pieces, piece{src, from, to, at + from - part.from})
				}
			}
			at += part.seg.rows - part.from
		}
		if len(pieces) == 0 {
			continue
		}
		c := newColumn(p, kinds[p], pieces[0].at)
		for _, pc := range pieces {
			for c.n < pc.at { // rows between two parts' spans
				c.appendNull()
			}
			for i := pc.from; i < pc.to; i++ {
				c.appendFrom(pc.src, i)
			}
		}
		c.n = out.rows // rows from hi on are NULL, unstored
		out.cols[p] = c
		out.order = append(out.order, c)
	}
	if ts := out.cols["timestamp"]; ts != nil {
		for i := range ts.n {
			v := ts.Int(i)
			out.minTS, out.maxTS = min(out.minTS, v), max(out.maxTS, v)
		}
	}
	return out, nil
}

// columnPaths lists a segment's column paths, in memory or on disk.
func (s *Segment) columnPaths() []string {
	var out []string
	if s.disk != nil {
		for p := range s.disk.cols {
			out = append(out, p)
		}
		return out
	}
	for p := range s.cols {
		out = append(out, p)
	}
	return out
}

// MergeStats reports what merging has written so far.
func (s *Store) MergeStats() MergeStats {
	s.mergeMu.Lock()
	defer s.mergeMu.Unlock()
	return s.merges
}

// supersede deletes the files of segments that a merged file covers (a
// crash came between its rename and their removal).
func supersede(dir string, loaded map[uint64]*Segment, first map[uint64]uint64, st *Store) {
	for seq, from := range first {
		for q := from; q < seq; q++ {
			if old := loaded[q]; old != nil {
				st.segBytes.Add(-old.disk.fileBytes)
				delete(loaded, q)
			}
			for _, f := range []string{segPath(dir, q), walPath(dir, q)} {
				if err := os.Remove(f); err == nil {
					st.log().Info("removed a segment file a merge had replaced", "file", f)
				}
			}
		}
	}
}

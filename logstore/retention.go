package logstore

import (
	"math"
	"sort"
)

// Retention, by age and by disk. Queries never return rows older than the
// cutoff (Snapshot.NotBefore clamps every scan); whole sealed segments past
// it are dropped here with their files. The disk budget drops the oldest
// sealed segments of any source first, by their newest row, and the oldest
// spooled WAL files (drains' backlog, feed.go) among them by their last
// write; so does the retention, for a spooled file older than it.

// notBefore is the retention cutoff now.
func (o *Options) notBefore() int64 {
	if o.Retention <= 0 {
		return math.MinInt64
	}
	return o.Now().Add(-o.Retention).UnixMicro()
}

// EnforceRetention drops sealed segments whose newest event is older than the
// retention age, then the oldest sealed segments while the store's files
// exceed MaxDiskBytes, and reports how many events were dropped.
func (s *Store) EnforceRetention() int {
	dropped := 0
	if s.opts.Retention > 0 {
		cutoff := s.opts.notBefore()
		for _, name := range s.Names() {
			src := s.Source(name)
			dropped += src.dropWhere(func(seg *Segment) bool { return seg.maxTS < cutoff })
			dropped += src.trimExpired(cutoff)
		}
		if s.Durable() {
			// Spooled WAL files wait for drains; past the retention they go
			// too (their events counted as lost to the drains behind).
			for _, f := range s.spooled() {
				if f.mtime < s.opts.Now().Add(-s.opts.Retention).UnixNano() {
					s.dropSpooled(f)
				}
			}
		}
	}
	s.TrimSpool()
	return dropped + s.enforceDisk()
}

// A sealed segment that also holds newer rows is rewritten without its
// expired ones once they fill a time block (TimeBlock rows) or a quarter of
// the segment, whichever is fewer: a segment kept alive by a late or
// future-dated event gives its expired rows' space back within one pass,
// up to fewer than a block of them, and each rewrite drops at least that
// many rows, which bounds how often a segment is rewritten (a full segment
// at most SegmentRows/TimeBlock times) while the cutoff slides through it.
const trimShare = 4

// trimWorth reports whether dropping expired rows of a segment of rows is
// worth its rewrite.
func trimWorth(expired, rows int) bool {
	return expired > 0 && (expired >= TimeBlock || expired*trimShare >= rows)
}

// trimExpired rewrites the source's sealed segments whose expired rows (older
// than cutoff) are worth it (trimWorth), and reports the rows dropped. Rows
// of a sealed segment are in time order, so the expired ones are its first
// rows. It skips the pass while a merge runs (they would write the same file
// names); the next pass trims.
func (src *Source) trimExpired(cutoff int64) int {
	if src.wal == nil || !src.merging.CompareAndSwap(false, true) {
		return 0
	}
	defer func() {
		src.merging.Store(false)
		if src.mergeWanted.Load() {
			src.merge() // a seal asked while the trim held the flag
		}
	}()
	src.mu.Lock()
	var cands []*Segment
	for _, seg := range src.sealed {
		if seg.disk != nil && seg.minTS < cutoff && seg.maxTS >= cutoff {
			cands = append(cands, seg)
		}
	}
	src.mu.Unlock()
	dropped := 0
	for _, seg := range cands {
		from := expiredRows(seg, cutoff)
		if !trimWorth(from, seg.rows) {
			continue
		}
		if src.rewrite([]*Segment{seg}, []segRows{{seg: seg, from: from}}) {
			dropped += from
			src.store.log().Info("retention: rewrote a segment without its expired rows", "source", src.name, "segment", seg.seq, "events", from)
		}
	}
	return dropped
}

// expiredRows counts the rows of a sealed segment older than cutoff: its
// first ones, since sealing sorts rows by time.
// A segment whose timestamps cannot be read counts none (a damaged file is
// moved aside already).
func expiredRows(seg *Segment, cutoff int64) (n int) {
	ts, err := seg.Column("timestamp")
	if err != nil || ts == nil {
		return 0
	}
	return sort.Search(seg.rows, func(i int) bool { return ts.Int(i) >= cutoff })
}

// DiskBytes is what the store's files take: segment files and WAL files.
func (s *Store) DiskBytes() int64 {
	total := s.segBytes.Load() + s.spoolBytes.Load()
	for _, name := range s.Names() {
		if w := s.Source(name).wal; w != nil {
			w.mu.Lock()
			if w.f != nil {
				total += w.fileHead + w.written - w.fileBase
			}
			w.mu.Unlock()
		}
	}
	return total
}

// enforceDisk drops the oldest sealed segments until the files fit
// MaxDiskBytes. Only one pass runs at a time.
func (s *Store) enforceDisk() int {
	if s.opts.MaxDiskBytes <= 0 || !s.Durable() || !s.trimming.CompareAndSwap(false, true) {
		return 0
	}
	defer s.trimming.Store(false)
	over := s.DiskBytes() - s.opts.MaxDiskBytes
	if over <= 0 {
		return 0
	}
	type cand struct {
		src   *Source
		seg   *Segment
		spool int // 1 + index in spool, for a spooled WAL file
	}
	var cands []cand
	for _, name := range s.Names() {
		src := s.Source(name)
		src.mu.Lock()
		for _, seg := range src.sealed {
			if seg.disk != nil {
				cands = append(cands, cand{src: src, seg: seg})
			}
		}
		src.mu.Unlock()
	}
	// Spooled WAL files (drains' backlog) compete by age with the segments:
	// a file's age is its last write, a segment's its newest row.
	var spool []spoolFile
	for _, f := range s.spooled() {
		spool = append(spool, f)
		cands = append(cands, cand{spool: len(spool)})
	}
	age := func(c cand) int64 {
		if c.seg != nil {
			return c.seg.maxTS
		}
		return spool[c.spool-1].mtime / 1000
	}
	sort.Slice(cands, func(i, j int) bool { return age(cands[i]) < age(cands[j]) })
	doomed := map[*Segment]bool{}
	for _, c := range cands {
		if over <= 0 {
			break
		}
		if c.seg == nil {
			f := spool[c.spool-1]
			s.dropSpooled(f)
			over -= f.bytes
			continue
		}
		doomed[c.seg] = true
		over -= c.seg.disk.fileBytes
	}
	if over > 0 {
		s.log().Warn("the disk budget cannot be met by dropping sealed segments: the open segments' WAL files hold the rest",
			"max_disk", s.opts.MaxDiskBytes, "over_by", over)
	}
	dropped := 0
	for _, name := range s.Names() {
		dropped += s.Source(name).dropWhere(func(seg *Segment) bool { return doomed[seg] })
	}
	if dropped > 0 {
		s.log().Info("disk budget: dropped the oldest segments", "events", dropped, "max_disk", s.opts.MaxDiskBytes)
	}
	return dropped
}

// dropWhere removes the sealed segments for which drop holds, deletes their
// files, and reports the events dropped.
func (src *Source) dropWhere(drop func(*Segment) bool) int {
	var gone []*Segment
	dropped := 0
	src.mu.Lock()
	kept := make([]*Segment, 0, len(src.sealed))
	for _, seg := range src.sealed {
		if drop(seg) {
			dropped += seg.rows
			src.rows -= seg.rows
			gone = append(gone, seg)
			continue
		}
		kept = append(kept, seg)
	}
	src.sealed = kept
	src.mu.Unlock()
	// A segment's files go with it; a crash before this only means the next
	// start reads them and drops them again. A view standing in for a
	// segment still being sealed has none yet: seal removes them.
	for _, seg := range gone {
		if seg.retiredFrom == nil {
			src.removeFiles(seg)
		}
	}
	return dropped
}

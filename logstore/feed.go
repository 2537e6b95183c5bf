package logstore

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"

	"logq/storage"
)

// The feed (storage.Feed): each source's acknowledged chunks in the order
// they were acknowledged, read by drains and the tail.
//
// A durable store's feed is its write-ahead log. Each WAL record is one
// acknowledged chunk, so a reader keeps a position (file, offset) and reads
// records from there: up to the bytes known durable in the open file, to
// the end of the others. Sealing a segment deletes its WAL file, unless a
// reader still needs it (Options.Holds): then the file moves to
// DIR/spool/<source>/ and stays there until every reader that needs it has
// passed it, or retention or the disk budget drops it (its events are then
// counted as lost to each reader that still needed them). A start leaves
// the spool alone.
//
// A store in memory feeds its readers from a storage.Ring of its most recent
// chunks, filled from the first ingest (so a tail from=start reads what came
// before it; the ring's budget bounds what that copies).

// FeedHead implements storage.Feed.
func (s *Store) FeedHead(source string) storage.Pos {
	if !s.Durable() {
		return s.memFeed().FeedHead(source)
	}
	src := s.Source(source)
	if src == nil || src.wal == nil {
		return storage.Pos{}
	}
	w := src.wal
	w.mu.Lock()
	defer w.mu.Unlock()
	return storage.Pos{Seq: w.seq, Off: w.durableOffset()}
}

// durableOffset is the offset in the current file up to which every byte is
// on disk. Called with mu held.
func (w *wal) durableOffset() int64 {
	if w.f == nil {
		return 0
	}
	return w.fileHead + max(0, w.synced.Load()-w.fileBase)
}

// FeedChanged implements storage.Feed.
func (s *Store) FeedChanged() <-chan struct{} {
	if !s.Durable() {
		return s.memFeed().FeedChanged()
	}
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	if s.feedCh == nil {
		s.feedCh = make(chan struct{})
	}
	return s.feedCh
}

// feedMoved wakes the feed's readers: a WAL's durable end moved.
func (s *Store) feedMoved() {
	s.feedMu.Lock()
	if s.feedCh != nil {
		close(s.feedCh)
		s.feedCh = nil
	}
	s.feedMu.Unlock()
}

// FeedHolds implements storage.Feed.
func (s *Store) FeedHolds() *storage.Holds {
	if !s.Durable() {
		return nil
	}
	return s.opts.Holds
}

// memFeed is the Ring of a store in memory, made on first use.
func (s *Store) memFeed() *storage.Ring {
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	if s.ring == nil {
		s.ring = storage.NewRing(s.opts.FeedBytes, s.opts.Retention)
	}
	return s.ring
}

// ReadFeed implements storage.Feed.
func (s *Store) ReadFeed(source string, from storage.Pos, maxEvents int) ([]storage.Record, storage.Pos, int64, error) {
	if !s.Durable() {
		return s.memFeed().ReadFeed(source, from, maxEvents)
	}
	src := s.Source(source)
	if src == nil || src.wal == nil {
		return nil, from, 0, nil
	}
	var out []storage.Record
	events := 0
	for events < maxEvents {
		w := src.wal
		w.mu.Lock()
		cur, end := w.seq, w.durableOffset()
		w.mu.Unlock()
		if from.Seq > cur || from.Seq == cur && from.Off >= end && end > 0 {
			break // at the head
		}
		f, err := s.openWAL(src, from.Seq)
		if err != nil {
			return out, from, 0, err
		}
		if f == nil {
			next, ok := s.nextWAL(source, from.Seq, cur)
			if !ok {
				break
			}
			from = storage.Pos{Seq: next}
			continue
		}
		limit := int64(-1) // to the end of the file
		if from.Seq == cur {
			limit = end
		}
		recs, next, done, err := readWALRecords(f, from, limit, maxEvents-events, s.opts.Retention.Microseconds())
		f.Close()
		if err != nil {
			return out, from, 0, err
		}
		for _, r := range recs {
			events += len(r.Events)
		}
		out = append(out, recs...)
		from = next
		if !done || from.Seq == cur {
			break
		}
		// This file is read to its end: the next one, if any.
		nextSeq, ok := s.nextWAL(source, from.Seq, cur)
		if !ok {
			break
		}
		from = storage.Pos{Seq: nextSeq}
		s.trimSpool(source)
	}
	return out, from, 0, nil
}

// FeedBacklog implements storage.Feed: it reads only each chunk's header.
func (s *Store) FeedBacklog(source string, from storage.Pos) (int64, error) {
	if !s.Durable() {
		return s.memFeed().FeedBacklog(source, from)
	}
	src := s.Source(source)
	if src == nil || src.wal == nil {
		return 0, nil
	}
	var total int64
	for {
		w := src.wal
		w.mu.Lock()
		cur, end := w.seq, w.durableOffset()
		w.mu.Unlock()
		if from.Seq > cur {
			return total, nil
		}
		f, err := s.openWAL(src, from.Seq)
		if err != nil {
			return total, err
		}
		if f != nil {
			limit := int64(-1)
			if from.Seq == cur {
				limit = end
			}
			n, err := countWALEvents(f, from.Off, limit)
			f.Close()
			if err != nil {
				return total, err
			}
			total += n
		}
		if from.Seq == cur {
			return total, nil
		}
		next, ok := s.nextWAL(source, from.Seq, cur)
		if !ok {
			return total, nil
		}
		from = storage.Pos{Seq: next}
	}
}

// countWALEvents counts the events of a WAL file's records from offset off
// (0: the first) up to byte limit (-1: the end), reading each record's
// header and event count only.
func countWALEvents(f *os.File, off, limit int64) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if limit < 0 || limit > fi.Size() {
		limit = fi.Size()
	}
	if off == 0 {
		if off, err = walFirstRecord(f); err != nil {
			return 0, nil
		}
	}
	var total int64
	var h [8 + 24 + binary.MaxVarintLen64]byte
	for off+8 <= limit {
		k, _ := f.ReadAt(h[:], off)
		if k < 8+24+1 {
			break
		}
		n := int64(binary.LittleEndian.Uint32(h[:]))
		if n > maxWALRecord || n < 24 || off+8+n > limit {
			break
		}
		if c, m := binary.Uvarint(h[8+24 : k]); m > 0 {
			total += int64(c)
		}
		off += 8 + n
	}
	return total, nil
}

// walFile returns the path of source's WAL file seq, in its directory or
// in the spool, or "" when neither holds it.
func (s *Store) walFile(source string, seq, cur uint64) string {
	live := walPath(filepath.Join(s.dir, "sources", encodeName(source)), seq)
	if seq == cur {
		return live
	}
	if _, err := os.Stat(live); err == nil {
		return live
	}
	spooled := walPath(s.spoolDir(source), seq)
	if _, err := os.Stat(spooled); err == nil {
		return spooled
	}
	return ""
}

// nextWAL returns the number of source's first WAL file after seq, live or
// spooled, or cur.
func (s *Store) nextWAL(source string, seq, cur uint64) (uint64, bool) {
	if seq >= cur {
		return 0, false
	}
	best := cur
	for _, dir := range []string{filepath.Join(s.dir, "sources", encodeName(source)), s.spoolDir(source)} {
		seqs, _ := listFiles(dir, "wal-", ".log")
		for _, q := range seqs {
			if q > seq && q < best {
				best = q
			}
		}
	}
	return best, true
}

// openWAL opens source's WAL file seq, in its directory or in the spool,
// or returns nil when neither holds it (dropped, its events counted lost
// to the readers that needed them). A seal moves a file that a reader
// still needs from the directory to the spool, which can happen between
// the look and the open: a file that vanished is looked for once more.
func (s *Store) openWAL(src *Source, seq uint64) (*os.File, error) {
	for range 2 {
		src.wal.mu.Lock()
		cur := src.wal.seq
		src.wal.mu.Unlock()
		path := s.walFile(src.name, seq, cur)
		if path == "" {
			return nil, nil
		}
		testHookWALOpen(path)
		f, err := os.Open(path)
		if !errors.Is(err, os.ErrNotExist) {
			return f, err
		}
	}
	return nil, nil
}

// testHookWALOpen is called with each WAL file path a feed reader is
// about to open (tests move the file there, as a seal can).
var testHookWALOpen = func(string) {}

// readWALRecords reads the intact records of a WAL file from position from,
// up to byte limit (-1: the file's end) and about maxEvents events. done
// says the reading reached the limit or the file's end (or a damaged tail,
// which is where a start would cut the file).
func readWALRecords(f *os.File, from storage.Pos, limit int64, maxEvents int, maxAge int64) (recs []storage.Record, next storage.Pos, done bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, from, false, err
	}
	size := fi.Size()
	if limit < 0 || limit > size {
		limit = size
	}
	off := from.Off
	if off == 0 {
		if off, err = walFirstRecord(f); err != nil {
			return nil, from, true, nil // no intact header: nothing to read
		}
	}
	next = storage.Pos{Seq: from.Seq, Off: off}
	events := 0
	for off < limit && events < maxEvents {
		var hdr [8]byte
		if off+8 > limit {
			return recs, next, true, nil
		}
		if _, err := f.ReadAt(hdr[:], off); err != nil {
			return recs, next, true, nil
		}
		n := int64(binary.LittleEndian.Uint32(hdr[:]))
		if n > maxWALRecord || n < 24 || off+8+n > limit {
			return recs, next, true, nil // a torn or damaged tail
		}
		// Each record is read into its own slice, which its events alias:
		// the caller owns them, and nothing is copied twice.
		payload := make([]byte, n)
		if _, err := f.ReadAt(payload, off+8); err != nil && err != io.EOF {
			return recs, next, false, err
		}
		off += 8 + n
		if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(hdr[4:]) {
			next.Off = off // a damaged record: its events were never replayed either
			continue
		}
		b, err := decodeWALBatch(payload)
		if err != nil {
			next.Off = off
			continue
		}
		next.Off = off
		recs = append(recs, storage.Record{Arrival: b.arrival, Seed: b.seed, MaxAge: maxAge, Events: b.events, Next: next})
		events += len(b.events)
	}
	return recs, next, off >= limit, nil
}

// walFirstRecord returns the offset of a WAL file's first record.
func walFirstRecord(f *os.File) (int64, error) {
	var h [16]byte
	n, _ := f.ReadAt(h[:], 0)
	if n < len(walMagic) || string(h[:5]) != string(walMagic[:5]) {
		return 0, errors.New("not a WAL file")
	}
	if h[7] < 2 {
		return int64(len(walMagic)), nil
	}
	if n < 16 {
		return 0, errors.New("incomplete header")
	}
	return 16 + int64(binary.LittleEndian.Uint32(h[8:])), nil
}

// spoolDir is where source's WAL files wait for the readers that need them.
func (s *Store) spoolDir(source string) string {
	return filepath.Join(s.dir, "spool", encodeName(source))
}

// dropWAL deletes source's WAL file seq in dir (its segment is sealed), or
// moves it to the spool when a reader still needs it.
func (s *Store) dropWAL(source, dir string, seq uint64) {
	path := walPath(dir, seq)
	if s.opts.Holds.Needs(source, seq) {
		sd := s.spoolDir(source)
		err := os.MkdirAll(sd, 0o755)
		if err == nil {
			err = os.Rename(path, walPath(sd, seq))
		}
		if err == nil {
			_ = syncDir(sd)
			_ = syncDir(dir)
			if fi, err := os.Stat(walPath(sd, seq)); err == nil {
				s.spoolBytes.Add(fi.Size())
			}
			return
		}
		if os.IsNotExist(err) {
			return
		}
		s.log().Warn("could not keep a sealed segment's WAL file for the drains that need it; it is deleted", "file", path, "err", err)
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		s.log().Warn("could not remove a sealed segment's WAL file", "file", path, "err", err)
	}
}

// spoolFile is one WAL file in the spool.
type spoolFile struct {
	source string
	seq    uint64
	path   string
	bytes  int64
	mtime  int64 // unix ns: about when its last chunk arrived
}

// spooled lists the spool's files, oldest number first per source.
func (s *Store) spooled() []spoolFile {
	var out []spoolFile
	root := filepath.Join(s.dir, "spool")
	dirs, _ := os.ReadDir(root)
	for _, d := range dirs {
		name, err := decodeName(d.Name())
		if err != nil || !d.IsDir() {
			continue
		}
		dir := filepath.Join(root, d.Name())
		seqs, _ := listFiles(dir, "wal-", ".log")
		for _, q := range seqs {
			p := walPath(dir, q)
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			out = append(out, spoolFile{source: name, seq: q, path: p, bytes: fi.Size(), mtime: fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].source != out[j].source {
			return out[i].source < out[j].source
		}
		return out[i].seq < out[j].seq
	})
	return out
}

// loadSpool counts the spool's bytes at start.
func (s *Store) loadSpool() {
	var total int64
	for _, f := range s.spooled() {
		total += f.bytes
	}
	s.spoolBytes.Store(total)
}

// trimSpool deletes source's spooled files that no reader needs any more.
func (s *Store) trimSpool(source string) {
	seqs, _ := listFiles(s.spoolDir(source), "wal-", ".log")
	for _, q := range seqs {
		if s.opts.Holds.Needs(source, q) {
			continue
		}
		s.removeSpooled(source, walPath(s.spoolDir(source), q))
	}
}

// TrimSpool deletes the spooled WAL files no reader needs any more (a
// reader that passed them, or one that went away).
func (s *Store) TrimSpool() {
	if !s.Durable() {
		return
	}
	seen := map[string]bool{}
	for _, f := range s.spooled() {
		if !seen[f.source] {
			seen[f.source] = true
			s.trimSpool(f.source)
		}
	}
}

func (s *Store) removeSpooled(source, path string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if err := os.Remove(path); err != nil {
		s.log().Warn("could not remove a spooled WAL file", "file", path, "err", err)
		return
	}
	s.spoolBytes.Add(-fi.Size())
}

// dropSpooled deletes a spooled file that retention or the disk budget
// takes, and counts its events as lost to every reader that still needed
// them (from its position on, in that file).
func (s *Store) dropSpooled(f spoolFile) {
	holders := s.opts.Holds.Holders(f.source)
	lost := map[string]int64{}
	if len(holders) > 0 {
		var recs []storage.Record
		if fh, err := os.Open(f.path); err == nil {
			recs, _, _, _ = readWALRecords(fh, storage.Pos{Seq: f.seq}, -1, 1<<62, s.opts.Retention.Microseconds())
			fh.Close()
		}
		for h, p := range holders {
			if p.Seq > f.seq {
				continue
			}
			for _, r := range recs {
				if p.Seq < f.seq || r.Next.Off > p.Off {
					lost[h] += int64(len(r.Events))
				}
			}
		}
	}
	s.removeSpooled(f.source, f.path)
	for h, n := range lost {
		s.opts.Holds.AddLost(f.source, h, n)
	}
	s.log().Warn("dropped a spooled WAL file that drains had not delivered yet", "file", f.path, "events_lost", lost)
}

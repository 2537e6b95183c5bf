package logstore

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"logq/event"
	"logq/storage"
)

// The data directory:
//
//	DIR/LOCK                         held (flock) by the server using DIR
//	DIR/sources/<name>/wal-<seq>.log one per segment, seq in 16 digits
//
// <name> is the source name with every byte outside [A-Za-z0-9_.-] written
// as %XX (and a leading '.' too), so any name maps to one directory.

const walPrefix, walSuffix = "wal-", ".log"

func walPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%016d%s", walPrefix, seq, walSuffix))
}

// encodeName maps a source name to a directory name.
func encodeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0
		if safe {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func decodeName(enc string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(enc); i++ {
		if enc[i] != '%' {
			b.WriteByte(enc[i])
			continue
		}
		if i+2 >= len(enc) {
			return "", fmt.Errorf("bad source directory name %q", enc)
		}
		v, err := strconv.ParseUint(enc[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad source directory name %q", enc)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// RecoveryStats counts what opening a data directory found damaged.
type RecoveryStats struct {
	TornTails      int // WAL files whose damaged tail was cut off
	CorruptRecords int // damaged WAL records skipped in the middle of a file
	CorruptFiles   int // files moved aside as unreadable
	Replayed       int // events replayed from the WAL
	Loaded         int // events in segment files
	Missing        int // segment numbers with neither file, between present ones
}

// ErrLocked means another process holds the data directory.
var ErrLocked = errors.New("data directory is in use")

// Open opens (creating it if needed) a data directory and returns a store
// holding everything acknowledged into it before. Damaged WAL tails are cut
// off and logged; a WAL file of an unknown format version stops the open
// (replaying or dropping it would lose events silently).
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sources"), 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	if opts.Holds == nil {
		opts.Holds = storage.NewHolds() // readers of the feed hold what they need either way
	}
	s := New(opts)
	s.dir, s.lock = dir, lock
	limit := fileLimit()
	segFiles, _ := descriptorBudgets(limit)
	if opts.MaxOpenFiles > 0 {
		segFiles = opts.MaxOpenFiles
	}
	s.files = newOpenFiles(segFiles)
	s.maxSources, s.limitWhy = opts.sourceLimit(true, limit)
	if err := s.load(); err != nil {
		// Sources loaded before the failure seal what they replayed (their
		// trees are whole); nothing may still write once the lock is gone.
		s.sealer.wait()
		s.bg.Wait() // merges those seals started
		lock.Close()
		return nil, err
	}
	s.loadSpool()
	// Files are checked for damage in the background (scrub.go).
	s.scrubbed = make(chan struct{})
	if opts.noScrub {
		close(s.scrubbed)
	} else {
		s.bg.Add(1)
		go func() { defer s.bg.Done(); s.scrub() }()
	}
	// Small segments left by the last run (a flush, an early seal) are
	// merged in the background.
	for _, name := range s.Names() {
		src := s.Source(name)
		s.bg.Add(1)
		go func() { defer s.bg.Done(); src.merge() }()
	}
	return s, nil
}

func lockDir(dir string) (*os.File, error) {
	name := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		holder := strings.TrimSpace(string(pid))
		if holder == "" {
			holder = "unknown"
		}
		return nil, fmt.Errorf("%w: %s is locked by another logq process (pid %s); stop it or choose another --data-dir", ErrLocked, dir, holder)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// load replays every source's WAL files, oldest first: each file becomes one
// segment, the newest stays open and takes new events.
func (s *Store) load() error {
	root := filepath.Join(s.dir, "sources")
	ents, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		name, err := decodeName(e.Name())
		if err != nil {
			s.log().Warn("skipping a directory that is not a source", "dir", filepath.Join(root, e.Name()))
			continue
		}
		src, err := s.source(name, false)
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(root, e.Name()), err)
		}
		if err := src.load(filepath.Join(root, e.Name()), s); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) log() *slog.Logger {
	if s.opts.Logger != nil {
		return s.opts.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// load reads one source's directory, oldest segment first: a segment file
// where one was written, else the segment's WAL file replayed. The newest
// WAL file stays open and takes new events.
func (src *Source) load(dir string, st *Store) (err error) {
	walSeqs, err := listFiles(dir, walPrefix, walSuffix)
	if err != nil {
		return err
	}
	segSeqs, err := listFiles(dir, segPrefix, segSuffix)
	if err != nil {
		return err
	}
	removeTemporaries(dir, st)
	hasWAL := map[uint64]bool{}
	for _, q := range walSeqs {
		hasWAL[q] = true
	}
	// Segment files first (their meta only). The field tree each carries
	// (the tree as of its retire) is merged in number order below, so that
	// a WAL file replays over the tree it was first written with.
	loaded := map[uint64]*Segment{}
	trees := map[uint64]*event.Tree{}
	first := map[uint64]uint64{} // merged segments: seq → first number covered
	for _, seq := range segSeqs {
		name := segPath(dir, seq)
		seg, meta, err := openSegmentFile(name, src)
		if err == nil && hasWAL[seq] {
			// A crash between writing the file and removing its WAL file:
			// the WAL is deleted below, so check every column first.
			err = seg.disk.verify()
		}
		if errors.Is(err, errSegVer) {
			return fmt.Errorf("%s: %w; refusing to start rather than lose its events (run the logq version that wrote it)", name, err)
		}
		if err != nil {
			st.recovery.CorruptFiles++
			aside := name + ".corrupt"
			what := "its events are lost"
			if hasWAL[seq] {
				what = "its WAL file is replayed instead"
			}
			st.log().Error("segment file is damaged; moved aside, "+what, "file", name, "moved_to", aside, "err", err)
			if rerr := os.Rename(name, aside); rerr != nil {
				return fmt.Errorf("segment file: %w", rerr)
			}
			continue
		}
		loaded[seq] = seg
		if meta.first > 0 && meta.first < seq {
			first[seq] = meta.first
		}
		st.segBytes.Add(seg.disk.fileBytes)
		trees[seq] = meta.tree
		st.recovery.Loaded += seg.rows
	}
	supersede(dir, loaded, first, st)
	var seqs []uint64
	for q := range loaded {
		seqs = append(seqs, q)
	}
	for _, q := range walSeqs {
		if loaded[q] == nil {
			seqs = append(seqs, q)
		}
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	for i := 1; i < len(seqs); i++ {
		start := seqs[i]
		if f, ok := first[seqs[i]]; ok {
			start = f // a merged segment covers the numbers before it
		}
		if start > seqs[i-1]+1 {
			// Numbers are consecutive; retention drops the oldest first, so
			// a hole is usually a file deleted by hand or lost.
			st.recovery.Missing += int(start - seqs[i-1] - 1)
			st.log().Warn("segments missing from the data directory (dropped by retention, or lost)",
				"dir", dir, "from", seqs[i-1]+1, "to", start-1)
		}
	}

	w := &wal{dir: dir, fs: st.fs, genEnd: map[uint64]int64{}, notify: st.feedMoved}
	var full []*Segment
	defer func() {
		if err != nil {
			return // the store is not opened; the WAL files still hold these
		}
		for _, seg := range full {
			src.sealer.run(func() { src.seal(seg) })
		}
	}()
	src.mu.Lock()
	defer src.mu.Unlock()
	for i, seq := range seqs {
		last := i == len(seqs)-1
		if seg := loaded[seq]; seg != nil {
			if src.open.rows > 0 {
				full = append(full, src.retireWithTree())
			}
			src.tree.Merge(trees[seq].Root())
			src.sealed = append(src.sealed, seg)
			src.rows += seg.rows
			src.events += int64(seg.rows)
			if hasWAL[seq] {
				// Left by a crash between writing the file and removing this
				// (kept, in the spool, for a drain that still needs it).
				st.dropWAL(src.name, dir, seq)
			}
			src.seq = max(src.seq, seq)
			continue
		}
		name := walPath(dir, seq)
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("wal: %w", err)
		}
		scan, err := scanWAL(data)
		if err != nil {
			return fmt.Errorf("%s: %w; refusing to start rather than lose its events (run the logq version that wrote it)", name, err)
		}
		for _, off := range scan.skipped {
			st.recovery.CorruptRecords++
			st.log().Error("wal: skipped a damaged record (its events are lost)", "file", name, "offset", off)
		}
		if scan.validEnd == 0 {
			// Not even a header: a file torn as it was created, or not ours.
			st.recovery.CorruptFiles++
			aside := name + ".corrupt"
			st.log().Error("wal: file has no valid header; moved aside", "file", name, "moved_to", aside, "reason", scan.tail)
			if err := os.Rename(name, aside); err != nil {
				return fmt.Errorf("wal: %w", err)
			}
			src.seq = max(src.seq, seq)
			continue
		}
		if scan.validEnd < int64(len(data)) {
			st.recovery.TornTails++
			st.log().Warn("wal: cut off a damaged tail", "file", name, "offset", scan.validEnd, "bytes", int64(len(data))-scan.validEnd, "reason", scan.tail)
			if err := os.Truncate(name, scan.validEnd); err != nil {
				return fmt.Errorf("wal: %w", err)
			}
		}
		if src.open.rows > 0 {
			full = append(full, src.retireWithTree())
		}
		// The file's records replay over the tree it was made with (as
		// well as over every earlier segment file's): fields whose segment
		// files retention dropped come back. A rebuild of the open segment
		// (rebuildOpen) replays its file over the tree from before it, as
		// here.
		if len(scan.tree) > 0 {
			t, err := decodeTree(scan.tree)
			if err != nil {
				return fmt.Errorf("%s: the field tree of its header: %w; refusing to start rather than type its events wrongly", name, err)
			}
			src.tree.Merge(t.Root())
		}
		src.base = encodeTree(nil, src.tree)
		src.open.seq, src.seq = seq, max(src.seq, seq)
		st.recovery.Replayed += src.replay(scan.batches)
		if last {
			f, err := os.OpenFile(name, os.O_RDWR, 0o644) // read back by rebuildOpen
			if err != nil {
				return fmt.Errorf("wal: %w", err)
			}
			if _, err := f.Seek(scan.validEnd, io.SeekStart); err != nil {
				f.Close()
				return fmt.Errorf("wal: %w", err)
			}
			w.f, w.seq, w.fileHead = f, seq, scan.validEnd
		}
	}
	if w.f == nil {
		// The newest segment is sealed (or unusable): start the next one's file.
		if src.open.rows > 0 {
			full = append(full, src.retireWithTree())
		}
		src.base = encodeTree(nil, src.tree)
		src.seq++
		src.open.seq = src.seq
		w.seq, w.tree = src.seq, src.base
		if err := w.openFile(); err != nil {
			return err
		}
	}
	src.wal = w
	return nil
}

// removeTemporaries deletes segment files a crash left half written, and
// merged files never put in place.
func removeTemporaries(dir string, st *Store) {
	tmps, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"+segSuffix+".tmp"))
	merging, _ := filepath.Glob(filepath.Join(dir, segPrefix+"*"+segSuffix+mergeSuffix))
	for _, t := range append(tmps, merging...) {
		st.log().Info("removing a segment file left half written", "file", t)
		_ = os.Remove(t)
	}
}

// listFiles returns the sequence numbers of a source's files of one kind,
// ascending.
func listFiles(dir, prefix, suffix string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	var seqs []uint64
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, suffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n, prefix), suffix), 10, 64)
		if err != nil {
			continue
		}
		seqs = append(seqs, seq)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs, nil
}

// persist writes a sealed segment to its file, then drops its WAL file, and
// returns the file-backed segment (or full itself when the write failed: the
// WAL still holds its events, and the next start seals them again).
func (s *Source) persist(full *Segment) *Segment {
	tree, dir := full.tree, s.wal.dir // the tree as of this segment's retire
	if err := writeSegmentFile(s.wal.fs, dir, full, tree); err != nil {
		s.store.log().Error("segment file not written; its events stay in the WAL", "source", s.name, "segment", full.seq, "err", err)
		return full
	}
	seg, _, err := openSegmentFile(segPath(dir, full.seq), s)
	if err != nil {
		s.store.log().Error("segment file written but unreadable; its events stay in the WAL", "source", s.name, "segment", full.seq, "err", err)
		return full
	}
	// What was just sealed is what queries will read next: keep it cached.
	for p, c := range full.cols {
		if m := seg.disk.cols[p]; m != nil {
			s.store.cache.put(colKey{seg.disk, p}, c, m.bytes())
		}
	}
	s.store.dropWAL(s.name, dir, full.seq) // or keeps it for the drains that need it (feed.go)
	s.store.segBytes.Add(seg.disk.fileBytes)
	s.store.mergeMu.Lock()
	s.store.merges.BytesSealed += seg.disk.fileBytes
	s.store.mergeMu.Unlock()
	if st := s.store; st.opts.MaxDiskBytes > 0 && st.segBytes.Load() > st.opts.MaxDiskBytes {
		st.bg.Add(1)
		go func() { defer st.bg.Done(); st.enforceDisk() }() // after this seal has swapped the segment in
	}
	return seg
}

// openSegmentFile checks a segment file's meta and returns it as a segment
// whose columns are read (and their checksums checked) on demand.
func openSegmentFile(path string, owner *Source) (*Segment, *segMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	m, err := readSegmentMeta(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	d := &diskSegment{path: path, fileBytes: fi.Size(), cols: make(map[string]*colMeta, len(m.cols)), cache: owner.store.cache, owner: owner,
		tree: encodeTree(nil, m.tree), files: owner.store.files}
	for i := range m.cols {
		d.cols[m.cols[i].path] = &m.cols[i]
	}
	// Kept open while the budget of open files allows (openfiles.go).
	d.mu.Lock()
	d.f = f
	d.files.used(d)
	d.mu.Unlock()
	seg := &Segment{rows: m.rows, minTS: m.minTS, maxTS: m.maxTS, blockMin: m.blockMin, blockMax: m.blockMax,
		seq: m.seq, first: m.first, sealed: true, disk: d, bytes: int64(len(m.cols))*(64+int64(numParts)*16) + 16*int64(len(m.blockMin))}
	return seg, m, nil
}

// removeFiles deletes a dropped segment's files and forgets its columns.
// It takes no lock of the source.
func (s *Source) removeFiles(seg *Segment) {
	if s.wal == nil {
		return
	}
	if seg.disk != nil {
		seg.disk.pin() // before the unlink below: see pin
	}
	for _, f := range []string{walPath(s.wal.dir, seg.seq), segPath(s.wal.dir, seg.seq)} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			s.store.log().Warn("retention: could not remove a file", "file", f, "err", err)
		}
	}
	if seg.disk != nil {
		// The file handle stays open for queries still reading the
		// segment; a cleanup closes it once nothing refers to it.
		seg.disk.forget()
		s.store.segBytes.Add(-seg.disk.fileBytes)
	}
}

package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// The write-ahead log. Each source has one WAL file per segment
// ("wal-<seq>.log" holds exactly the events of segment seq), so a segment's
// events can be replayed into the same segment and dropped with it.
//
// File layout (docs/storage.md):
//
//	header  8 bytes: "LQWAL" 0 0 walVersion |
//	        u32 LE tree length | u32 LE CRC-32C of the tree | tree
//	record  u32 LE payload length | u32 LE CRC-32C of payload | payload
//	payload i64 LE arrival (µs) | 16 bytes id seed | uvarint n |
//	        n × (uvarint length | event bytes)
//
// The arrival time and id seed make replay deterministic: an event without a
// timestamp or id gets the same ones it got when it was first written. The
// tree is the source's field tree (encodeTree) when the file was made, the
// tree its records were first written over: a start replays them over it,
// so that a source whose segment files retention has all dropped comes
// back with the fields and types memory had, not fewer. Version 1 files
// (no tree) are still read.

const (
	walVersion    = 2
	walVersionMin = 1 // the oldest this build reads
)

var walMagic = [8]byte{'L', 'Q', 'W', 'A', 'L', 0, 0, walVersion}

// walHeader is the header of a new WAL file over field tree tree.
func walHeader(tree []byte) []byte {
	h := append([]byte(nil), walMagic[:]...)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(tree)))
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(tree, crcTable))
	return append(h, tree...)
}

// maxWALRecord bounds a record's declared length when reading, so a corrupt
// length cannot make the reader allocate gigabytes. An ingest body is at most
// 12 MB; a record holds at most one body's events plus framing.
const maxWALRecord = 64 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// walBatch is one record: a chunk of one request's events.
type walBatch struct {
	arrival int64
	seed    [16]byte
	events  [][]byte
}

func (b *walBatch) encode(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 8)...) // length and CRC, filled below
	dst = binary.LittleEndian.AppendUint64(dst, uint64(b.arrival))
	dst = append(dst, b.seed[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(b.events)))
	for _, ev := range b.events {
		dst = binary.AppendUvarint(dst, uint64(len(ev)))
		dst = append(dst, ev...)
	}
	payload := dst[start+8:]
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(dst[start+4:], crc32.Checksum(payload, crcTable))
	return dst
}

// decodeWALBatch parses a payload whose checksum has been verified.
func decodeWALBatch(p []byte) (walBatch, error) {
	var b walBatch
	if len(p) < 24 {
		return b, errors.New("record too short")
	}
	b.arrival = int64(binary.LittleEndian.Uint64(p))
	copy(b.seed[:], p[8:24])
	p = p[24:]
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)) {
		return b, errors.New("bad event count")
	}
	p = p[k:]
	b.events = make([][]byte, 0, n)
	for i := uint64(0); i < n; i++ {
		l, k := binary.Uvarint(p)
		if k <= 0 || l > uint64(len(p)-k) {
			return b, errors.New("bad event length")
		}
		b.events = append(b.events, p[k:k+int(l)])
		p = p[k+int(l):]
	}
	if len(p) != 0 {
		return b, errors.New("trailing bytes in record")
	}
	return b, nil
}

// walScan is what reading one WAL file found.
type walScan struct {
	batches []walBatch
	// validEnd is the offset after the last intact record; bytes past it are
	// a torn or corrupt tail.
	validEnd int64
	// tail describes what was wrong at validEnd ("" when the file ends there).
	tail string
	// skipped lists offsets of records whose checksum failed but whose
	// framing was intact, so reading went on after them.
	skipped []int64
	// tree is the field tree the header carries (nil in version 1).
	tree []byte
}

// errWALVersion means a WAL file was written by another format version:
// replaying it could misread events, and dropping it would lose them.
var errWALVersion = errors.New("unknown WAL format version")

// scanWAL reads a whole WAL file's bytes. It never fails on damaged records:
// it reports where the intact prefix ends. Only a header of another version
// is an error.
func scanWAL(data []byte) (walScan, error) {
	var s walScan
	if len(data) < len(walMagic) {
		s.tail = "incomplete header"
		return s, nil
	}
	if string(data[:5]) != string(walMagic[:5]) {
		s.tail = "not a WAL header"
		return s, nil
	}
	if data[7] < walVersionMin || data[7] > walVersion || data[5] != 0 || data[6] != 0 {
		return s, fmt.Errorf("%w %d (this build reads %d to %d)", errWALVersion, data[7], walVersionMin, walVersion)
	}
	off := int64(len(walMagic))
	if data[7] >= 2 {
		if len(data) < 16 {
			s.tail = "incomplete header"
			return s, nil
		}
		n := int64(binary.LittleEndian.Uint32(data[8:]))
		if n > maxWALRecord || 16+n > int64(len(data)) {
			s.tail = "incomplete header"
			return s, nil
		}
		tree := data[16 : 16+n]
		if crc32.Checksum(tree, crcTable) != binary.LittleEndian.Uint32(data[12:]) {
			s.tail = "checksum mismatch in the header"
			return s, nil
		}
		s.tree, off = tree, 16+n
	}
	s.validEnd = off
	for off < int64(len(data)) {
		rest := data[off:]
		if len(rest) < 8 {
			s.tail = "incomplete record header"
			return s, nil
		}
		n := int64(binary.LittleEndian.Uint32(rest))
		sum := binary.LittleEndian.Uint32(rest[4:])
		if n > maxWALRecord || n < 24 {
			s.tail = fmt.Sprintf("implausible record length %d", n)
			return s, nil
		}
		if 8+n > int64(len(rest)) {
			s.tail = "record cut short"
			return s, nil
		}
		payload := rest[8 : 8+n]
		if crc32.Checksum(payload, crcTable) != sum {
			if off+8+n == int64(len(data)) {
				s.tail = "checksum mismatch in the last record"
				return s, nil
			}
			// A damaged record in the middle: its length still leads to a
			// well-formed next record, so only this one is lost.
			if next := data[off+8+n:]; !plausibleRecord(next) {
				s.tail = "checksum mismatch"
				return s, nil
			}
			s.skipped = append(s.skipped, off)
			off += 8 + n
			s.validEnd = off
			continue
		}
		b, err := decodeWALBatch(payload)
		if err != nil {
			s.tail = err.Error()
			return s, nil
		}
		s.batches = append(s.batches, b)
		off += 8 + n
		s.validEnd = off
	}
	return s, nil
}

// plausibleRecord reports whether p starts with a record whose checksum holds.
func plausibleRecord(p []byte) bool {
	if len(p) < 8 {
		return false
	}
	n := int64(binary.LittleEndian.Uint32(p))
	if n > maxWALRecord || n < 24 || 8+n > int64(len(p)) {
		return false
	}
	return crc32.Checksum(p[8:8+n], crcTable) == binary.LittleEndian.Uint32(p[4:])
}

// wal appends records to a source's current WAL file and makes them durable
// with group commit: a caller that needs its bytes on disk either finds them
// already synced or syncs everything written so far, for every caller
// waiting meanwhile.
//
// Offsets are logical: they grow over every file of the source. A failed
// fsync (a full disk) cuts the file back to its last synced byte, so that
// later records are not written after bytes the kernel may have dropped, and
// starts a new generation: a record of an earlier generation is durable only
// if it was synced before the cut. Its events may already be visible in
// memory; they were never acknowledged, and a restart forgets them.
type wal struct {
	dir string

	mu       sync.Mutex // guards every field below but synced
	f        *os.File
	seq      uint64 // segment whose events the current file holds
	fileBase int64  // logical offset of the current file's first record byte
	fileHead int64  // bytes of header before it
	written  int64  // logical end of what has been written
	gen      uint64
	genEnd   map[uint64]int64 // ended generation → bytes synced when it ended
	tree     []byte           // the field tree a new file's header carries
	failure  error            // the fsync error that ended the last generation
	// broken is set when the current file could not be cut back after a
	// failure: nothing is written until repair cuts it to brokenAt (-1:
	// never, the WAL is closed).
	broken   error
	brokenAt int64

	syncMu sync.Mutex   // one fsync at a time; waiters queue here
	synced atomic.Int64 // logical bytes known durable

	fs fileSystem
	// notify, when set, is told that synced moved (the feed's readers wait
	// for it).
	notify func()
}

// advance records that every byte up to end is durable. Called with mu held.
func (w *wal) advance(end int64) {
	w.synced.Store(end)
	if w.notify != nil {
		w.notify()
	}
}

// walBufs holds record encoding buffers, shared by every source's WAL (a
// buffer per source would pin one large body's worth each).
var walBufs = sync.Pool{New: func() any { return new([]byte) }}

// walPos says where a record started and ended, and in which generation.
type walPos struct {
	start, end int64
	gen        uint64
}

// append writes one record to the current file, creating the file if a
// rotation could not. On a failed write it cuts the file back to where the
// record started, so no partial record is left for later records to follow.
func (w *wal) append(b *walBatch) (walPos, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken != nil {
		return walPos{}, w.broken
	}
	if w.f == nil {
		if err := w.openFile(); err != nil {
			return walPos{}, err
		}
	}
	bp := walBufs.Get().(*[]byte)
	buf := b.encode((*bp)[:0])
	defer func() {
		if cap(buf) <= 16<<20 { // at most one body and its framing
			*bp = buf
			walBufs.Put(bp)
		}
	}()
	start := w.fileHead + (w.written - w.fileBase)
	if _, err := w.fs.write(w.f, buf); err != nil {
		w.cutBack(start)
		return walPos{}, fmt.Errorf("wal %s: %w", w.f.Name(), err)
	}
	w.written += int64(len(buf))
	return walPos{start: w.written - int64(len(buf)), end: w.written, gen: w.gen}, nil
}

// cutBack truncates the current file to off and positions writes there;
// when it cannot, the WAL is broken until repair can. Called with mu held.
func (w *wal) cutBack(off int64) {
	if err := w.fs.truncate(w.f, off); err != nil {
		w.broken, w.brokenAt = fmt.Errorf("wal %s: a failed write could not be undone: %w", w.f.Name(), err), off
		return
	}
	if _, err := w.f.Seek(off, io.SeekStart); err != nil {
		w.broken, w.brokenAt = fmt.Errorf("wal %s: %w", w.f.Name(), err), off
	}
}

// repair tries again to cut a broken file back (cutBack), and reports the
// error that remains: nil once the file ends where it must and takes
// records again.
func (w *wal) repair() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken == nil || w.brokenAt < 0 || w.f == nil {
		return w.broken
	}
	at := w.brokenAt
	w.broken = nil
	w.cutBack(at)
	return w.broken
}

// isBroken reports whether the WAL takes no records until repaired.
func (w *wal) isBroken() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.broken != nil
}

// sync returns once the record ending at p is on disk, or an error when it
// cannot be (then it must not be acknowledged).
func (w *wal) sync(p walPos) error {
	// synced is read before lost: a mark read afterwards could come from a
	// later generation that reuses p's offsets after p was cut.
	synced := w.synced.Load()
	if err := w.lost(p); err != nil {
		return err
	}
	if synced >= p.end {
		return nil
	}
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	if err := w.lost(p); err != nil {
		return err
	}
	if w.synced.Load() >= p.end {
		return nil // a sync that ran while we queued covered us
	}
	w.mu.Lock()
	f, end, gen := w.f, w.written, w.gen
	w.mu.Unlock()
	if f == nil {
		return errors.New("wal: no file to sync")
	}
	err := w.fs.sync(f)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		w.advance(end)
		return nil
	}
	// The kernel may have dropped what it could not write: cut the file back
	// to what is known durable, and end this generation.
	if w.f == f && w.gen == gen {
		synced := w.synced.Load()
		w.cutBack(w.fileHead + max(0, synced-w.fileBase))
		// The file now ends at synced: keep the logical offsets in step
		// with it (append and this cut map one to the other).
		// Offsets of the ended generation are reused; lost tells them apart.
		w.written = max(synced, w.fileBase)
		w.genEnd[w.gen] = synced
		w.failure = err
		if len(w.genEnd) > 1024 {
			for g := range w.genEnd {
				if g+1024 < w.gen {
					delete(w.genEnd, g)
				}
			}
		}
		w.gen++
	}
	return fmt.Errorf("wal %s: fsync: %w", f.Name(), err)
}

// syncAll returns once everything written is on disk (sync of the last
// record).
func (w *wal) syncAll() error {
	w.mu.Lock()
	p := walPos{start: w.written, end: w.written, gen: w.gen}
	w.mu.Unlock()
	return w.sync(p)
}

// lost reports an error when p's generation ended before p was synced.
func (w *wal) lost(p walPos) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p.gen == w.gen {
		return nil
	}
	if end, ok := w.genEnd[p.gen]; ok && p.end <= end {
		return nil
	}
	if w.failure != nil {
		return fmt.Errorf("wal: the write was undone after a failed fsync: %w", w.failure)
	}
	return errors.New("wal: the write was undone after a failed fsync")
}

// rotate makes the current file durable, closes it and starts the file of
// segment seq, whose header carries tree. Called with the source lock held,
// once per segment. When the new file cannot be made, the next append tries
// again.
func (w *wal) rotate(seq uint64, tree []byte) error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		if err := w.fs.sync(w.f); err != nil {
			// What this file holds past the synced mark is in doubt; the
			// rest is durable. Nothing more goes into it either way.
			w.genEnd[w.gen] = w.synced.Load()
			w.failure = err
			w.gen++
		} else {
			w.advance(w.written)
		}
		w.f.Close()
		w.f = nil
	}
	w.seq, w.tree = seq, tree
	return w.openFile()
}

// openFile creates the current segment's file. Called with mu held.
func (w *wal) openFile() error {
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	if err := syncDir(filepath.Dir(w.dir)); err != nil {
		return err
	}
	header := walHeader(w.tree)
	f, err := createWALFile(w.fs, w.dir, w.seq, header)
	if err != nil {
		return err
	}
	w.f, w.fileBase, w.fileHead = f, w.written, int64(len(header))
	return nil
}

// close syncs and closes the current file; appends fail afterwards.
func (w *wal) close() error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.broken, w.brokenAt = errClosed, -1
	if w.f == nil {
		return nil
	}
	err := w.fs.sync(w.f)
	if err == nil {
		w.synced.Store(w.written)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return err
}

// createWALFile creates a new WAL file with its header, durably (the file's
// directory entry is synced too, or a crash could forget the file).
func createWALFile(fs fileSystem, dir string, seq uint64, header []byte) (*os.File, error) {
	name := walPath(dir, seq)
	// O_TRUNC: a file of this number can only be left by an earlier failed
	// attempt (numbers only grow), and holds no record.
	f, err := os.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o644) // read back by rebuildOpen
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	if _, err := fs.write(f, header); err != nil {
		f.Close()
		os.Remove(name)
		return nil, fmt.Errorf("wal %s: %w", name, err)
	}
	if err := fs.sync(f); err != nil {
		f.Close()
		os.Remove(name)
		return nil, fmt.Errorf("wal %s: fsync: %w", name, err)
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// fileSystem is the seam through which WAL writes and syncs go, so tests can
// inject a full disk or a failing fsync.
type fileSystem interface {
	write(f *os.File, b []byte) (int, error)
	sync(f *os.File) error
	truncate(f *os.File, size int64) error
	read(f *os.File) ([]byte, error) // the whole file
}

type osFS struct{}

func (osFS) write(f *os.File, b []byte) (int, error) { return f.Write(b) }
func (osFS) sync(f *os.File) error                   { return f.Sync() }
func (osFS) truncate(f *os.File, n int64) error      { return f.Truncate(n) }
func (osFS) read(f *os.File) ([]byte, error)         { return readAll(f) }

// readAll reads a whole file through its descriptor, whatever its offset.
func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	n, err := f.ReadAt(data, 0)
	if err == io.EOF {
		err = nil
	}
	return data[:n], err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

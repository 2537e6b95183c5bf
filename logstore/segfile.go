package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"unsafe"
)

// Segment files. A sealed segment is written once, as the columns it holds in
// memory, and never changed (docs/storage.md has the layout):
//
//	header   8 bytes: "LQSEG" 0 0 segVersion
//	blobs    each column part's raw little-endian array, 8-byte aligned
//	meta     segment and column descriptions (varints; see encodeMeta),
//	         each column with the CRC-32C of its parts' bytes
//	trailer  u64 meta offset | u64 meta length | u32 CRC-32C of the meta |
//	         u32 0 | "LQSEGEND"
//
// Opening a file reads and checks only its trailer and meta, so a restart
// costs the meta of each file, not its size. A column's checksum is checked
// when the column is read (on demand, part by part, into ordinary Go memory
// held by a bounded cache: colcache.go), and by the check that runs through
// every file in the background after a start (scrub.go). A file that fails
// either is moved aside.
//
// Version 3 stores each column's span of stored rows (lo, hi); version 2
// files (every row stored) are read as before. Version 1 (a whole-file
// checksum, checked at every start) was never released; this build refuses
// it like any other unknown version.

const (
	segVersion    = 3
	segVersionMin = 2 // the oldest this build reads
)

var (
	segMagic    = [8]byte{'L', 'Q', 'S', 'E', 'G', 0, 0, segVersion}
	segTrailer  = [8]byte{'L', 'Q', 'S', 'E', 'G', 'E', 'N', 'D'}
	errSegFile  = errors.New("corrupt segment file")
	errSegVer   = errors.New("unknown segment file version")
	littleEndAt = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()
)

const segTrailerLen = 32

// fileReader is what loadColumn reads from: an *os.File, or bytes in tests.
type fileReader interface {
	ReadAt(p []byte, off int64) (int, error)
	Name() string
}

// maxSegmentRows bounds the rows a segment file may claim when read.
const maxSegmentRows = 1 << 26

const segPrefix, segSuffix = "seg-", ".lqs"

func segPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%016d%s", segPrefix, seq, segSuffix))
}

// asBytes views a slice's elements as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// writeSegmentFile writes a sealed segment and the source's field tree (as
// encodeNode wrote it) durably: streamed through a buffer into a temporary
// file, fsynced, renamed into place, directory fsynced. Streaming keeps a
// seal from holding a second copy of the segment in memory.
func writeSegmentFile(fs fileSystem, dir string, seg *Segment, tree []byte) error {
	return writeSegmentFileAs(fs, dir, segPath(dir, seg.seq), seg, tree)
}

// writeSegmentFileAs is writeSegmentFile to another final name (a merge
// writes beside the file it will replace, and renames only once it may).
func writeSegmentFileAs(fs fileSystem, dir, final string, seg *Segment, tree []byte) error {
	if !littleEndAt {
		return errors.New("segment files need a little-endian machine")
	}
	if !seg.sealed {
		return errors.New("segment file: the segment is not sealed")
	}
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("segment file: %w", err)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("segment file %s: %w", tmp, err)
	}
	w := &segWriter{fs: fs, f: f, buf: make([]byte, 0, 1<<20)}
	w.write(segMagic[:])
	meta := segMeta{seq: seg.seq, first: seg.first, rows: seg.rows, minTS: seg.minTS, maxTS: seg.maxTS,
		blockMin: seg.blockMin, blockMax: seg.blockMax}
	paths := make([]string, 0, len(seg.cols))
	for p := range seg.cols {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		c := seg.cols[p]
		fe, ok := c.enc.(fileEncoding)
		if !ok {
			return fail(fmt.Errorf("column %s is not in a sealed encoding", p))
		}
		m := colMeta{path: p, kind: c.kind, n: c.n, lo: c.lo, hi: c.hi, nulls: c.nulls.count}
		w.crc = 0
		m.parts[partNullBits] = w.blob(asBytes(c.nulls.bits))
		fe.write(&m, w)
		m.crc = w.crc
		meta.cols = append(meta.cols, m)
	}
	metaOff := w.off
	mb := encodeMeta(nil, &meta, tree)
	w.write(mb)
	var t []byte
	t = binary.LittleEndian.AppendUint64(t, uint64(metaOff))
	t = binary.LittleEndian.AppendUint64(t, uint64(len(mb)))
	t = binary.LittleEndian.AppendUint32(t, crc32.Checksum(mb, crcTable))
	t = binary.LittleEndian.AppendUint32(t, 0)
	t = append(t, segTrailer[:]...)
	w.write(t)
	w.flush()
	if w.err != nil {
		return fail(w.err)
	}
	if err := fs.sync(f); err != nil {
		return fail(fmt.Errorf("fsync: %w", err))
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("segment file %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("segment file: %w", err)
	}
	return syncDir(dir)
}

// segWriter streams a segment file: it buffers, tracks the offset, and
// checksums the blobs it writes (crc, reset per column).
type segWriter struct {
	fs  fileSystem
	f   *os.File
	buf []byte
	off int64
	crc uint32
	err error
}

func (w *segWriter) write(b []byte) {
	w.off += int64(len(b))
	if len(w.buf)+len(b) > cap(w.buf) {
		w.flush()
	}
	if len(b) > cap(w.buf) {
		if w.err == nil {
			_, w.err = w.fs.write(w.f, b)
		}
		return
	}
	w.buf = append(w.buf, b...)
}

func (w *segWriter) flush() {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.fs.write(w.f, w.buf)
	}
	w.buf = w.buf[:0]
}

// blob writes b at the next 8-byte boundary and says where.
func (w *segWriter) blob(b []byte) blobRef {
	var pad [8]byte
	w.write(pad[:(8-w.off%8)%8])
	ref := blobRef{off: w.off, len: int64(len(b))}
	w.crc = crc32.Update(w.crc, crcTable, b)
	w.write(b)
	return ref
}

// readSegmentMeta checks a segment file's header, trailer and meta (not its
// columns: see loadColumn) and returns its description.
func readSegmentMeta(f fileReader, size int64) (*segMeta, error) {
	if size < int64(len(segMagic)+segTrailerLen) {
		return nil, fmt.Errorf("%w: %d bytes is too short", errSegFile, size)
	}
	var head [len(segMagic)]byte
	var t [segTrailerLen]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if _, err := f.ReadAt(t[:], size-segTrailerLen); err != nil {
		return nil, err
	}
	if string(head[:5]) != string(segMagic[:5]) || string(t[segTrailerLen-8:]) != string(segTrailer[:]) {
		return nil, fmt.Errorf("%w: missing header or trailer", errSegFile)
	}
	if head[7] < segVersionMin || head[7] > segVersion || head[5] != 0 || head[6] != 0 {
		return nil, fmt.Errorf("%w %d (this build reads %d to %d)", errSegVer, head[7], segVersionMin, segVersion)
	}
	metaOff, metaLen := binary.LittleEndian.Uint64(t[:]), binary.LittleEndian.Uint64(t[8:])
	body := uint64(size - segTrailerLen)
	if metaOff < uint64(len(segMagic)) || metaLen > body || metaOff > body-metaLen {
		return nil, fmt.Errorf("%w: bad meta position", errSegFile)
	}
	p := make([]byte, metaLen)
	if _, err := f.ReadAt(p, int64(metaOff)); err != nil {
		return nil, err
	}
	if crc32.Checksum(p, crcTable) != binary.LittleEndian.Uint32(t[16:]) {
		return nil, fmt.Errorf("%w: meta checksum mismatch", errSegFile)
	}
	m, err := decodeMeta(p, int(metaOff), head[7])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSegFile, err)
	}
	return m, nil
}

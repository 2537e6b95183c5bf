package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
	"unsafe"

	"logq/event"
	"logq/types"
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

// The parts of a column, each stored as one blob.
const (
	partNullBits = iota
	partInts
	partInts8
	partInts16
	partInts32
	partFloats
	partDictData
	partDictOffs
	partCodes
	partCodes8
	partCodes16
	partData
	partOffs
	partZData
	partZStarts
	partVals
	numParts
)

// partSize is the byte width of one element of each part.
var partSize = [numParts]int{8, 8, 1, 2, 4, 8, 1, 4, 4, 1, 2, 1, 4, 1, 4, 1}

type blobRef struct{ off, len int64 }

// colMeta describes one column of a segment file.
type colMeta struct {
	path   string
	kind   types.Kind
	n      int
	lo, hi int // the stored rows (version 2: every row)
	nulls  int // among the stored rows
	width  uint8
	base   int64
	plain  bool
	parts  [numParts]blobRef
	crc    uint32 // CRC-32C of the parts' bytes, in part order
	crcAt  int    // where crc is in the meta (fuzzing rewrites it)
}

// stored is the number of rows the column's parts hold.
func (m *colMeta) stored() int { return m.hi - m.lo }

// bytes is what the column takes in memory once loaded.
func (m *colMeta) bytes() int64 {
	var b int64
	for _, p := range m.parts {
		b += p.len
	}
	return b + 128
}

// segMeta is what a segment file says of itself.
type segMeta struct {
	seq                uint64
	first              uint64 // a merged segment covers first..seq; else 0
	rows               int
	minTS, maxTS       int64
	blockMin, blockMax []int64
	tree               *event.Tree
	cols               []colMeta
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

func encodeMeta(dst []byte, m *segMeta, tree []byte) []byte {
	dst = binary.AppendUvarint(dst, m.seq)
	dst = binary.AppendUvarint(dst, m.first)
	dst = binary.AppendUvarint(dst, uint64(m.rows))
	dst = binary.AppendVarint(dst, m.minTS)
	dst = binary.AppendVarint(dst, m.maxTS)
	dst = binary.AppendUvarint(dst, uint64(len(m.blockMin)))
	for i := range m.blockMin {
		// Deltas from the segment's first time: a few bytes each.
		dst = binary.AppendVarint(dst, m.blockMin[i]-m.minTS)
		dst = binary.AppendVarint(dst, m.blockMax[i]-m.minTS)
	}
	dst = append(dst, tree...) // encodeNode's output
	dst = binary.AppendUvarint(dst, uint64(len(m.cols)))
	for _, c := range m.cols {
		dst = appendString(dst, c.path)
		dst = append(dst, byte(c.kind), c.width, boolByte(c.plain))
		dst = binary.AppendUvarint(dst, uint64(c.n))
		dst = binary.AppendUvarint(dst, uint64(c.nulls))
		dst = binary.AppendVarint(dst, c.base)
		dst = binary.AppendUvarint(dst, uint64(c.lo))
		dst = binary.AppendUvarint(dst, uint64(c.hi))
		for _, p := range c.parts {
			dst = appendRef(dst, p)
		}
		dst = binary.LittleEndian.AppendUint32(dst, c.crc)
	}
	return dst
}

// decodeMeta reads a segment file's meta; blobs is where the meta starts,
// which every blob must end before.
func decodeMeta(p []byte, blobs int, version byte) (*segMeta, error) {
	r := &metaReader{p: p}
	m := &segMeta{seq: r.uvarint(), first: r.uvarint(), rows: r.count(maxSegmentRows), minTS: r.varint(), maxTS: r.varint()}
	if m.first > m.seq {
		r.fail("a merged segment covering numbers after its own")
	}
	blocks := (m.rows + TimeBlock - 1) / TimeBlock
	if nb := r.count(blocks); nb > 0 {
		if nb != blocks {
			r.fail("bad block time ranges")
		}
		m.blockMin, m.blockMax = make([]int64, nb), make([]int64, nb)
		for i := 0; i < nb && r.err == nil; i++ {
			m.blockMin[i], m.blockMax[i] = m.minTS+r.varint(), m.minTS+r.varint()
		}
	}
	m.tree = r.tree()
	ncols := r.count(len(p))
	if r.err != nil {
		return nil, r.err
	}
	for i := 0; i < ncols && r.err == nil; i++ {
		c := colMeta{path: r.string(), kind: types.Kind(r.byte()), width: r.byte(), plain: r.byte() != 0,
			n: r.count(m.rows), nulls: r.count(m.rows), base: r.varint()}
		c.hi = c.n
		if version >= 3 {
			c.lo, c.hi = r.count(m.rows), r.count(m.rows)
			if c.lo > c.hi {
				r.fail(fmt.Sprintf("column %s stores rows %d to %d", c.path, c.lo, c.hi))
			}
		}
		for j := range c.parts {
			c.parts[j] = r.ref(blobs)
			if c.parts[j].len%int64(partSize[j]) != 0 {
				r.fail("part length is not a whole number of elements")
			}
		}
		c.crcAt = r.i
		c.crc = r.uint32()
		if r.err == nil && c.n != m.rows {
			r.fail(fmt.Sprintf("column %s has %d rows in a segment of %d", c.path, c.n, m.rows))
		}
		if r.err == nil {
			r.err = c.check()
		}
		m.cols = append(m.cols, c)
	}
	if r.err == nil && r.i != len(r.p) {
		r.fail("trailing bytes")
	}
	return m, r.err
}

// check rejects a column whose parts do not fit its row count, so that a
// damaged file that passed its checksum cannot make a reader index past a
// slice.
func (c *colMeta) check() error {
	count := func(p int) int { return int(c.parts[p].len) / partSize[p] }
	if c.kind > types.KindStruct || c.n < 0 {
		return errors.New("bad column kind")
	}
	n := c.stored()
	if c.hi > c.n || c.nulls > n || (n == 0 && c.n > 0) {
		// (The writer drops a column that stores no row.)
		return fmt.Errorf("column %s: stored rows out of range", c.path)
	}
	if c.nulls > 0 && count(partNullBits) != (n+63)/64 {
		return fmt.Errorf("column %s: null bitmap of the wrong size", c.path)
	}
	ok := true
	switch c.kind {
	case types.KindFloat64:
		ok = count(partFloats) == n
	case types.KindArray:
		ok = c.parts[partVals].len > 0 || n == 0
	case types.KindString:
		if c.plain {
			ok = c.parts[partZData].len > 0 || count(partOffs) == n+1
		} else {
			ok = count(partCodes)+count(partCodes8)+count(partCodes16) == n && count(partDictOffs) >= 1
		}
	default:
		switch c.width {
		case 0:
		case 1:
			ok = count(partInts8) == n
		case 2:
			ok = count(partInts16) == n
		case 4:
			ok = count(partInts32) == n
		case 8:
			ok = count(partInts) == n
		default:
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("column %s: parts do not match %d rows", c.path, n)
	}
	return nil
}

// partReader reads a column's parts from a segment file, in part order,
// checksumming them as the writer did; its first error stops the rest.
type partReader struct {
	f   fileReader
	m   *colMeta
	crc uint32
	err error
}

// readPart reads part p into a new slice of its element type (nil when the
// part is empty or an earlier read failed).
func readPart[T any](r *partReader, p int) []T {
	n := int(r.m.parts[p].len) / partSize[p]
	if n == 0 || r.err != nil {
		return nil
	}
	out := make([]T, n)
	_, r.err = r.f.ReadAt(asBytes(out), r.m.parts[p].off)
	r.crc = crc32.Update(r.crc, crcTable, asBytes(out))
	return out
}

// loadColumn reads one column from the file into memory: its NULL bitmap,
// then its encoding's parts (which the meta's kind, width and plain flag
// name), checked against the column's checksum and then for what indexing
// relies on.
func loadColumn(f fileReader, m *colMeta) (*Column, error) {
	r := &partReader{f: f, m: m}
	c := &Column{Path: m.path, kind: m.kind, n: m.n, lo: m.lo, hi: m.hi}
	c.nulls = loadNulls(r)
	var (
		enc encoding
		vb  []byte
	)
	switch {
	case isInt(m.kind):
		enc = loadInts(r)
	case m.kind == types.KindFloat64:
		enc = loadFloats(r)
	case m.kind == types.KindString && !m.plain:
		enc = loadDictionary(r)
	case m.kind == types.KindString && m.parts[partZData].len > 0:
		enc = loadZStrings(r)
	case m.kind == types.KindString:
		enc = loadPlain(r)
	case m.kind == types.KindArray:
		vb = readPart[byte](r, partVals)
	default:
		return nil, fmt.Errorf("segment file %s, column %s: %w: a column of kind %v", f.Name(), m.path, errSegFile, m.kind)
	}
	if r.err != nil {
		return nil, fmt.Errorf("segment file %s, column %s: %w", f.Name(), m.path, r.err)
	}
	if r.crc != m.crc {
		return nil, fmt.Errorf("segment file %s, column %s: %w: checksum mismatch", f.Name(), m.path, errSegFile)
	}
	if m.kind == types.KindArray {
		var err error
		if enc, err = decodeArrays(vb, m.stored()); err != nil {
			return nil, fmt.Errorf("segment file %s, column %s: %w", f.Name(), m.path, err)
		}
	}
	c.setEnc(enc)
	if v, ok := enc.(validator); ok {
		if err := v.validate(m.stored(), &c.nulls); err != nil {
			return nil, fmt.Errorf("segment file %s: column %s: %w", f.Name(), m.path, err)
		}
	}
	return c, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendRef(dst []byte, r blobRef) []byte {
	dst = binary.AppendUvarint(dst, uint64(r.off))
	return binary.AppendUvarint(dst, uint64(r.len))
}

// encodeTree writes a field tree: what each path is (scalar kind, object,
// array and its element type) and its children in first-seen order.
func encodeTree(dst []byte, t *event.Tree) []byte { return encodeNode(dst, t.Root()) }

func encodeNode(dst []byte, n *event.Node) []byte {
	dst = appendString(dst, n.Name)
	dst = append(dst, byte(n.Kind), boolByte(n.Object), boolByte(n.Array))
	dst = encodeType(dst, n.Elem)
	dst = binary.AppendUvarint(dst, uint64(len(n.Children)))
	for _, c := range n.Children {
		dst = encodeNode(dst, c)
	}
	return dst
}

// decodeTree reads encodeTree's output into a new tree (with no field cap:
// its fields were made under one).
func decodeTree(b []byte) (*event.Tree, error) {
	r := metaReader{p: b}
	t := r.tree()
	if r.err == nil && r.i != len(b) {
		r.fail("trailing bytes after the field tree")
	}
	return t, r.err
}

func encodeType(dst []byte, t types.Type) []byte {
	dst = append(dst, byte(t.Kind))
	switch t.Kind {
	case types.KindArray:
		if t.Elem == nil {
			return encodeType(dst, types.Null)
		}
		return encodeType(dst, *t.Elem)
	case types.KindStruct:
		dst = binary.AppendUvarint(dst, uint64(len(t.Fields)))
		for _, f := range t.Fields {
			dst = appendString(dst, f.Name)
			dst = encodeType(dst, f.Type)
		}
	}
	return dst
}

func encodeValue(dst []byte, v types.Value) []byte {
	dst = encodeType(dst, v.T)
	dst = append(dst, boolByte(v.Null))
	if v.Null {
		return dst
	}
	switch v.T.Kind {
	case types.KindFloat64:
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
	case types.KindString, types.KindBytes:
		dst = appendString(dst, v.S)
	case types.KindArray, types.KindStruct:
		dst = binary.AppendUvarint(dst, uint64(len(v.L)))
		for _, e := range v.L {
			dst = encodeValue(dst, e)
		}
	default:
		dst = binary.AppendVarint(dst, v.I)
	}
	return dst
}

// maxFileDepth bounds nesting when decoding, so a crafted file cannot exhaust
// the stack.
const maxFileDepth = 64

// metaReader decodes varint-framed data, remembering the first error so
// callers check once.
type metaReader struct {
	p   []byte
	i   int
	err error
}

func (r *metaReader) fail(what string) {
	if r.err == nil {
		r.err = errors.New(what)
	}
}

func (r *metaReader) byte() byte {
	if r.err != nil || r.i >= len(r.p) {
		r.fail("truncated")
		return 0
	}
	r.i++
	return r.p[r.i-1]
}

func (r *metaReader) uint32() uint32 {
	if r.err != nil || r.i+4 > len(r.p) {
		r.fail("truncated")
		return 0
	}
	r.i += 4
	return binary.LittleEndian.Uint32(r.p[r.i-4:])
}

func (r *metaReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Uvarint(r.p[r.i:])
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.i += k
	return v
}

func (r *metaReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, k := binary.Varint(r.p[r.i:])
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.i += k
	return v
}

// count reads a non-negative integer no larger than limit.
func (r *metaReader) count(limit int) int {
	v := r.uvarint()
	if v > uint64(limit) {
		r.fail("count out of range")
		return 0
	}
	return int(v)
}

func (r *metaReader) string() string {
	v := r.uvarint() // before the bound: reading it moves r.i
	if r.err == nil && v > uint64(len(r.p)-r.i) {
		r.fail("string past the end")
	}
	if r.err != nil {
		return ""
	}
	n := int(v)
	s := string(r.p[r.i : r.i+n])
	r.i += n
	return s
}

func (r *metaReader) ref(limit int) blobRef {
	off, n := r.uvarint(), r.uvarint()
	if off > uint64(limit) || n > uint64(limit)-off {
		r.fail("blob outside the file")
		return blobRef{}
	}
	return blobRef{off: int64(off), len: int64(n)}
}

func (r *metaReader) typ(depth int) types.Type {
	if depth > maxFileDepth {
		r.fail("types nested too deeply")
		return types.Null
	}
	k := types.Kind(r.byte())
	switch k {
	case types.KindArray:
		e := r.typ(depth + 1)
		return types.ArrayOf(e)
	case types.KindStruct:
		n := r.count(len(r.p) - r.i)
		fields := make([]types.Field, 0, min(n, 64))
		for i := 0; i < n && r.err == nil; i++ {
			name := r.string()
			fields = append(fields, types.Field{Name: name, Type: r.typ(depth + 1)})
		}
		return types.StructOf(fields...)
	}
	if k > types.KindStruct {
		r.fail("bad type kind")
	}
	return types.Type{Kind: k}
}

func (r *metaReader) value(depth int) types.Value {
	t := r.typ(depth)
	if r.byte() != 0 {
		return types.NullOf(t)
	}
	v := types.Value{T: t}
	switch t.Kind {
	case types.KindFloat64:
		if r.err == nil && r.i+8 <= len(r.p) {
			v.F = math.Float64frombits(binary.LittleEndian.Uint64(r.p[r.i:]))
			r.i += 8
		} else {
			r.fail("truncated")
		}
	case types.KindString, types.KindBytes:
		v.S = r.string()
	case types.KindArray, types.KindStruct:
		n := r.count(len(r.p) - r.i)
		for i := 0; i < n && r.err == nil; i++ {
			v.L = append(v.L, r.value(depth+1))
		}
	default:
		v.I = r.varint()
	}
	return v
}

// tree reads a field tree (encodeTree) into a new tree.
func (r *metaReader) tree() *event.Tree {
	t := event.NewTree(0)
	r.string() // the root's name, always empty
	r.nodeInto(t.Root(), 0)
	return t
}

// nodeInto reads the rest of a node (after its name) into n, then its
// children.
func (r *metaReader) nodeInto(n *event.Node, depth int) {
	if depth > maxFileDepth {
		r.fail("fields nested too deeply")
		return
	}
	n.Kind, n.Object, n.Array = types.Kind(r.byte()), r.byte() != 0, r.byte() != 0
	n.Elem = r.typ(0)
	count := r.count(len(r.p) - r.i)
	for i := 0; i < count && r.err == nil; i++ {
		r.nodeInto(n.Child(r.string()), depth+1)
	}
}

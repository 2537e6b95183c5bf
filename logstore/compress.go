package logstore

import (
	"encoding/binary"
	"errors"
	"logq/types"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// Nearly unique strings (messages, ids, request lines) are most of what a log
// store holds. Sealed plain columns are therefore zstd-compressed in blocks of
// blockRows values when that saves at least a third; a reader decodes the
// blocks it touches. Each block holds the values' lengths (uvarints) followed
// by their bytes, after the number of values.

const blockRows = 1024

var (
	zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
)

// zstrings is a compressed plain string column: its blocks back to back in
// one buffer (one exactly sized allocation, not one per block).
type zstrings struct {
	data   []byte
	starts []uint32 // block b is data[starts[b]:starts[b+1]]
	n      int      // rows
	// recent are the last two blocks decoded, for point reads. Two, not
	// one: the newest rows of a segment often straddle a block boundary,
	// and a query reading them (logs.all's newest 100, every call) would
	// otherwise decode both blocks again on each call.
	recent [2]atomic.Pointer[decoded]
}

type decoded struct {
	block int
	data  []byte
	offs  []uint32 // len rows+1
}

// compress returns the values compressed, or nil when that would not save
// enough.
func (p *plainStrings) compress() *zstrings {
	raw := len(p.data) + 4*len(p.offs)
	if raw < 64<<10 {
		return nil // too small to matter
	}
	n := len(p.offs) - 1
	z := &zstrings{starts: []uint32{0}, n: n}
	var buf, out []byte
	for start := 0; start < n; start += blockRows {
		end := min(start+blockRows, n)
		buf = binary.AppendUvarint(buf[:0], uint64(end-start))
		for i := start; i < end; i++ {
			buf = binary.AppendUvarint(buf, uint64(p.offs[i+1]-p.offs[i]))
		}
		buf = append(buf, p.data[p.offs[start]:p.offs[end]]...)
		out = zenc.EncodeAll(buf, out)
		z.starts = append(z.starts, uint32(len(out)))
	}
	if (len(out)+4*len(z.starts))*3 > raw*2 {
		return nil
	}
	z.data = append(make([]byte, 0, len(out)), out...)
	return z
}

func (z *zstrings) str(i int) string { return z.block(i / blockRows).str(i % blockRows) }

// gather decodes each block the rows touch once (rows ascend within a
// batch), into memory the returned strings keep alive.
func (z *zstrings) gather(rows []int32, dst []string) {
	var d *decoded
	for k, r := range rows {
		b := int(r) / blockRows
		if d == nil || d.block != b {
			d = z.decode(b)
		}
		lo, hi := d.offs[int(r)%blockRows], d.offs[int(r)%blockRows+1]
		dst[k] = unsafe.String(unsafe.SliceData(d.data[lo:hi]), int(hi-lo))
	}
}

func (z *zstrings) write(m *colMeta, w *segWriter) {
	m.plain = true
	m.parts[partZData] = w.blob(z.data)
	m.parts[partZStarts] = w.blob(asBytes(z.starts))
}

// zstringsForm is a compressed plain STRING column in a segment file: the
// zstd blocks, and where each starts (validate checks them).
var zstringsForm = fileForm{
	is: func(m *colMeta) bool {
		return m.kind == types.KindString && m.plain && m.parts[partZData].len > 0
	},
	fits: func(*colMeta, int) bool { return true },
	load: func(r *partReader) (encoding, error) {
		return &zstrings{data: readPart[byte](r, partZData), starts: readPart[uint32](r, partZStarts), n: r.m.stored()}, nil
	},
}

func (z *zstrings) validate(int, *nullMask) error {
	if !monotone(z.starts, len(z.data)) || len(z.starts) != (z.n+blockRows-1)/blockRows+1 {
		return errors.New("compressed blocks out of range")
	}
	return nil
}

// block returns decoded block b, from the two-entry cache when it holds it.
// Concurrent readers may decode the same block twice, or keep another's
// block out of the cache; none of that is wrong.
func (z *zstrings) block(b int) *decoded {
	for i := range z.recent {
		if d := z.recent[i].Load(); d != nil && d.block == b {
			return d
		}
	}
	d := z.decode(b)
	z.recent[1].Store(z.recent[0].Load())
	z.recent[0].Store(d)
	return d
}

func (z *zstrings) decode(b int) *decoded {
	// Only our own encoder wrote the block, and the column's checksum
	// passed; a block that still does not decode to its rows is damage the
	// checksum missed, which fails the query (exec recovers the panic)
	// rather than indexing past the data.
	corrupt := func(why string) { panic("logstore: corrupt compressed block: " + why) }
	out, err := zdec.DecodeAll(z.data[z.starts[b]:z.starts[b+1]], nil)
	if err != nil {
		corrupt(err.Error())
	}
	count, pos := binary.Uvarint(out)
	if pos <= 0 || count != uint64(min(blockRows, z.n-b*blockRows)) {
		corrupt("wrong row count")
	}
	d := &decoded{block: b, offs: make([]uint32, 1, count+1)}
	var total uint64
	for i := uint64(0); i < count; i++ {
		n, k := binary.Uvarint(out[pos:])
		if k <= 0 {
			corrupt("bad length")
		}
		pos += k
		total += n
		d.offs = append(d.offs, d.offs[i]+uint32(n))
	}
	if total != uint64(len(out)-pos) {
		corrupt("lengths do not match the data")
	}
	d.data = out[pos:]
	return d
}

func (d *decoded) str(i int) string { return string(d.data[d.offs[i]:d.offs[i+1]]) }

func (z *zstrings) bytes() int64 { return int64(len(z.data)) + 4*int64(len(z.starts)) }

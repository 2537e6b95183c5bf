package logstore

import (
	"encoding/binary"
	"sync/atomic"

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
	starts []uint32                // block b is data[starts[b]:starts[b+1]]
	last   atomic.Pointer[decoded] // the last block decoded, for point reads
}

// dataBytes and startBytes are the two parts a segment file stores (nil for
// a column that is not compressed).
func (z *zstrings) dataBytes() []byte {
	if z == nil {
		return nil
	}
	return z.data
}

func (z *zstrings) startBytes() []byte {
	if z == nil {
		return nil
	}
	return asBytes(z.starts)
}

type decoded struct {
	block int
	data  []byte
	offs  []uint32 // len rows+1
}

// compressPlain compresses c's plain bytes when that saves enough; it
// reports whether it did.
func (c *Column) compressPlain() bool {
	raw := len(c.data) + 4*len(c.offs)
	if raw < 64<<10 {
		return false // too small to matter
	}
	z := &zstrings{starts: []uint32{0}}
	var buf, out []byte
	for start := 0; start < c.n; start += blockRows {
		end := min(start+blockRows, c.n)
		buf = binary.AppendUvarint(buf[:0], uint64(end-start))
		for i := start; i < end; i++ {
			buf = binary.AppendUvarint(buf, uint64(c.offs[i+1]-c.offs[i]))
		}
		buf = append(buf, c.data[c.offs[start]:c.offs[end]]...)
		out = zenc.EncodeAll(buf, out)
		z.starts = append(z.starts, uint32(len(out)))
	}
	if (len(out)+4*len(z.starts))*3 > raw*2 {
		return false
	}
	z.data = append(make([]byte, 0, len(out)), out...)
	c.z, c.data, c.offs = z, nil, nil
	return true
}

// block returns decoded block b, from the one-entry cache when it holds it.
// Concurrent readers may decode the same block twice; neither is wrong.
func (z *zstrings) block(b int) *decoded {
	if d := z.last.Load(); d != nil && d.block == b {
		return d
	}
	d := z.decode(b)
	z.last.Store(d)
	return d
}

func (z *zstrings) decode(b int) *decoded {
	out, err := zdec.DecodeAll(z.data[z.starts[b]:z.starts[b+1]], nil)
	if err != nil {
		panic("logstore: corrupt compressed block: " + err.Error()) // only our own encoder wrote it
	}
	count, pos := binary.Uvarint(out)
	d := &decoded{block: b, offs: make([]uint32, 1, count+1)}
	for i := uint64(0); i < count; i++ {
		n, k := binary.Uvarint(out[pos:])
		pos += k
		d.offs = append(d.offs, d.offs[i]+uint32(n))
	}
	d.data = out[pos:]
	return d
}

func (d *decoded) str(i int) string { return string(d.data[d.offs[i]:d.offs[i+1]]) }

func (z *zstrings) bytes() int64 { return int64(len(z.data)) + 4*int64(len(z.starts)) }

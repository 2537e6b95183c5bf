package logstore

import (
	"errors"
	"logq/types"
	"unsafe"
)

// plainStrings is string values as bytes back to back with an offset per
// row: an open column's form once its values look nearly unique, and a
// sealed one's when compressing would not save enough.
type plainStrings struct {
	data []byte
	offs []uint32 // row i is data[offs[i]:offs[i+1]]
}

func (p *plainStrings) str(i int) string {
	a, b := p.offs[i], p.offs[i+1]
	if a == b {
		return ""
	}
	return unsafe.String(&p.data[a], int(b-a))
}

func (p *plainStrings) gather(rows []int32, dst []string) {
	for k, r := range rows {
		dst[k] = p.str(int(r))
	}
}

func (p *plainStrings) bytes() int64 { return int64(len(p.data)) + 4*int64(len(p.offs)) }

// append stores s (copied).
func (p *plainStrings) append(s string) {
	if len(p.data)+len(s) > cap(p.data) {
		p.data = growBy(p.data, len(s))
	}
	p.data = append(p.data, s...)
	if len(p.offs) == cap(p.offs) {
		p.offs = growBy(p.offs, 1)
	}
	p.offs = append(p.offs, uint32(len(p.data)))
}

// growBy returns s with room for n more, in a new array (snapshots keep
// the old one). append alone grows a large slice by a quarter, so an open
// segment's plain column of tens of MB was copied and cleared ~4 times
// its size on the way (~10% of an edge ingest's CPU); growing by half
// copies it ~twice, for at most a third of its size unused at seal.
func growBy[T any](s []T, n int) []T {
	c := max(cap(s)+cap(s)/2, len(s)+n, 64)
	out := make([]T, len(s), c)
	copy(out, s)
	return out
}

func (p *plainStrings) truncate(n int) {
	p.offs = p.offs[:n+1]
	p.data = p.data[:p.offs[n]]
}

func (p *plainStrings) permute(perm []int32) {
	data := make([]byte, 0, len(p.data))
	offs := make([]uint32, 1, len(perm)+1)
	for _, r := range perm {
		data = append(data, p.data[p.offs[r]:p.offs[r+1]]...)
		offs = append(offs, uint32(len(data)))
	}
	p.data, p.offs = data, offs
}

func (p *plainStrings) view(n int) encoding { return &plainStrings{data: p.data, offs: p.offs[:n+1]} }

// seal trims the slices and compresses them when that saves enough.
func (p *plainStrings) seal() stringValues {
	if z := p.compress(); z != nil {
		return z
	}
	return &plainStrings{data: trim(p.data), offs: trim(p.offs)}
}

func (p *plainStrings) write(m *colMeta, w *segWriter) {
	m.plain = true
	m.parts[partData] = w.blob(p.data)
	m.parts[partOffs] = w.blob(asBytes(p.offs))
}

// plainForm is an uncompressed plain STRING column in a segment file: the
// bytes of every value, and n+1 offsets into them.
var plainForm = fileForm{
	is: func(m *colMeta) bool {
		return m.kind == types.KindString && m.plain && m.parts[partZData].len == 0
	},
	fits: func(m *colMeta, n int) bool { return m.count(partOffs) == n+1 },
	load: func(r *partReader) (encoding, error) {
		return &plainStrings{data: readPart[byte](r, partData), offs: readPart[uint32](r, partOffs)}, nil
	},
}

func (p *plainStrings) validate(n int, _ *nullMask) error {
	if len(p.offs) != n+1 || !monotone(p.offs, len(p.data)) {
		return errors.New("string offsets out of range")
	}
	return nil
}

// monotone reports whether offs ascend from 0 and end within limit.
func monotone(offs []uint32, limit int) bool {
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			return false
		}
	}
	return len(offs) == 0 || (offs[0] == 0 && int(offs[len(offs)-1]) <= limit)
}

package logstore

import (
	"unsafe"

	"logq/types"
)

// Integer encodings: BOOL, INT64 and TIMESTAMP values (µs). An open column
// appends to int64s; sealing picks the narrowest frame of reference that
// holds its values: constInts (every value is the base), forInts (base plus
// 1-, 2- or 4-byte deltas) or int64s again (8 bytes a value). A NULL row
// holds an arbitrary value.

// intValues reads an integer encoding.
type intValues interface {
	at(i int) int64
	gather(rows []int32, dst []int64)
	// distinct calls f once per distinct value until f returns false, and
	// reports whether it could (only narrow encodings can, cheaply).
	distinct(f func(int64) bool) bool
	encoding
}

// int64s is eight bytes a value: an open column's form, and a sealed one's
// when its values span more than 32 bits.
type int64s struct{ v []int64 }

func (e *int64s) at(i int) int64 { return e.v[i] }

func (e *int64s) gather(rows []int32, dst []int64) {
	v := e.v
	for k, r := range rows {
		dst[k] = v[r]
	}
}

func (e *int64s) distinct(func(int64) bool) bool { return false }
func (e *int64s) truncate(n int)                 { e.v = e.v[:n] }
func (e *int64s) permute(perm []int32)           { e.v = gather(e.v, perm) }
func (e *int64s) view(n int) encoding            { return &int64s{v: e.v[:n]} }
func (e *int64s) bytes() int64                   { return 8 * int64(len(e.v)) }

func (e *int64s) write(m *colMeta, w *segWriter) {
	m.width = 8
	m.parts[partInts] = w.blob(asBytes(e.v))
}

// constInts is a column whose every value is base: nothing per row.
type constInts struct{ base int64 }

func (e constInts) at(int) int64 { return e.base }

func (e constInts) gather(rows []int32, dst []int64) {
	for k := range rows {
		dst[k] = e.base
	}
}

func (e constInts) distinct(f func(int64) bool) bool { f(e.base); return true }
func (e constInts) bytes() int64                     { return 0 }

func (e constInts) write(m *colMeta, _ *segWriter) { m.width, m.base = 0, e.base }

// forInts is a base plus a narrow unsigned delta per row.
type forInts[T uint8 | uint16 | uint32] struct {
	base int64
	d    []T
}

func (e *forInts[T]) at(i int) int64 { return e.base + int64(e.d[i]) }

func (e *forInts[T]) gather(rows []int32, dst []int64) {
	b, d := e.base, e.d
	for k, r := range rows {
		dst[k] = b + int64(d[r])
	}
}

// distinct walks the deltas with a seen-set as large as the delta's range,
// so only one- and two-byte deltas (status codes, hours) take part: a wider
// one would take a set as large as its rows.
func (e *forInts[T]) distinct(f func(int64) bool) bool {
	var zero T
	if unsafe.Sizeof(zero) > 2 {
		return false
	}
	seen := make([]uint64, (1<<(8*unsafe.Sizeof(zero)))/64)
	for _, d := range e.d {
		if seen[d>>6]&(1<<(d&63)) == 0 {
			seen[d>>6] |= 1 << (d & 63)
			if !f(e.base + int64(d)) {
				break
			}
		}
	}
	return true
}

func (e *forInts[T]) bytes() int64 { var zero T; return int64(len(e.d)) * int64(unsafe.Sizeof(zero)) }

func (e *forInts[T]) write(m *colMeta, w *segWriter) {
	var zero T
	m.width, m.base = uint8(unsafe.Sizeof(zero)), e.base
	m.parts[deltaPart(m.width)] = w.blob(asBytes(e.d))
}

// deltaPart is the file part that holds deltas of a width.
func deltaPart(width uint8) int {
	switch width {
	case 1:
		return partInts8
	case 2:
		return partInts16
	}
	return partInts32
}

// packInts chooses the sealed encoding of n values: the narrowest deltas
// from their minimum that hold them (frame of reference). NULL rows'
// placeholders are left out of the range and stored as the base.
func packInts(v []int64, nulls *nullMask) intValues {
	lo, hi, first := int64(0), int64(0), true
	for i, x := range v {
		if nulls.has(i) {
			continue
		}
		if first || x < lo {
			lo = x
		}
		if first || x > hi {
			hi = x
		}
		first = false
	}
	if hi-lo < 0 { // the span overflows int64
		return &int64s{v: trim(v)}
	}
	switch span := uint64(hi - lo); {
	case span == 0:
		return constInts{base: lo}
	case span < 1<<8:
		return packDeltas[uint8](v, lo, hi)
	case span < 1<<16:
		return packDeltas[uint16](v, lo, hi)
	case span < 1<<32:
		return packDeltas[uint32](v, lo, hi)
	}
	return &int64s{v: trim(v)}
}

func packDeltas[T uint8 | uint16 | uint32](v []int64, lo, hi int64) *forInts[T] {
	d := make([]T, len(v))
	for i, x := range v {
		if x >= lo && x <= hi { // else a NULL row's placeholder: delta 0
			d[i] = T(x - lo)
		}
	}
	return &forInts[T]{base: lo, d: d}
}

// intsForm is a sealed integer column in a segment file: a base, and
// deltas of the meta's width (0: every row the base; 8: the values).
var intsForm = fileForm{
	is: func(m *colMeta) bool { return isInt(m.kind) },
	fits: func(m *colMeta, n int) bool {
		switch m.width {
		case 0:
			return true
		case 1:
			return m.count(partInts8) == n
		case 2:
			return m.count(partInts16) == n
		case 4:
			return m.count(partInts32) == n
		case 8:
			return m.count(partInts) == n
		}
		return false
	},
	load: func(r *partReader) (encoding, error) { return loadInts(r), nil },
}

// loadInts reads a sealed integer encoding from a segment file.
func loadInts(r *partReader) intValues {
	m := r.m
	switch m.width {
	case 0:
		return constInts{base: m.base}
	case 1:
		return &forInts[uint8]{base: m.base, d: readPart[uint8](r, partInts8)}
	case 2:
		return &forInts[uint16]{base: m.base, d: readPart[uint16](r, partInts16)}
	case 4:
		return &forInts[uint32]{base: m.base, d: readPart[uint32](r, partInts32)}
	}
	return &int64s{v: readPart[int64](r, partInts)}
}

// isInt reports whether values of kind k are stored as integers.
func isInt(k types.Kind) bool {
	return k == types.KindBool || k == types.KindInt64 || k == types.KindTimestamp
}

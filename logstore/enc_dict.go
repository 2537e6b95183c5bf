package logstore

import (
	"errors"
	"logq/types"
	"math/bits"
	"slices"
	"unsafe"
)

// String encodings. An open column starts as openDict (a dictionary and a
// code per row) and turns into plainStrings (bytes and offsets) once its
// values look nearly unique. Sealing chooses by size: a dictionary packed
// into one buffer with 1-, 2- or 4-byte codes (dictionary), or plain bytes,
// zstd-compressed in blocks when that saves a third (zstrings, compress.go).
// A NULL row holds an arbitrary value (the empty string, or code 0).

// stringValues reads a string encoding.
type stringValues interface {
	encoding
	str(i int) string
	// gather copies the values of rows, ascending, into dst.
	gather(rows []int32, dst []string)
}

// dictValues reads a dictionary encoding by codes.
type dictValues interface {
	stringValues
	code(i int) uint32
	entry(code uint32) string
	size() int
	gatherCodes(rows []int32, dst []uint32)
	// matchCode appends to out the rows of [start, end) holding code.
	matchCode(start, end int, code uint32, out []int32) []int32
	find(s string) (uint32, bool)
}

// openDict is an open column's dictionary: entries as strings, a map to
// find them (nil in a snapshot's view: maps are not safe to read while
// written), and a 4-byte code per row.
type openDict struct {
	dict   []string
	idx    map[string]uint32
	recent *[256]uint32 // code+1 of recently seen values, by a cheap hash
	codes  []uint32
}

func (d *openDict) code(i int) uint32        { return d.codes[i] }
func (d *openDict) entry(code uint32) string { return d.dict[code] }
func (d *openDict) size() int                { return len(d.dict) }
func (d *openDict) str(i int) string         { return d.dict[d.codes[i]] }

func (d *openDict) gather(rows []int32, dst []string) {
	dict, codes := d.dict, d.codes
	for k, r := range rows {
		dst[k] = dict[codes[r]]
	}
}

func (d *openDict) gatherCodes(rows []int32, dst []uint32) { gatherCodes(d.codes, rows, dst) }

func (d *openDict) matchCode(start, end int, code uint32, out []int32) []int32 {
	return matchCodes(d.codes[start:end], code, start, out)
}

func (d *openDict) find(s string) (uint32, bool) {
	if d.idx != nil {
		code, ok := d.idx[s]
		return code, ok
	}
	return findEntry(d, s)
}

func (d *openDict) bytes() int64 {
	b := 4 * int64(len(d.codes))
	for _, e := range d.dict {
		b += int64(len(e)) + 16
	}
	return b
}

// append stores s, which may alias a scratch buffer: it is copied when kept.
func (d *openDict) append(s string) { d.codes = append(d.codes, d.codeOf(s)) }

// codeOf returns s's code, adding it when new. Many fields repeat the
// previous event's value (constants, sessions), so that is compared before
// hashing.
func (d *openDict) codeOf(s string) uint32 {
	if n := len(d.codes); n > 0 {
		if last := d.codes[n-1]; d.dict[last] == s {
			return last
		}
	}
	// Then a small direct-mapped cache of recent values, cheaper than the
	// map's hash for the short, low-cardinality values most fields hold.
	var slot uint8
	if len(s) > 0 {
		slot = uint8(len(s)*31) ^ s[0]*7 ^ s[len(s)-1]
		if d.recent != nil {
			if e := d.recent[slot]; e != 0 && d.dict[e-1] == s {
				return e - 1
			}
		}
	}
	if d.idx == nil {
		d.idx = make(map[string]uint32)
	}
	code, ok := d.idx[s]
	if !ok {
		kept := string([]byte(s))
		code = uint32(len(d.dict))
		d.dict = append(d.dict, kept)
		d.idx[kept] = code
	}
	if len(s) > 0 {
		if d.recent == nil {
			d.recent = new([256]uint32)
		}
		d.recent[slot] = code + 1
	}
	return code
}

// plainAfter, plainRatio and plainShare decide early when a dictionary gives
// way to plain bytes: once a segment has plainAfter rows of which more than
// plainShare/plainRatio are distinct, values are nearly unique (ids, request
// URLs) and a dictionary would only cost. Columns with many but repeating
// values (TLS sessions, client addresses) keep the dictionary; seal makes the
// final choice by size.
const (
	plainAfter = 2048
	plainRatio = 10
	plainShare = 9
)

// nearlyUnique reports whether the dictionary should give way to plain bytes.
func (d *openDict) nearlyUnique() bool {
	return len(d.codes) == plainAfter && len(d.dict)*plainRatio > plainAfter*plainShare
}

// plain rewrites the values as plain bytes, in new slices (snapshots keep
// the old ones).
func (d *openDict) plain() *plainStrings {
	var size int
	for _, code := range d.codes {
		size += len(d.dict[code])
	}
	p := &plainStrings{data: make([]byte, 0, size*2), offs: make([]uint32, 1, cap(d.codes)+1)}
	for _, code := range d.codes {
		p.data = append(p.data, d.dict[code]...)
		p.offs = append(p.offs, uint32(len(p.data)))
	}
	return p
}

func (d *openDict) truncate(n int)       { d.codes = d.codes[:n] }
func (d *openDict) permute(perm []int32) { d.codes = gather(d.codes, perm) }

func (d *openDict) view(n int) encoding {
	return &openDict{dict: d.dict, codes: d.codes[:n]}
}

// seal chooses the sealed encoding of the values: a packed dictionary or
// plain bytes, whichever is smaller.
func (d *openDict) seal() stringValues {
	var entries, plain int
	for _, e := range d.dict {
		entries += len(e)
	}
	for _, code := range d.codes {
		plain += len(d.dict[code])
	}
	codeBytes := max(1, (bits.Len(uint(len(d.dict)))+7)/8)
	if entries+4*len(d.dict)+len(d.codes)*codeBytes > plain+4*(len(d.codes)+1) {
		return d.plain().seal()
	}
	data := make([]byte, 0, entries)
	offs := make([]uint32, 1, len(d.dict)+1)
	for _, e := range d.dict {
		data = append(data, e...)
		offs = append(offs, uint32(len(data)))
	}
	switch {
	case len(d.dict) <= 1<<8:
		return &dictionary[uint8]{data: data, offs: offs, codes: narrow[uint8](d.codes)}
	case len(d.dict) <= 1<<16:
		return &dictionary[uint16]{data: data, offs: offs, codes: narrow[uint16](d.codes)}
	}
	return &dictionary[uint32]{data: data, offs: offs, codes: trim(d.codes)}
}

func narrow[T uint8 | uint16](codes []uint32) []T {
	out := make([]T, len(codes))
	for i, c := range codes {
		out[i] = T(c)
	}
	return out
}

// dictionary is a sealed dictionary: its entries packed into one buffer (4
// bytes of offset per entry instead of a 16-byte string header and an
// allocation), and the narrowest codes that index them.
type dictionary[T uint8 | uint16 | uint32] struct {
	data  []byte
	offs  []uint32 // entry e is data[offs[e]:offs[e+1]]
	codes []T
}

func (d *dictionary[T]) code(i int) uint32 { return uint32(d.codes[i]) }
func (d *dictionary[T]) size() int         { return len(d.offs) - 1 }
func (d *dictionary[T]) str(i int) string  { return d.entry(uint32(d.codes[i])) }

func (d *dictionary[T]) entry(code uint32) string {
	a, b := d.offs[code], d.offs[code+1]
	if a == b {
		return ""
	}
	return unsafe.String(&d.data[a], int(b-a))
}

func (d *dictionary[T]) gather(rows []int32, dst []string) {
	for k, r := range rows {
		dst[k] = d.entry(uint32(d.codes[r]))
	}
}

func (d *dictionary[T]) gatherCodes(rows []int32, dst []uint32) { gatherCodes(d.codes, rows, dst) }

func (d *dictionary[T]) matchCode(start, end int, code uint32, out []int32) []int32 {
	return matchCodes(d.codes[start:end], T(code), start, out)
}

func (d *dictionary[T]) find(s string) (uint32, bool) { return findEntry(d, s) }

func (d *dictionary[T]) bytes() int64 {
	var zero T
	return int64(len(d.data)) + 4*int64(len(d.offs)) + int64(len(d.codes))*int64(unsafe.Sizeof(zero))
}

func (d *dictionary[T]) write(m *colMeta, w *segWriter) {
	m.parts[partDictData] = w.blob(d.data)
	m.parts[partDictOffs] = w.blob(asBytes(d.offs))
	var zero T
	switch unsafe.Sizeof(zero) {
	case 1:
		m.parts[partCodes8] = w.blob(asBytes(d.codes))
	case 2:
		m.parts[partCodes16] = w.blob(asBytes(d.codes))
	default:
		m.parts[partCodes] = w.blob(asBytes(d.codes))
	}
}

// loadDictionary reads a sealed dictionary from a segment file. Its code
// width is the one part of the three that is present.
// dictForm is a dictionary STRING column in a segment file: the entries'
// bytes and offsets, and a code per stored row of the width the part
// names.
var dictForm = fileForm{
	is: func(m *colMeta) bool { return m.kind == types.KindString && !m.plain },
	fits: func(m *colMeta, n int) bool {
		return m.count(partCodes)+m.count(partCodes8)+m.count(partCodes16) == n && m.count(partDictOffs) >= 1
	},
	load: func(r *partReader) (encoding, error) { return loadDictionary(r), nil },
}

func loadDictionary(r *partReader) dictValues {
	data := readPart[byte](r, partDictData)
	offs := readPart[uint32](r, partDictOffs)
	switch m := r.m; {
	case m.parts[partCodes8].len > 0:
		return &dictionary[uint8]{data: data, offs: offs, codes: readPart[uint8](r, partCodes8)}
	case m.parts[partCodes16].len > 0:
		return &dictionary[uint16]{data: data, offs: offs, codes: readPart[uint16](r, partCodes16)}
	}
	return &dictionary[uint32]{data: data, offs: offs, codes: readPart[uint32](r, partCodes)}
}

// validate checks what indexing relies on: offsets within the data, the
// codes of n rows within the dictionary (a NULL row's too: readers gather
// every row's entry and mask NULLs afterwards).
func (d *dictionary[T]) validate(n int, _ *nullMask) error {
	if len(d.offs) == 0 || !monotone(d.offs, len(d.data)) {
		return errors.New("dictionary offsets out of range")
	}
	if len(d.codes) != n {
		return errors.New("codes do not match the rows")
	}
	entries := len(d.offs) - 1
	for _, c := range d.codes {
		if int(c) >= entries {
			return errors.New("code outside the dictionary")
		}
	}
	return nil
}

func findEntry(d dictValues, s string) (uint32, bool) {
	for i := range d.size() {
		if d.entry(uint32(i)) == s {
			return uint32(i), true
		}
	}
	return 0, false
}

func gatherCodes[T uint8 | uint16 | uint32](codes []T, rows []int32, dst []uint32) {
	for k, r := range rows {
		dst[k] = uint32(codes[r])
	}
}

// matchCodes appends start+r for each codes[r] equal to want. Every row is
// written and the length advanced only on a match, which compiles without a
// branch: a filter that keeps one row in four mispredicts a branch often
// (1.5x faster on a 1-in-4 match).
func matchCodes[T uint8 | uint16 | uint32](codes []T, want T, start int, out []int32) []int32 {
	n := len(out)
	out = slices.Grow(out, len(codes))[:n+len(codes)]
	for r, v := range codes {
		out[n] = int32(start + r)
		if v == want {
			n++
		}
	}
	return out[:n]
}

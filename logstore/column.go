package logstore

import (
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"logq/types"
)

// Column is the values of one field path within one segment. While its
// segment is open, it grows by append only (rows a snapshot can see are never
// rewritten); once sealed it never changes.
//
// Storage by kind: BOOL, INT64 and TIMESTAMP in ints; FLOAT64 in floats;
// STRING either as a dictionary (dict + codes) or, when nearly every value is
// distinct, as plain bytes with offsets; ARRAY values boxed in vals. Object
// presence columns are BOOL.
type Column struct {
	Path string
	kind types.Kind
	n    int

	// Null flags: one byte per row while open (appends must not share memory
	// words with rows a reader sees), a bitmap once sealed; nil means none.
	nullBytes []bool
	nullBits  []uint64
	nulls     int

	ints   []int64 // open segments; sealed ones store base + narrow deltas:
	base   int64
	width  uint8 // bytes per sealed delta: 0 (every value is base), 1, 2, 4 or 8
	ints8  []uint8
	ints16 []uint16
	ints32 []uint32
	floats []float64

	dict    []string
	dictIdx map[string]uint32 // nil once sealed or once plain
	recent  *[256]uint32      // code+1 of recently seen values, by a cheap hash (open only)
	// A sealed dictionary packs its entries into one buffer (4 bytes of
	// offset per entry instead of a 16-byte string header and an allocation).
	dictData []byte
	dictOffs []uint32
	codes    []uint32 // open segments; sealed dictionaries narrow to:
	codes8   []uint8
	codes16  []uint16

	plain bool
	data  []byte
	offs  []uint32  // len n+1 when plain
	z     *zstrings // sealed plain columns, compressed (data and offs are then nil)

	vals []types.Value
}

// Kind is the physical kind of the stored values.
func (c *Column) Kind() types.Kind { return c.kind }

// Len is the number of rows.
func (c *Column) Len() int { return c.n }

// HasNulls reports whether any row is NULL.
func (c *Column) HasNulls() bool { return c.nulls > 0 }

// IsNull reports whether row i is NULL.
func (c *Column) IsNull(i int) bool {
	if c.nulls == 0 {
		return false
	}
	if c.nullBits != nil {
		return c.nullBits[i>>6]&(1<<(uint(i)&63)) != 0
	}
	return c.nullBytes[i]
}

// IsDict reports whether a STRING column is dictionary-encoded.
func (c *Column) IsDict() bool { return c.kind == types.KindString && !c.plain }

// entry returns dictionary entry code.
func (c *Column) entry(code uint32) string {
	if c.dictOffs != nil {
		a, b := c.dictOffs[code], c.dictOffs[code+1]
		if a == b {
			return ""
		}
		return unsafe.String(&c.dictData[a], int(b-a))
	}
	return c.dict[code]
}

// DictLen is the number of entries of a dictionary column.
func (c *Column) DictLen() int { return c.dictLen() }

// DictEntry returns entry code of a dictionary column.
func (c *Column) DictEntry(code uint32) string { return c.entry(code) }

// dictLen is the number of dictionary entries.
func (c *Column) dictLen() int {
	if c.dictOffs != nil {
		return len(c.dictOffs) - 1
	}
	return len(c.dict)
}

// Code returns the dictionary code of row i.
func (c *Column) Code(i int) uint32 {
	switch {
	case c.codes8 != nil:
		return uint32(c.codes8[i])
	case c.codes16 != nil:
		return uint32(c.codes16[i])
	}
	return c.codes[i]
}

// Str returns row i of a STRING column (undefined for NULL rows). The string
// shares the segment's memory.
func (c *Column) Str(i int) string {
	if c.z != nil {
		return c.z.block(i / blockRows).str(i % blockRows)
	}
	if c.plain {
		a, b := c.offs[i], c.offs[i+1]
		if a == b {
			return ""
		}
		return unsafe.String(&c.data[a], int(b-a))
	}
	return c.entry(c.Code(i))
}

// GatherNulls writes the NULL flag of each row into dst and reports whether
// any was NULL.
func (c *Column) GatherNulls(rows []int32, dst []bool) bool {
	if c.nulls == 0 {
		return false
	}
	any := false
	for k, r := range rows {
		n := c.IsNull(int(r))
		dst[k] = n
		any = any || n
	}
	return any
}

// Int returns row i of an INT64, BOOL or TIMESTAMP column.
func (c *Column) Int(i int) int64 {
	switch c.width {
	case 0:
		if c.ints != nil {
			return c.ints[i]
		}
		return c.base
	case 1:
		return c.base + int64(c.ints8[i])
	case 2:
		return c.base + int64(c.ints16[i])
	case 4:
		return c.base + int64(c.ints32[i])
	}
	return c.ints[i]
}

// GatherInts copies INT64, BOOL or TIMESTAMP values of rows into dst.
func (c *Column) GatherInts(rows []int32, dst []int64) {
	b := c.base
	switch {
	case c.ints != nil:
		ints := c.ints
		for k, r := range rows {
			dst[k] = ints[r]
		}
	case c.width == 0:
		for k := range rows {
			dst[k] = b
		}
	case c.width == 1:
		for k, r := range rows {
			dst[k] = b + int64(c.ints8[r])
		}
	case c.width == 2:
		for k, r := range rows {
			dst[k] = b + int64(c.ints16[r])
		}
	case c.width == 4:
		for k, r := range rows {
			dst[k] = b + int64(c.ints32[r])
		}
	}
}

// GatherFloats copies values as FLOAT64, converting an INT64 column.
func (c *Column) GatherFloats(rows []int32, dst []float64) {
	if c.kind == types.KindFloat64 {
		fl := c.floats
		for k, r := range rows {
			dst[k] = fl[r]
		}
		return
	}
	for k, r := range rows {
		dst[k] = float64(c.Int(int(r)))
	}
}

// GatherStrings copies values as STRING. A column of another scalar kind (a
// field widened to STRING after this segment was written) is rendered as its
// JSON text.
func (c *Column) GatherStrings(rows []int32, dst []string) {
	switch {
	case c.z != nil:
		// Rows come in ascending order within a batch: decode each block
		// once, into memory the returned strings keep alive.
		var d *decoded
		for k, r := range rows {
			b := int(r) / blockRows
			if d == nil || d.block != b {
				d = c.z.decode(b)
			}
			lo, hi := d.offs[int(r)%blockRows], d.offs[int(r)%blockRows+1]
			dst[k] = unsafe.String(unsafe.SliceData(d.data[lo:hi]), int(hi-lo))
		}
	case c.kind == types.KindString && c.plain:
		for k, r := range rows {
			dst[k] = c.Str(int(r))
		}
	case c.kind == types.KindString && c.dictOffs != nil:
		switch {
		case c.codes8 != nil:
			for k, r := range rows {
				dst[k] = c.entry(uint32(c.codes8[r]))
			}
		case c.codes16 != nil:
			for k, r := range rows {
				dst[k] = c.entry(uint32(c.codes16[r]))
			}
		default:
			for k, r := range rows {
				dst[k] = c.entry(c.codes[r])
			}
		}
	case c.kind == types.KindString:
		dict := c.dict
		for k, r := range rows {
			dst[k] = dict[c.codes[r]]
		}
	default:
		for k, r := range rows {
			dst[k] = c.text(int(r))
		}
	}
}

// MatchCode appends to out the rows of [start, end) whose dictionary code is
// code (and that are not NULL).
func (c *Column) MatchCode(start, end int, code uint32, out []int32) []int32 {
	switch {
	case c.codes8 != nil:
		out = matchCodes(c.codes8[start:end], uint8(code), start, out)
	case c.codes16 != nil:
		out = matchCodes(c.codes16[start:end], uint16(code), start, out)
	default:
		out = matchCodes(c.codes[start:end], code, start, out)
	}
	if c.nulls == 0 {
		return out
	}
	kept := out[:0]
	for _, r := range out {
		if !c.IsNull(int(r)) {
			kept = append(kept, r)
		}
	}
	return kept
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

// GatherCodes copies dictionary codes of rows into dst.
func (c *Column) GatherCodes(rows []int32, dst []uint32) {
	switch {
	case c.codes8 != nil:
		for k, r := range rows {
			dst[k] = uint32(c.codes8[r])
		}
	case c.codes16 != nil:
		for k, r := range rows {
			dst[k] = uint32(c.codes16[r])
		}
	default:
		for k, r := range rows {
			dst[k] = c.codes[r]
		}
	}
}

// DistinctInts calls f once for each distinct value of an INT64 column
// sealed narrow (at most 2 bytes per row: status codes, hours), until f
// returns false. A NULL row's placeholder, the base, counts as a value. It
// reports false, calling nothing, for any other column: a wider one would
// take a set as large as its rows.
func (c *Column) DistinctInts(f func(int64) bool) bool {
	if c.kind != types.KindInt64 || c.ints != nil {
		return false
	}
	switch c.width {
	case 0:
		f(c.base)
	case 1:
		var seen [256]bool
		for _, d := range c.ints8 {
			if !seen[d] {
				seen[d] = true
				if !f(c.base + int64(d)) {
					break
				}
			}
		}
	case 2:
		seen := make([]uint64, 1<<16/64)
		for _, d := range c.ints16 {
			if seen[d>>6]&(1<<(d&63)) == 0 {
				seen[d>>6] |= 1 << (d & 63)
				if !f(c.base + int64(d)) {
					break
				}
			}
		}
	default:
		return false
	}
	return true
}

// text renders row i of a non-STRING scalar column as JSON text.
func (c *Column) text(i int) string {
	switch c.kind {
	case types.KindBool:
		return strconv.FormatBool(c.Int(i) != 0)
	case types.KindInt64:
		return strconv.FormatInt(c.Int(i), 10)
	case types.KindFloat64:
		return strconv.FormatFloat(c.floats[i], 'g', -1, 64)
	case types.KindArray:
		return c.vals[i].String()
	}
	return ""
}

// Value returns row i boxed, converted to type want when the field was
// widened after this segment was written.
func (c *Column) Value(i int, want types.Type) types.Value {
	if c.IsNull(i) {
		return types.NullOf(want)
	}
	switch want.Kind {
	case types.KindString:
		if c.kind == types.KindString {
			return types.StringValue(c.Str(i))
		}
		return types.StringValue(c.text(i))
	case types.KindFloat64:
		if c.kind == types.KindFloat64 {
			return types.FloatValue(c.floats[i])
		}
		return types.FloatValue(float64(c.Int(i)))
	case types.KindInt64, types.KindBool, types.KindTimestamp:
		return types.Value{T: want, I: c.Int(i)}
	case types.KindArray:
		return c.vals[i]
	}
	return types.NullOf(want)
}

// FindCode returns the dictionary code of s in a dictionary column.
func (c *Column) FindCode(s string) (uint32, bool) {
	if c.dictIdx != nil {
		code, ok := c.dictIdx[s]
		return code, ok
	}
	for i := 0; i < c.dictLen(); i++ {
		if c.entry(uint32(i)) == s {
			return uint32(i), true
		}
	}
	return 0, false
}

// --- building ---

func (c *Column) setNull(isNull bool) {
	if isNull {
		c.nulls++
	}
	if c.nulls > 0 && c.nullBytes == nil {
		c.nullBytes = make([]bool, c.n, max(c.n+1, 64))
	}
	if c.nullBytes != nil {
		c.nullBytes = append(c.nullBytes, isNull)
	}
}

// padNulls fills a new, empty column with n NULLs, each slice allocated once
// at its size (with room to grow by a quarter) rather than grown by appends:
// a field first seen late in a segment costs a value slot and a flag per
// earlier row, and no more.
func (c *Column) padNulls(n int) {
	if n == 0 {
		return
	}
	room := n + n/4 + 1
	switch c.kind {
	case types.KindFloat64:
		c.floats = make([]float64, n, room)
	case types.KindArray:
		c.vals = make([]types.Value, n, room)
	case types.KindString:
		// Every row is code 0, the empty string; the dictionary decides on
		// plain bytes later by its own rule.
		c.codeOf("")
		c.codes = make([]uint32, n, room)
	default:
		c.ints = make([]int64, n, room)
	}
	c.nullBytes = make([]bool, n, room)
	for i := range c.nullBytes {
		c.nullBytes[i] = true
	}
	c.nulls, c.n = n, n
}

func (c *Column) appendNull() {
	switch c.kind {
	case types.KindFloat64:
		c.floats = append(c.floats, 0)
	case types.KindString:
		c.appendStringRaw("")
	case types.KindArray:
		c.vals = append(c.vals, types.Value{})
	default:
		c.ints = append(c.ints, 0)
	}
	c.setNull(true)
	c.n++
}

func (c *Column) appendInt(v int64) {
	c.ints = append(c.ints, v)
	c.setNull(false)
	c.n++
}

func (c *Column) appendFloat(v float64) {
	c.floats = append(c.floats, v)
	c.setNull(false)
	c.n++
}

func (c *Column) appendValue(v types.Value) {
	c.vals = append(c.vals, v)
	c.setNull(false)
	c.n++
}

func (c *Column) appendString(b []byte) {
	c.appendStringRaw(unsafe.String(unsafe.SliceData(b), len(b)))
	c.setNull(false)
	c.n++
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

// appendStringRaw stores s, which may alias a scratch buffer: it is copied
// when kept.
func (c *Column) appendStringRaw(s string) {
	if c.plain {
		c.data = append(c.data, s...)
		c.offs = append(c.offs, uint32(len(c.data)))
		return
	}
	c.codes = append(c.codes, c.codeOf(s))
	if len(c.codes) == plainAfter && len(c.dict)*plainRatio > plainAfter*plainShare {
		c.toPlain()
	}
}

// codeOf returns s's dictionary code, adding it when new. Many fields repeat
// the previous event's value (constants, sessions), so that is compared
// before hashing.
func (c *Column) codeOf(s string) uint32 {
	if n := len(c.codes); n > 0 {
		if last := c.codes[n-1]; c.dict[last] == s {
			return last
		}
	}
	// Then a small direct-mapped cache of recent values, cheaper than the
	// map's hash for the short, low-cardinality values most fields hold.
	var slot uint8
	if len(s) > 0 {
		slot = uint8(len(s)*31) ^ s[0]*7 ^ s[len(s)-1]
		if c.recent != nil {
			if e := c.recent[slot]; e != 0 && c.dict[e-1] == s {
				return e - 1
			}
		}
	}
	if c.dictIdx == nil {
		c.dictIdx = make(map[string]uint32)
	}
	code, ok := c.dictIdx[s]
	if !ok {
		kept := string([]byte(s))
		code = uint32(len(c.dict))
		c.dict = append(c.dict, kept)
		c.dictIdx[kept] = code
	}
	if len(s) > 0 {
		if c.recent == nil {
			c.recent = new([256]uint32)
		}
		c.recent[slot] = code + 1
	}
	return code
}

// toPlain rewrites a dictionary column as plain bytes. It builds new slices
// so that snapshots holding the old ones stay valid.
func (c *Column) toPlain() {
	var size int
	for _, code := range c.codes {
		size += len(c.dict[code])
	}
	data := make([]byte, 0, size*2)
	offs := make([]uint32, 1, cap(c.codes)+1)
	for _, code := range c.codes {
		data = append(data, c.dict[code]...)
		offs = append(offs, uint32(len(data)))
	}
	c.data, c.offs, c.plain = data, offs, true
	c.dict, c.dictIdx, c.codes, c.recent = nil, nil, nil, nil
}

// widen converts an open column to kind to (FLOAT64 or STRING), building new
// slices so that snapshots keep the old representation intact.
func (c *Column) widen(to types.Kind) {
	old := *c
	*c = Column{Path: c.Path, kind: to}
	for i := 0; i < old.n; i++ {
		if old.IsNull(i) {
			c.appendNull()
			continue
		}
		switch to {
		case types.KindFloat64:
			c.appendFloat(float64(old.ints[i]))
		case types.KindString:
			c.appendString([]byte(old.text(i)))
		}
	}
}

// seal freezes the column: narrow dictionary codes, nulls as a bitmap,
// capacity trimmed.
func (c *Column) seal() {
	if c.nulls > 0 {
		c.nullBits = make([]uint64, (c.n+63)/64)
		for i, isNull := range c.nullBytes[:c.n] {
			if isNull {
				c.nullBits[i>>6] |= 1 << (uint(i) & 63)
			}
		}
	}
	c.nullBytes = nil
	c.packInts()
	c.floats = trim(c.floats)
	c.vals = trim(c.vals)
	c.data = trim(c.data)
	c.offs = trim(c.offs)
	if c.kind == types.KindString && !c.plain && c.dictBytes() > c.plainBytes() {
		c.toPlain()
	}
	if c.kind == types.KindString && c.plain {
		c.compressPlain()
	}
	if c.kind == types.KindString && !c.plain {
		switch bits.Len(uint(len(c.dict))) {
		case 0, 1, 2, 3, 4, 5, 6, 7, 8:
			c.codes8 = make([]uint8, c.n)
			for i, v := range c.codes[:c.n] {
				c.codes8[i] = uint8(v)
			}
			c.codes = nil
		case 9, 10, 11, 12, 13, 14, 15, 16:
			c.codes16 = make([]uint16, c.n)
			for i, v := range c.codes[:c.n] {
				c.codes16[i] = uint16(v)
			}
			c.codes = nil
		default:
			c.codes = trim(c.codes)
		}
		c.dictIdx, c.recent = nil, nil
		size := 0
		for _, d := range c.dict {
			size += len(d)
		}
		c.dictData = make([]byte, 0, size)
		c.dictOffs = make([]uint32, 1, len(c.dict)+1)
		for _, d := range c.dict {
			c.dictData = append(c.dictData, d...)
			c.dictOffs = append(c.dictOffs, uint32(len(c.dictData)))
		}
		c.dict = nil
	}
}

// dictBytes and plainBytes estimate the sealed size of a string column in
// each encoding.
func (c *Column) dictBytes() int {
	b := len(c.dict) * 4
	for _, d := range c.dict {
		b += len(d)
	}
	return b + c.n*max(1, (bits.Len(uint(len(c.dict)))+7)/8)
}

func (c *Column) plainBytes() int {
	b := 4 * (c.n + 1)
	for _, code := range c.codes[:c.n] {
		b += len(c.dict[code])
	}
	return b
}

// packInts stores sealed integers as a base plus the narrowest deltas that
// hold them (frame of reference): a constant column keeps no slice at all,
// booleans and small counts one byte a row, a segment's timestamps four.
func (c *Column) packInts() {
	if c.ints == nil || c.kind == types.KindFloat64 || c.kind == types.KindString || c.kind == types.KindArray {
		return
	}
	ints := c.ints[:c.n]
	lo, hi := int64(0), int64(0)
	first := true
	for i, v := range ints {
		if c.nulls > 0 && c.nullBits[i>>6]&(1<<(uint(i)&63)) != 0 {
			continue
		}
		if first || v < lo {
			lo = v
		}
		if first || v > hi {
			hi = v
		}
		first = false
	}
	span := uint64(hi - lo)
	if hi-lo < 0 {
		c.ints = trim(ints)
		c.width = 8
		return
	}
	c.base = lo
	delta := func(v int64) uint64 {
		if v < lo || v > hi {
			return 0 // a NULL row's placeholder
		}
		return uint64(v - lo)
	}
	switch {
	case span == 0:
		c.width = 0
	case span < 1<<8:
		c.width, c.ints8 = 1, make([]uint8, len(ints))
		for i, v := range ints {
			c.ints8[i] = uint8(delta(v))
		}
	case span < 1<<16:
		c.width, c.ints16 = 2, make([]uint16, len(ints))
		for i, v := range ints {
			c.ints16[i] = uint16(delta(v))
		}
	case span < 1<<32:
		c.width, c.ints32 = 4, make([]uint32, len(ints))
		for i, v := range ints {
			c.ints32[i] = uint32(delta(v))
		}
	default:
		c.width = 8
		c.ints = trim(ints)
		return
	}
	c.ints = nil
}

func trim[T any](s []T) []T {
	if s == nil || cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// view returns a read-only copy of the column's headers limited to n rows.
func (c *Column) view(n int) *Column {
	v := *c
	v.n = n
	v.dictIdx = nil // maps are not safe to read while appended to
	if v.nulls > 0 && v.nullBytes != nil {
		v.nulls = 0
		for _, isNull := range v.nullBytes[:n] {
			if isNull {
				v.nulls++
			}
		}
	}
	return &v
}

// bytes estimates the memory the column holds.
func (c *Column) bytes() int64 {
	b := int64(len(c.ints))*8 + int64(len(c.ints8)) + int64(len(c.ints16))*2 + int64(len(c.ints32))*4 + int64(len(c.floats))*8 + int64(len(c.codes))*4 +
		int64(len(c.codes8)) + int64(len(c.codes16))*2 + int64(len(c.data)) +
		int64(len(c.offs))*4 + int64(len(c.nullBits))*8 + int64(len(c.nullBytes)) +
		int64(len(c.vals))*int64(unsafe.Sizeof(types.Value{}))
	for _, d := range c.dict {
		b += int64(len(d)) + 16
	}
	b += int64(len(c.dictData)) + 4*int64(len(c.dictOffs))
	if c.z != nil {
		b += c.z.bytes()
	}
	for _, v := range c.vals {
		b += valueBytes(v)
	}
	return b + 128
}

func valueBytes(v types.Value) int64 {
	b := int64(len(v.S)) + int64(len(v.L))*int64(unsafe.Sizeof(types.Value{}))
	for _, e := range v.L {
		b += valueBytes(e)
	}
	return b
}

package logstore

import (
	"sync"

	"logq/event"
	"logq/types"
)

// Column is the values of one field path within one segment. While its
// segment is open, it grows by append only (rows a snapshot can see are never
// rewritten); once sealed it never changes.
//
// The values are in one encoding (enc_*.go, compress.go): each is its own
// type, read the same way whether it was built in memory or loaded from a
// segment file, and each writes and reads its own parts of that file. NULL
// flags are a nullMask beside them. Only the rows [lo, hi) are stored; the
// others are NULL. A field first seen at row lo of an open segment stores
// nothing for the rows before it, and sealing keeps only the span from a
// column's first value to its last, so a late or rare field costs its own
// values, not the segment's rows. Most columns span every row (lo 0, hi n),
// and their readers index the encoding directly.
type Column struct {
	Path   string
	kind   types.Kind
	n      int      // rows, the unstored ones included
	lo, hi int      // the stored rows
	nulls  nullMask // of the stored rows
	enc    encoding

	// The same value as enc, as the reading interface of its kind (one is
	// set), so that reads make no type assertion.
	ints   intValues // BOOL, INT64, TIMESTAMP
	floats *float64s
	strs   stringValues
	dict   dictValues // strs, when it is a dictionary
	arrays *arrayValues
}

// encoding is the stored values of a column in one encoding.
type encoding interface {
	bytes() int64 // memory held
}

// openEncoding is an encoding an open column appends to (each has its own
// append). Its changes build new slices where a snapshot's view could see
// the old ones.
type openEncoding interface {
	encoding
	truncate(n int)
	permute(perm []int32) // rows perm[0], perm[1], … into new slices
	view(n int) encoding  // the first n rows, sharing memory
}

// fileEncoding is a sealed encoding as a segment file stores it: it writes
// its parts, in part order, and says in the meta how to read them back.
type fileEncoding interface {
	write(m *colMeta, w *segWriter)
}

// validator checks a loaded encoding before it is indexed.
type validator interface {
	validate(n int, nulls *nullMask) error
}

// newColumn makes an open column whose first stored row will be row lo.
func newColumn(path string, kind types.Kind, lo int) *Column {
	c := &Column{Path: path, kind: kind, n: lo, lo: lo, hi: lo}
	switch kind {
	case types.KindFloat64:
		c.setEnc(&float64s{})
	case types.KindString:
		c.setEnc(&openDict{})
	case types.KindArray:
		c.setEnc(&arrayValues{})
	default:
		c.setEnc(&int64s{})
	}
	return c
}

func (c *Column) setEnc(e encoding) {
	c.enc, c.ints, c.floats, c.strs, c.dict, c.arrays = e, nil, nil, nil, nil, nil
	switch e := e.(type) {
	case intValues:
		c.ints = e
	case *float64s:
		c.floats = e
	case *arrayValues:
		c.arrays = e
	case stringValues:
		c.strs = e
		c.dict, _ = e.(dictValues)
	}
}

// Kind is the physical kind of the stored values.
func (c *Column) Kind() types.Kind { return c.kind }

// Len is the number of rows.
func (c *Column) Len() int { return c.n }

// HasNulls reports whether any row is NULL.
func (c *Column) HasNulls() bool { return !c.full() || c.nulls.count > 0 }

// IsNull reports whether row i is NULL.
func (c *Column) IsNull(i int) bool { return c.out(i) || c.nulls.has(i-c.lo) }

// full reports whether every row is stored: readers then index the
// encoding directly (else spanGather).
func (c *Column) full() bool { return c.lo == 0 && c.hi == c.n }

// out reports whether row i is not stored (so NULL).
func (c *Column) out(i int) bool { return i < c.lo || i >= c.hi }

// IsDict reports whether a STRING column is dictionary-encoded.
func (c *Column) IsDict() bool { return c.dict != nil }

// DictLen is the number of entries of a dictionary column.
func (c *Column) DictLen() int { return c.dict.size() }

// DictEntry returns entry code of a dictionary column.
func (c *Column) DictEntry(code uint32) string { return c.dict.entry(code) }

// Code returns the dictionary code of row i (of a NULL row: any entry's).
func (c *Column) Code(i int) uint32 {
	if c.out(i) {
		return 0
	}
	return c.dict.code(i - c.lo)
}

// Str returns row i of a STRING column (undefined for NULL rows). The string
// shares the segment's memory.
func (c *Column) Str(i int) string {
	if c.out(i) {
		return ""
	}
	return c.strs.str(i - c.lo)
}

// Int returns row i of an INT64, BOOL or TIMESTAMP column.
func (c *Column) Int(i int) int64 {
	if c.out(i) {
		return 0
	}
	return c.ints.at(i - c.lo)
}

func (c *Column) float(i int) float64 {
	if c.out(i) {
		return 0
	}
	return c.floats.v[i-c.lo]
}

func (c *Column) array(i int) types.Value {
	if c.out(i) {
		return types.Value{}
	}
	return c.arrays.v[i-c.lo]
}

// GatherNulls writes the NULL flag of each row into dst and reports whether
// any was NULL.
func (c *Column) GatherNulls(rows []int32, dst []bool) bool {
	if !c.HasNulls() {
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

// rowByRow copies row values of a column that does not store every row,
// one row at a time (rows need not ascend).
func rowByRow[T any](rows []int32, dst []T, at func(int) T) {
	for k, r := range rows {
		dst[k] = at(int(r))
	}
}

// spanRows holds the stored-span indexes of a batch's rows (spanGather).
var spanRows = sync.Pool{New: func() any { return new([]int32) }}

// spanGather copies row values of a column that does not store every row:
// through its encoding's gather, with rows shifted into the stored span,
// when every row of the batch is stored (most batches of a column that
// spans most of its segment); else one row at a time with at.
func spanGather[T any](c *Column, rows []int32, dst []T, gather func([]int32, []T), at func(int) T) {
	for _, r := range rows {
		if c.out(int(r)) {
			rowByRow(rows, dst, at)
			return
		}
	}
	if c.lo == 0 {
		gather(rows, dst)
		return
	}
	buf := spanRows.Get().(*[]int32)
	defer spanRows.Put(buf)
	local := (*buf)[:0]
	for _, r := range rows {
		local = append(local, r-int32(c.lo))
	}
	*buf = local
	gather(local, dst)
}

// GatherInts copies INT64, BOOL or TIMESTAMP values of rows into dst.
func (c *Column) GatherInts(rows []int32, dst []int64) {
	if !c.full() {
		spanGather(c, rows, dst, c.ints.gather, c.Int)
		return
	}
	c.ints.gather(rows, dst)
}

// GatherFloats copies values as FLOAT64, converting an INT64 column.
func (c *Column) GatherFloats(rows []int32, dst []float64) {
	switch {
	case c.kind != types.KindFloat64:
		rowByRow(rows, dst, func(i int) float64 { return float64(c.Int(i)) })
	case !c.full():
		spanGather(c, rows, dst, c.floats.gather, c.float)
	default:
		c.floats.gather(rows, dst)
	}
}

// GatherStrings copies values as STRING. A column of another scalar kind (a
// field widened to STRING after this segment was written) is rendered as its
// JSON text.
func (c *Column) GatherStrings(rows []int32, dst []string) {
	switch {
	case c.kind != types.KindString:
		rowByRow(rows, dst, c.text)
	case !c.full():
		spanGather(c, rows, dst, c.strs.gather, c.Str)
	default:
		c.strs.gather(rows, dst)
	}
}

// GatherCodes copies dictionary codes of rows into dst.
func (c *Column) GatherCodes(rows []int32, dst []uint32) {
	if !c.full() {
		spanGather(c, rows, dst, c.dict.gatherCodes, c.Code)
		return
	}
	c.dict.gatherCodes(rows, dst)
}

// MatchCode appends to out the rows of [start, end) whose dictionary code is
// code (and that are not NULL).
func (c *Column) MatchCode(start, end int, code uint32, out []int32) []int32 {
	start, end = max(start, c.lo), min(end, c.hi)
	if start >= end {
		return out
	}
	k := len(out)
	out = c.dict.matchCode(start-c.lo, end-c.lo, code, out)
	if c.lo > 0 {
		for i := k; i < len(out); i++ {
			out[i] += int32(c.lo)
		}
	}
	if c.nulls.count == 0 {
		return out
	}
	kept := out[:k]
	for _, r := range out[k:] {
		if !c.IsNull(int(r)) {
			kept = append(kept, r)
		}
	}
	return kept
}

// DistinctInts calls f once for each distinct value of an INT64 column
// sealed narrow (at most 2 bytes per row: status codes, hours), until f
// returns false. A stored NULL row's placeholder (any value of the column,
// or the base) may count as a value, which only adds to the set; unstored
// rows are NULL, which HasNulls says. It reports false, calling nothing, for
// any other column: a wider one would take a set as large as its rows.
func (c *Column) DistinctInts(f func(int64) bool) bool {
	return c.kind == types.KindInt64 && c.ints.distinct(f)
}

// text renders row i of a non-STRING scalar column as JSON text.
func (c *Column) text(i int) string {
	switch c.kind {
	case types.KindBool, types.KindInt64:
		return event.Text(c.kind, c.Int(i), 0)
	case types.KindFloat64:
		return event.Text(c.kind, 0, c.float(i))
	case types.KindArray:
		return c.array(i).String()
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
			return types.FloatValue(c.float(i))
		}
		return types.FloatValue(float64(c.Int(i)))
	case types.KindInt64, types.KindBool, types.KindTimestamp:
		return types.Value{T: want, I: c.Int(i)}
	case types.KindArray:
		return event.Widened(c.array(i), want) // elements written before they widened to STRING
	}
	return types.NullOf(want)
}

// FindCode returns the dictionary code of s in a dictionary column.
func (c *Column) FindCode(s string) (uint32, bool) { return c.dict.find(s) }

// bytes estimates the memory the column holds.
func (c *Column) bytes() int64 { return c.nulls.bytes() + c.enc.bytes() + 128 }

func trim[T any](s []T) []T {
	if s == nil || cap(s) == len(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

func gather[T any](src []T, perm []int32) []T {
	out := make([]T, len(perm))
	for i, r := range perm {
		out[i] = src[r]
	}
	return out
}

package logstore

import (
	"unsafe"

	"logq/types"
)

// Writing an open column. Each append adds the next row, after the ones
// stored; the writer (source.go) pads a NULL into every column an event did
// not set, so every column of an open segment ends at its last row (hi is n).

// added records the NULL flag of the row just appended.
func (c *Column) added(isNull bool) {
	c.nulls.add(isNull, c.n-c.lo)
	c.n++
	c.hi = c.n
}

func (c *Column) appendNull() {
	switch e := c.enc.(type) {
	case *float64s:
		e.v = append(e.v, 0)
	case *arrayValues:
		e.v = append(e.v, types.Value{})
	case *int64s:
		e.v = append(e.v, 0)
	default:
		c.appendStringRaw("")
	}
	c.added(true)
}

func (c *Column) appendInt(v int64) {
	e := c.enc.(*int64s)
	e.v = append(e.v, v)
	c.added(false)
}

func (c *Column) appendFloat(v float64) {
	e := c.floats
	e.v = append(e.v, v)
	c.added(false)
}

func (c *Column) appendValue(v types.Value) {
	e := c.arrays
	e.v = append(e.v, v)
	c.added(false)
}

// appendString stores b, which may alias a scratch buffer: it is copied.
func (c *Column) appendString(b []byte) {
	c.appendStringRaw(unsafe.String(unsafe.SliceData(b), len(b)))
	c.added(false)
}

func (c *Column) appendStringRaw(s string) {
	switch e := c.enc.(type) {
	case *plainStrings:
		e.append(s)
	case *openDict:
		e.append(s)
		if e.nearlyUnique() {
			c.setEnc(e.plain())
		}
	}
}

// appendFrom appends row i of src, converted to c's kind as reads convert.
func (c *Column) appendFrom(src *Column, i int) {
	if src.IsNull(i) {
		c.appendNull()
		return
	}
	switch {
	case c.kind == types.KindString && src.kind == types.KindString:
		c.appendString([]byte(src.Str(i)))
	case c.kind == types.KindString:
		c.appendString([]byte(src.text(i)))
	case c.kind == types.KindFloat64 && src.kind == types.KindFloat64:
		c.appendFloat(src.float(i))
	case c.kind == types.KindFloat64:
		c.appendFloat(float64(src.Int(i)))
	case c.kind == types.KindArray:
		c.appendValue(src.array(i))
	default:
		c.appendInt(src.Int(i))
	}
}

// widen converts an open column to kind to (FLOAT64 or STRING), building new
// slices so that snapshots keep the old representation intact.
func (c *Column) widen(to types.Kind) {
	old := *c
	*c = *newColumn(c.Path, to, old.lo)
	for i := old.lo; i < old.n; i++ {
		c.appendFrom(&old, i)
	}
}

// truncate drops rows from n on. Only the writer calls it, on rows no
// snapshot has seen.
func (c *Column) truncate(n int) {
	if n >= c.n {
		return
	}
	if n <= c.lo {
		c.lo, c.nulls = n, nullMask{}
		c.enc.(openEncoding).truncate(0)
	} else {
		c.nulls.truncate(n - c.lo)
		c.enc.(openEncoding).truncate(n - c.lo)
	}
	c.n, c.hi = n, n
}

// view returns a read-only copy of the column limited to its first n rows,
// sharing its memory; nil when no row of it is stored (every row is NULL).
func (c *Column) view(n int) *Column {
	if n <= c.lo {
		return nil
	}
	v := &Column{Path: c.Path, kind: c.kind, n: n, lo: c.lo, hi: n, nulls: c.nulls.view(n - c.lo)}
	v.setEnc(c.enc.(openEncoding).view(n - c.lo))
	return v
}

// seal freezes the open column into its sealed encoding (the narrowest
// integers, a packed dictionary or plain, maybe compressed, bytes; NULLs as
// a bitmap), its rows reordered as perm says when it is not nil (row k of
// the sealed column is row perm[k]). Only the span from its first value to
// its last is stored. It reports false when the column holds no value at
// all (every row NULL: the segment drops it).
func (c *Column) seal(perm []int32) bool {
	old := func(k int) int {
		if perm == nil {
			return k
		}
		return int(perm[k])
	}
	has := func(o int) bool { return !c.out(o) && !c.nulls.has(o-c.lo) }
	first, last := -1, -1
	if perm == nil { // stored rows stay in order: look from each end
		for o := c.lo; o < c.hi && first < 0; o++ {
			if has(o) {
				first = o
			}
		}
		for o := c.hi - 1; o >= c.lo && last < 0; o-- {
			if has(o) {
				last = o
			}
		}
	} else {
		for k := range c.n {
			if has(old(k)) {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
	}
	if first < 0 {
		return false
	}
	enc := c.enc.(openEncoding)
	if perm != nil || first != c.lo || last != c.hi-1 {
		// Gather the span's rows by their stored index; an unstored row
		// takes the first value's slot as its placeholder (it is NULL).
		sub := make([]int32, last-first+1)
		flags := make([]bool, len(sub))
		nulls := 0
		for k := range sub {
			o := old(first + k)
			if has(o) {
				sub[k] = int32(o - c.lo)
				continue
			}
			sub[k], flags[k] = int32(old(first)-c.lo), true
			nulls++
		}
		enc.permute(sub)
		c.nulls = nullMask{count: nulls}
		if nulls > 0 {
			c.nulls.flags = flags
		}
	}
	c.lo, c.hi = first, last+1
	stored := c.hi - c.lo
	c.nulls.seal(stored)
	switch e := c.enc.(type) {
	case *int64s:
		c.setEnc(packInts(e.v[:stored], &c.nulls))
	case *float64s:
		c.setEnc(&float64s{v: trim(e.v)})
	case *arrayValues:
		c.setEnc(&arrayValues{v: trim(e.v)})
	case *openDict:
		c.setEnc(e.seal())
	case *plainStrings:
		c.setEnc(e.seal())
	}
	return true
}

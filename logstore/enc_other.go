package logstore

import (
	"errors"
	"unsafe"

	"logq/types"
)

// float64s is FLOAT64 values, eight bytes each, in an open column and in a
// sealed one alike.
type float64s struct{ v []float64 }

func (e *float64s) gather(rows []int32, dst []float64) {
	v := e.v
	for k, r := range rows {
		dst[k] = v[r]
	}
}

func (e *float64s) bytes() int64 { return 8 * int64(len(e.v)) }

func (e *float64s) write(m *colMeta, w *segWriter) { m.parts[partFloats] = w.blob(asBytes(e.v)) }

// floatsForm is a FLOAT64 column in a segment file: the values.
var floatsForm = fileForm{
	is:   func(m *colMeta) bool { return m.kind == types.KindFloat64 },
	fits: func(m *colMeta, n int) bool { return m.count(partFloats) == n },
	load: func(r *partReader) (encoding, error) { return &float64s{v: readPart[float64](r, partFloats)}, nil },
}

// arrayValues is ARRAY values, boxed, in an open column and in a sealed one
// alike; a segment file stores them in the meta's value encoding
// (encodeValue).
type arrayValues struct{ v []types.Value }

func (e *arrayValues) bytes() int64 {
	b := int64(len(e.v)) * int64(unsafe.Sizeof(types.Value{}))
	for _, v := range e.v {
		b += valueBytes(v)
	}
	return b
}

func valueBytes(v types.Value) int64 {
	b := int64(len(v.S)) + int64(len(v.L))*int64(unsafe.Sizeof(types.Value{}))
	for _, e := range v.L {
		b += valueBytes(e)
	}
	return b
}

func (e *arrayValues) write(m *colMeta, w *segWriter) {
	var vb []byte
	for _, v := range e.v {
		vb = encodeValue(vb, v)
	}
	m.parts[partVals] = w.blob(vb)
}

// arraysForm is an ARRAY column in a segment file: its values, encoded as
// the meta encodes values, decoded (decodeArrays) once read.
var arraysForm = fileForm{
	is:   func(m *colMeta) bool { return m.kind == types.KindArray },
	fits: func(m *colMeta, n int) bool { return m.parts[partVals].len > 0 || n == 0 },
	load: func(r *partReader) (encoding, error) {
		return decodeArrays(readPart[byte](r, partVals), r.m.stored())
	},
}

// decodeArrays decodes n values of a segment file's array part.
func decodeArrays(vb []byte, n int) (*arrayValues, error) {
	e := &arrayValues{v: make([]types.Value, 0, min(n, len(vb)))} // a value takes a byte at least: a crafted count allocates no more than the data
	if vb == nil {
		return e, nil
	}
	mr := &metaReader{p: vb}
	for i := 0; i < n && mr.err == nil; i++ {
		e.v = append(e.v, mr.value(0))
	}
	return e, mr.err
}

func (e *arrayValues) validate(n int, _ *nullMask) error {
	if len(e.v) != n {
		return errors.New("array values do not match the rows")
	}
	return nil
}

func (e *arrayValues) truncate(n int)       { e.v = e.v[:n] }
func (e *arrayValues) permute(perm []int32) { e.v = gather(e.v, perm) }
func (e *arrayValues) view(n int) encoding  { return &arrayValues{v: e.v[:n]} }

func (e *float64s) truncate(n int)       { e.v = e.v[:n] }
func (e *float64s) permute(perm []int32) { e.v = gather(e.v, perm) }
func (e *float64s) view(n int) encoding  { return &float64s{v: e.v[:n]} }

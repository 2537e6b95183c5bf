package exec

import (
	"encoding/binary"
	"math"

	"logq/types"
)

// appendKey encodes a value so that equal values (as GROUP BY and join keys
// compare them) give equal bytes.
func appendKey(dst []byte, v types.Value) []byte { return appendKeyOf(dst, v, false) }

// appendExactKey encodes a value so that only identical values give equal
// bytes: unlike appendKey, 0 and -0, 1 and 1.0, and 1 MONTH and 30 DAY
// differ (a correlated subquery's answer may tell them apart). NaNs are one.
func appendExactKey(dst []byte, v types.Value) []byte { return appendKeyOf(dst, v, true) }

func appendKeyOf(dst []byte, v types.Value, exact bool) []byte {
	if v.Null {
		return append(dst, 0)
	}
	switch v.T.Kind {
	case types.KindFloat64:
		f := v.F
		if !exact && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return binary.LittleEndian.AppendUint64(append(dst, 2), uint64(int64(f)))
		}
		if math.IsNaN(f) {
			f = math.NaN()
		}
		return binary.LittleEndian.AppendUint64(append(dst, 3), math.Float64bits(f))
	case types.KindString, types.KindBytes, types.KindNumeric, types.KindBigNumeric, types.KindJSON:
		dst = binary.AppendUvarint(append(dst, 4), uint64(len(v.S)))
		return append(dst, v.S...)
	case types.KindInterval:
		if exact {
			dst = binary.LittleEndian.AppendUint32(append(dst, 7), uint32(v.Months))
			dst = binary.LittleEndian.AppendUint32(dst, uint32(v.Days))
			return binary.LittleEndian.AppendUint64(dst, uint64(v.I))
		}
		// equal intervals (1 MONTH, 30 DAY) are one key
		return binary.LittleEndian.AppendUint64(append(dst, 6), uint64(v.IntervalMicros()))
	case types.KindArray, types.KindStruct, types.KindRange:
		dst = binary.AppendUvarint(append(dst, 5), uint64(len(v.L)))
		for _, e := range v.L {
			dst = appendKeyOf(dst, e, exact)
		}
		return dst
	}
	return binary.LittleEndian.AppendUint64(append(dst, 2), uint64(v.I))
}

// matchesNothing reports whether an equality key can equal no other value:
// NULL, or a NaN (in BigQuery NaN = NaN is FALSE, though GROUP BY and
// DISTINCT put NaNs together, which appendKey does).
func matchesNothing(v types.Value) bool {
	return v.Null || (v.T.Kind == types.KindFloat64 && math.IsNaN(v.F))
}

// rowStore keeps copies of rows from batches, column by column.
type rowStore struct {
	cols []*Vector
	n    int
}

func newRowStore(ts []types.Type) *rowStore {
	s := &rowStore{cols: make([]*Vector, len(ts))}
	for i, t := range ts {
		s.cols[i] = &Vector{T: t}
	}
	return s
}

// appendRows copies rows idx of b.
func (s *rowStore) appendRows(b *Batch, idx []int32) {
	for c, v := range b.Cols {
		dst := s.cols[c]
		switch {
		case v.Lazy == nil && dst.Lazy == nil:
		case v.Lazy != nil && s.n == 0 && dst.Lazy == nil:
			dst.Lazy = v.Lazy // references, resolved when read
		case v.Lazy == dst.Lazy:
		default:
			// References from another scan (a UNION of sources) cannot share
			// one resolver: keep values instead.
			dst.materialize(s.n)
			v = dense(v, b.N)
		}
		switch v.storage() {
		case inInts:
			for _, i := range idx {
				dst.I = append(dst.I, v.I[i])
			}
		case inFloats:
			for _, i := range idx {
				dst.F = append(dst.F, v.F[i])
			}
		case inStrings:
			for _, i := range idx {
				dst.S = append(dst.S, v.S[i])
			}
		case inValues:
			for _, i := range idx {
				dst.V = append(dst.V, v.V[i])
			}
		}
		if v.Null != nil || dst.Null != nil {
			if dst.Null == nil {
				dst.Null = make([]bool, s.n, s.n+len(idx))
			}
			for _, i := range idx {
				dst.Null = append(dst.Null, v.isNull(int(i)))
			}
		}
	}
	s.n += len(idx)
}

// setRow overwrites row at of the store with row r of b.
func (s *rowStore) setRow(at int, b *Batch, r int) {
	for c, v := range b.Cols {
		dst := s.cols[c]
		r := r
		if v.Lazy != dst.Lazy {
			// References from another scan, or values over references:
			// the store keeps values (as appendRows does). The row is
			// then row 0 of this column's copy, and of no other column's.
			dst.materialize(s.n)
			v = dense(gather(v, []int32{int32(r)}, nil), 1)
			r = 0
		}
		switch v.storage() {
		case inInts:
			dst.I[at] = v.I[r]
		case inFloats:
			dst.F[at] = v.F[r]
		case inStrings:
			dst.S[at] = v.S[r]
		case inValues:
			dst.V[at] = v.V[r]
		}
		switch {
		case v.isNull(r):
			dst.setNull(at, s.n)
		case dst.Null != nil:
			dst.Null[at] = false
		}
	}
}

// batch returns rows idx of the store as a batch.
func (s *rowStore) batch(idx []int32) *Batch {
	out := &Batch{N: len(idx), Cols: make([]*Vector, len(s.cols))}
	for c, v := range s.cols {
		out.Cols[c] = gather(v, idx, nil)
	}
	return out
}

// rebuilt returns a store holding rows idx of s, in that order.
func (s *rowStore) rebuilt(idx []int32) *rowStore {
	b := s.batch(idx)
	fresh := &rowStore{cols: make([]*Vector, len(s.cols))}
	for i, v := range s.cols {
		fresh.cols[i] = &Vector{T: v.T, Lazy: v.Lazy}
	}
	fresh.appendRows(b, seq(b.N))
	return fresh
}

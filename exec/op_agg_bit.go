package exec

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/types"
)

// bitState is BIT_AND, BIT_OR or BIT_XOR of INT64s (or of BYTES, byte by
// byte), and LOGICAL_AND and LOGICAL_OR, which are BIT_AND and BIT_OR of
// BOOLs' 0 and 1: NULLs are skipped, and a group without a value gives
// NULL. BYTES of unequal lengths are an error, unless the mode is PAD: the
// shorter are padded with zero bytes on the right.
type bitState struct {
	op  string // "and", "or" or "xor"
	t   types.Type
	v   []int64
	set []bool
	b   [][]byte // BYTES
	pad bool
	err error
}

func newBitState(a expr.AggCall) aggState {
	op := "xor"
	switch a.Fn {
	case "bit_and", "logical_and":
		op = "and"
	case "bit_or", "logical_or":
		op = "or"
	}
	pad := len(a.Args) == 2
	if pad {
		pad = a.Args[1].(*expr.Const).V.S == "PAD" // checked by the planner
	}
	return &bitState{op: op, t: a.T, pad: pad}
}

func (s *bitState) grow(n int) {
	s.v, s.set = growZero(s.v, n), growZero(s.set, n)
	if s.t.Kind == types.KindBytes {
		s.b = growZero(s.b, n)
	}
}

func (s *bitState) failed() error { return s.err }

func (s *bitState) foldBytes(g int32, x []byte) {
	if !s.set[g] {
		s.b[g], s.set[g] = append([]byte{}, x...), true
		return
	}
	acc := s.b[g]
	if len(x) != len(acc) {
		if !s.pad {
			if s.err == nil {
				s.err = &Error{Kind: KindEvaluation, Msg: fmt.Sprintf("%s of BYTES of unequal lengths (%d and %d bytes); mode => 'PAD' pads the shorter", strings.ToUpper("bit_"+s.op), len(acc), len(x))}
			}
			return
		}
		if len(x) > len(acc) {
			acc = append(acc, make([]byte, len(x)-len(acc))...)
		}
	}
	for i := range acc {
		var y byte
		if i < len(x) {
			y = x[i]
		}
		switch s.op {
		case "and":
			acc[i] &= y
		case "or":
			acc[i] |= y
		default:
			acc[i] ^= y
		}
	}
	s.b[g] = acc
}

func (s *bitState) fold(g int32, x int64) {
	if !s.set[g] {
		s.v[g], s.set[g] = x, true
		return
	}
	switch s.op {
	case "and":
		s.v[g] &= x
	case "or":
		s.v[g] |= x
	default:
		s.v[g] ^= x
	}
}

func (s *bitState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		switch {
		case v.isNull(r):
		case s.t.Kind == types.KindBytes:
			s.foldBytes(gi, []byte(v.Value(r).S))
		case v.Lazy == nil:
			s.fold(gi, v.I[r])
		default:
			s.fold(gi, v.Value(r).I)
		}
	}
}

func (s *bitState) result(g int) types.Value {
	if !s.set[g] {
		return types.NullOf(s.t)
	}
	if s.t.Kind == types.KindBytes {
		return types.Value{T: s.t, S: string(s.b[g])}
	}
	return types.Value{T: s.t, I: s.v[g]}
}

func (s *bitState) merge(target []int32, other aggState) {
	o := other.(*bitState)
	for g, t := range target {
		switch {
		case !o.set[g]:
		case s.t.Kind == types.KindBytes:
			s.foldBytes(t, o.b[g])
		default:
			s.fold(t, o.v[g])
		}
	}
}

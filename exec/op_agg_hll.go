package exec

import (
	"logq/expr"
	"logq/hll"
	"logq/types"
)

// hllState is HLL_COUNT.INIT (a sketch of the group's values),
// HLL_COUNT.MERGE_PARTIAL (the sketches merged, a sketch) and
// HLL_COUNT.MERGE (their estimate). A group without a value has no sketch:
// NULL, or 0 for MERGE. What the sketches hold is charged to the memory
// budget as they grow, and released when a partial state is merged.
type hllState struct {
	sketches[hll.Sketch, *hll.Sketch]
	fn        string
	precision int
	t         types.Type // the result's
}

func newHLLState(a expr.AggCall) aggState {
	s := &hllState{fn: a.Fn, t: a.T, precision: hll.DefaultPrecision}
	s.what = "HLL_COUNT sketch"
	if len(a.Args) == 2 {
		s.precision = int(a.Args[1].(*expr.Const).V.I) // checked by the planner
	}
	return s
}

func (s *hllState) fail() {
	if s.err == nil {
		msg := "Invalid or incompatible sketch in HLL_COUNT.MERGE"
		if s.fn == "hll_count.merge_partial" {
			msg += "_PARTIAL"
		}
		s.err = &Error{Kind: KindEvaluation, Msg: msg}
	}
}

func (s *hllState) update(g []int32, args []*Vector, n int) {
	v := args[0]
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		x := v.Value(r)
		if s.fn != "hll_count.init" {
			o, err := hll.Parse([]byte(x.S))
			if err != nil {
				s.fail()
				continue
			}
			s.fold(gi, o)
			s.charge(gi)
			continue
		}
		if s.sk[gi] == nil {
			vt := hll.Bytes
			if x.T.Kind == types.KindInt64 {
				vt = hll.Integers
			}
			s.sk[gi] = hll.New(s.precision, vt)
		}
		s.sk[gi].AddHash(hllHash(x))
		s.charge(gi)
	}
}

// hllHash is the hash HLL_COUNT.INIT counts a value by: an INT64's, or
// that of the bytes of a STRING or BYTES (BigQuery's hashes), or of a
// NUMERIC's or BIGNUMERIC's canonical text (logq's own: equal values,
// equal text).
func hllHash(x types.Value) uint64 {
	switch x.T.Kind {
	case types.KindInt64:
		return hll.HashInt64(x.I)
	case types.KindNumeric, types.KindBigNumeric:
		return hll.HashBytes([]byte(types.FormatDecimal(x)))
	}
	return hll.HashBytes([]byte(x.S))
}

// fold merges sketch o (which it may keep) into group g's.
func (s *hllState) fold(g int32, o *hll.Sketch) {
	if s.sk[g] == nil {
		s.sk[g] = o
		return
	}
	if err := s.sk[g].Merge(o); err != nil {
		s.fail()
	}
}

func (s *hllState) result(g int) types.Value {
	sk := s.sk[g]
	switch {
	case s.fn == "hll_count.merge" && sk == nil:
		return types.IntValue(0)
	case sk == nil:
		return types.NullOf(s.t)
	case s.fn == "hll_count.merge":
		return types.IntValue(sk.Estimate())
	case s.fn == "hll_count.merge_partial":
		// ZetaSQL writes a merge of sketches that record no value type
		// as one of integers.
		return types.Value{T: s.t, S: string(sk.BytesAs(hll.Integers))}
	}
	return types.Value{T: s.t, S: string(sk.Bytes())}
}

func (s *hllState) merge(target []int32, other aggState) {
	s.mergeFrom(target, &other.(*hllState).sketches, s.fold)
}

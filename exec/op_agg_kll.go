package exec

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"logq/expr"
	"logq/kll"
	"logq/sqlfunc"
	"logq/types"
)

// kllState is the KLL_QUANTILES aggregates: INIT_INT64 and INIT_FLOAT64
// (a sketch of the group's values, each row weighted by its weight),
// MERGE_PARTIAL (the group's sketches merged, a sketch), MERGE_INT64 and
// MERGE_FLOAT64 (the merge's quantiles) and MERGE_POINT_INT64 and
// MERGE_POINT_FLOAT64 (one quantile of it). A group without a value or
// sketch has none: NULL. What the sketches hold is charged to the memory
// budget as they grow, and released when a partial state is merged.
type kllState struct {
	sketches[kll.Sketch, *kll.Sketch]
	fn, up    string // name, and as messages spell it
	t         types.Type
	init      bool
	vt        kll.ValueType // of INIT's values; what MERGE_* reads (0: MERGE_PARTIAL, any)
	precision int64
	q         int     // MERGE_INT64, MERGE_FLOAT64
	phi       float64 // MERGE_POINT_*
}

func newKLLState(a expr.AggCall) aggState {
	s := &kllState{fn: a.Fn, up: strings.ToUpper(a.Fn), t: a.T, precision: kll.DefaultPrecision}
	s.what = "KLL_QUANTILES sketch"
	switch {
	case strings.HasSuffix(a.Fn, "_int64"):
		s.vt = kll.Int64
	case strings.HasSuffix(a.Fn, "_float64"):
		s.vt = kll.Float64
	}
	// The second arguments are constants, checked by the planner.
	switch a.Fn {
	case "kll_quantiles.init_int64", "kll_quantiles.init_float64":
		s.init = true
		if len(a.Args) >= 2 {
			s.precision = a.Args[1].(*expr.Const).V.I
		}
	case "kll_quantiles.merge_int64", "kll_quantiles.merge_float64":
		s.q = int(a.Args[1].(*expr.Const).V.I)
	case "kll_quantiles.merge_point_int64", "kll_quantiles.merge_point_float64":
		s.phi = a.Args[1].(*expr.Const).V.F
	}
	return s
}

func (s *kllState) fail(err error) {
	if s.err == nil {
		s.err = &Error{Kind: KindEvaluation, Msg: err.Error()}
	}
}

func (s *kllState) update(g []int32, args []*Vector, n int) {
	if s.err != nil {
		return
	}
	if s.init {
		s.add(g, args)
		return
	}
	v := args[0]
	for r, gi := range g {
		if v.isNull(r) {
			continue
		}
		o, err := sqlfunc.KLLParse(s.up, v.Value(r).S, s.vt)
		if err != nil {
			s.fail(err)
			return
		}
		s.fold(gi, o)
		s.charge(gi)
	}
}

// add is INIT's update: each value not NULL, with its weight (a row whose
// weight is NULL is skipped, as one whose value is).
func (s *kllState) add(g []int32, args []*Vector) {
	v := args[0]
	var w *Vector
	if len(args) == 3 {
		w = args[2]
	}
	for r, gi := range g {
		if v.isNull(r) || (w != nil && w.isNull(r)) {
			continue
		}
		weight := int64(1)
		if w != nil {
			if weight = w.I[r]; weight < 1 || weight > kll.MaxWeight {
				s.fail(fmt.Errorf("The weight of %s must be between 1 and %d, not %d", s.up, math.MaxInt32, weight))
				return
			}
		}
		if s.sk[gi] == nil {
			s.sk[gi] = kll.New(s.vt, s.precision)
		}
		var k kll.Key
		if s.vt == kll.Float64 {
			k = kll.FloatKey(v.F[r])
		} else {
			k = kll.IntKey(v.I[r])
		}
		if err := s.sk[gi].Add(k, weight); err != nil {
			s.fail(fmt.Errorf("%s: %w", s.up, err))
			return
		}
		s.charge(gi)
	}
}

// fold merges sketch o (which it may keep) into group g's.
func (s *kllState) fold(g int32, o *kll.Sketch) {
	if s.sk[g] == nil {
		s.sk[g] = o
		return
	}
	if err := s.sk[g].Merge(o); err != nil {
		if errors.Is(err, kll.ErrIncompatible) {
			err = fmt.Errorf("%s cannot merge a sketch of %s values with one of %s values", s.up, s.sk[g].ValueType(), o.ValueType())
		} else {
			err = fmt.Errorf("%s: %w", s.up, err)
		}
		s.fail(err)
	}
}

func (s *kllState) result(g int) types.Value {
	sk := s.sk[g]
	switch {
	case sk == nil:
		return types.NullOf(s.t)
	case s.q > 0:
		return sqlfunc.KLLQuantiles(sk, s.q)
	case strings.HasPrefix(s.fn, "kll_quantiles.merge_point_"):
		return sqlfunc.KLLPoint(sk, s.phi)
	}
	return types.Value{T: s.t, S: string(sk.Bytes())}
}

func (s *kllState) merge(target []int32, other aggState) {
	s.mergeFrom(target, &other.(*kllState).sketches, s.fold)
}

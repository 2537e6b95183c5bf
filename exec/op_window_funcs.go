package exec

import (
	"context"
	"math"
	"math/big"
	"sort"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// windowCalc computes one call over the sorted rows.
type windowCalc struct {
	*windowOrder
	op   *windowOp
	call *planner.WindowCall
	ce   callExprs
	key  []types.Value // the ORDER BY key by row, for RANGE offsets (rangeKey)
	// lists says whether the aggregate keeps every value (chargeList);
	// nil until known.
	lists *bool
}

// arg is the stored column of the call's argument k.
func (w *windowCalc) arg(k int) *Vector { return w.op.vals.cols[w.ce.args[k]] }

// constArg is argument k of c, an INT64 constant by the binder's rules
// (NTILE's buckets, LAG's offset, NTH_VALUE's position).
func constArg(c *planner.WindowCall, k int) int64 { return c.Args[k].(*expr.Const).V.I }

// partition fills out for the rows of one partition: an aggregate over
// its frames (op_window_agg.go), or the call's function from windowFuncs.
func (w *windowCalc) partition(ctx context.Context, p partitionRun, out *Vector) error {
	if err := w.infiniteOffsets(p); err != nil {
		return err
	}
	if w.call.Fn == "aggregate" {
		return w.aggregate(ctx, p, out)
	}
	f := windowFuncs[w.call.Fn]
	if f == nil {
		// The binder only makes calls of planner.AnalyticNames, each of
		// which has an entry (TestEveryFunctionIsDefinedAndTested).
		return &Error{Kind: KindInternal, Msg: "no evaluation for window function " + w.call.Fn}
	}
	n, idx := w.op.rows.n, w.idx
	f(w, p, func(j int, v types.Value) { out.set(int(idx[j]), v, n) })
	return nil
}

// windowFuncs computes each numbering and navigation function the planner
// registers (planner.Analytic), by name: for the sorted positions
// [p.lo, p.hi) of one partition, set(j, v) gives position j its value.
var windowFuncs = map[string]func(w *windowCalc, p partitionRun, set func(j int, v types.Value)){
	"row_number": func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		for j := p.lo; j < p.hi; j++ {
			set(j, types.IntValue(int64(j-p.lo+1)))
		}
	},
	"rank": func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		for j := p.lo; j < p.hi; j++ {
			set(j, types.IntValue(int64(int(w.peerStart[j])-p.lo+1)))
		}
	},
	"dense_rank": func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		rank := int64(0)
		for j := p.lo; j < p.hi; j++ {
			if int(w.peerStart[j]) == j {
				rank++
			}
			set(j, types.IntValue(rank))
		}
	},
	"percent_rank": func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		size := p.hi - p.lo
		for j := p.lo; j < p.hi; j++ {
			v := 0.0
			if size > 1 {
				v = float64(int(w.peerStart[j])-p.lo) / float64(size-1)
			}
			set(j, types.FloatValue(v))
		}
	},
	"cume_dist": func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		for j := p.lo; j < p.hi; j++ {
			set(j, types.FloatValue(float64(int(w.peerEnd[j])-p.lo)/float64(p.hi-p.lo)))
		}
	},
	"percentile_cont": percentile(true),
	"percentile_disc": percentile(false),
	"ntile": func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		size := p.hi - p.lo
		buckets := int(min(constArg(w.call, 0), int64(size)))
		q, r := size/buckets, size%buckets
		for j := p.lo; j < p.hi; j++ {
			i := j - p.lo
			var b int
			if i < r*(q+1) {
				b = i/(q+1) + 1
			} else {
				b = r + (i-r*(q+1))/q + 1
			}
			set(j, types.IntValue(int64(b)))
		}
	},
	"lag":         lagLead(-1),
	"lead":        lagLead(1),
	"first_value": framePick(false, false),
	"last_value":  framePick(true, false),
	"nth_value":   framePick(false, true),
}

// percentile is PERCENTILE_CONT (cont) or PERCENTILE_DISC over the
// partition's non-NULL values, sorted as ORDER BY sorts them (NaN first):
// CONT interpolates linearly at position p·(n−1), as lo·(1−f) + hi·f;
// DISC is the first value whose cumulative share reaches p (the ⌈p·n⌉-th,
// the first for p = 0).
// With RESPECT NULLS the NULLs count too, ordered first: a position on a
// NULL is NULL, and CONT between a NULL and a value is the value (the
// reference's example: 0.01 of [NULL, 0, 1, 2, 3] is 0).
// NULL for a partition without values; every row gets the same.
func percentile(cont bool) func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
	return func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		x := w.arg(0)
		pc := w.call.Args[1].(*expr.Const).V // FLOAT64, or a DISC's exact NUMERIC
		frac := pc.F
		var vals []types.Value
		nulls := 0
		for j := p.lo; j < p.hi; j++ {
			switch r := int(w.idx[j]); {
			case !x.isNull(r):
				vals = append(vals, x.Value(r))
			case w.call.RespectNulls:
				nulls++
			}
		}
		v := types.NullOf(w.call.T)
		if n := nulls + len(vals); len(vals) > 0 {
			sort.SliceStable(vals, func(a, b int) bool { c, _ := types.Compare(vals[a], vals[b]); return c < 0 })
			switch {
			case cont && pc.T.IsDecimal():
				v = decimalPercentile(vals, nulls, pc)
			case cont:
				pos := frac * float64(n-1)
				lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
				if x, both := contNeighbours(vals, nulls, lo, hi); both {
					v = interpolate(vals[lo-nulls].F, vals[hi-nulls].F, lo, hi, pos)
				} else if x != nil {
					v = *x
				}
			default:
				k := max(int(math.Ceil(frac*float64(n))), 1)
				if pc.T.IsDecimal() { // ⌈p·n⌉ exactly
					r := new(big.Rat).Mul(pc.Rat(), new(big.Rat).SetInt64(int64(n)))
					q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
					k = int(q.Int64())
					if m.Sign() > 0 {
						k++
					}
					k = max(k, 1)
				}
				if k > nulls {
					v = vals[k-1-nulls]
				}
			}
		}
		for j := p.lo; j < p.hi; j++ {
			set(j, v)
		}
	}
}

// interpolate is PERCENTILE_CONT between the values a (at lo) and b (at
// hi) at pos: ZetaSQL's a·(1−f) + b·f, never b−a, which is NaN between two
// equal infinities and overflows between −MAX and MAX. A whole position, or
// two equal neighbours, is exactly that neighbour (so an infinity stays
// one).
func interpolate(a, b float64, lo, hi int, pos float64) types.Value {
	switch f := pos - float64(lo); {
	case lo == hi || f == 0 || a == b:
		return types.FloatValue(a)
	case f == 1:
		return types.FloatValue(b)
	default:
		return types.FloatValue(a*(1-f) + b*f)
	}
}

// decimalPercentile is PERCENTILE_CONT of sorted NUMERIC or BIGNUMERIC
// values after nulls NULLs (RESPECT NULLS) at the exact percentile p (of
// their type): the values at positions ⌊p·(n−1)⌋ and ⌈p·(n−1)⌉
// interpolated exactly, rounded half away from zero to the type's scale; a
// position on a NULL is NULL, between a NULL and a value the value.
func decimalPercentile(vals []types.Value, nulls int, p types.Value) types.Value {
	pos := new(big.Rat).Mul(p.Rat(), new(big.Rat).SetInt64(int64(nulls+len(vals)-1)))
	lo := int(new(big.Int).Quo(pos.Num(), pos.Denom()).Int64()) // pos ≥ 0: the floor
	frac := new(big.Rat).Sub(pos, new(big.Rat).SetInt64(int64(lo)))
	hi := lo
	if frac.Sign() != 0 {
		hi++
	}
	if x, both := contNeighbours(vals, nulls, lo, hi); !both {
		if x == nil {
			return types.NullOf(vals[0].T)
		}
		return *x
	}
	a, b := vals[lo-nulls], vals[hi-nulls]
	r := new(big.Rat).Add(a.Rat(), new(big.Rat).Mul(frac, new(big.Rat).Sub(b.Rat(), a.Rat())))
	v, err := types.DecimalFromRat(a.T, r)
	if err != nil { // between two values of the type: never out of its range
		return a
	}
	return v
}

// contNeighbours decides PERCENTILE_CONT at positions lo ≤ hi of the sorted
// values after nulls NULLs (RESPECT NULLS): both when the two values there
// are to be interpolated; else the answer, nil for NULL (a position on a
// NULL), or the value at hi (between a NULL and a value, or lo = hi on a
// value).
func contNeighbours(vals []types.Value, nulls, lo, hi int) (x *types.Value, both bool) {
	switch {
	case hi < nulls:
		return nil, false
	case lo < nulls || lo == hi:
		return &vals[hi-nulls], false
	}
	return nil, true
}

// lagLead is LAG (dir -1) or LEAD (dir 1): the value off rows away within
// the partition, else the default.
func lagLead(dir int) func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
	return func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		x, def := w.arg(0), w.arg(2)
		off := dir * int(min(constArg(w.call, 1), int64(math.MaxInt32)))
		for j := p.lo; j < p.hi; j++ {
			if k := j + off; k >= p.lo && k < p.hi {
				set(j, x.Value(int(w.idx[k])))
			} else {
				set(j, def.Value(int(w.idx[j])))
			}
		}
	}
}

// framePick is FIRST_VALUE, LAST_VALUE (fromEnd) or NTH_VALUE (nthArg:
// argument 1 says which): a row of each row's frame (pick).
func framePick(fromEnd, nthArg bool) func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
	return func(w *windowCalc, p partitionRun, set func(int, types.Value)) {
		x := w.arg(0)
		nth := 1
		if nthArg {
			nth = int(min(constArg(w.call, 1), int64(math.MaxInt32)))
		}
		for j := p.lo; j < p.hi; j++ {
			lo, hi := w.frame(p, j)
			set(j, w.pick(x, lo, hi, nth, fromEnd))
		}
	}
}

// pick returns the value of the nth row (from the end for LAST_VALUE) of
// the frame [lo, hi), skipping NULLs with IGNORE NULLS.
func (w *windowCalc) pick(x *Vector, lo, hi, nth int, fromEnd bool) types.Value {
	step, start := 1, lo
	if fromEnd {
		step, start = -1, hi-1
	}
	seen := 0
	for j := start; j >= lo && j < hi; j += step {
		r := int(w.idx[j])
		if w.call.IgnoreNulls && x.isNull(r) {
			continue
		}
		seen++
		if seen == nth {
			return x.Value(r)
		}
	}
	return types.NullOf(w.call.T)
}

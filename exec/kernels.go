package exec

import (
	"strings"

	"logq/expr"
	"logq/sqlfunc"
	"logq/types"
)

// A kernel evaluates a call over a whole batch; ok is false when it does not
// apply to this call (e.g. a non-constant pattern) and the row path runs.
type kernel func(ev *evaluator, c *expr.Call, b *Batch) (v *Vector, ok bool, err error)

// kernels holds the vectorised kernels, by function name. A function's one
// definition is expr.Func (its typing, NULL rule, row evaluation and
// folding); a kernel here is an optional faster way to compute the same
// values, attached to a registered name. Every function without one runs
// through expr.Eval row by row (rowByRow).
var kernels = map[string]kernel{}

// vectorised attaches k to the named functions; a name that is not
// registered, an alias, or a second kernel for a name panics at start-up.
func vectorised(k kernel, names ...string) {
	for _, name := range names {
		f := expr.LookupFunc(name)
		if f == nil || f.Name != name {
			panic("exec: kernel for " + name + ", which is not a registered function")
		}
		if kernels[name] != nil {
			panic("exec: second kernel for " + name)
		}
		kernels[name] = k
	}
}

func init() {
	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		return ev.compare(c, b)
	}, "=", "!=", "<", "<=", ">", ">=")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		l, r, err := ev.eval2(c, b)
		if err != nil {
			return nil, true, err
		}
		return logic(ev.out(c, types.Bool, b.N), c.Fn == "and", l, r, b.N), true, nil
	}, "and", "or")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		out := ev.out(c, types.Bool, b.N)
		for i := 0; i < b.N; i++ {
			out.I[i] = 1 - x.I[i]
		}
		if x.Null != nil {
			copy(out.freshNulls(b.N), x.Null)
		}
		return out, true, nil
	}, "not")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		out := ev.out(c, types.Bool, b.N)
		if x.Null != nil {
			for i, n := range x.Null[:b.N] {
				if n {
					out.I[i] = 1
				} else {
					out.I[i] = 0
				}
			}
		} else {
			clear(out.I)
		}
		return out, true, nil
	}, "is_null")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		if k := c.Args[0].Type().Kind; len(c.Args) != 1 || k != types.KindTimestamp && k != types.KindDatetime {
			return nil, false, nil // in a time zone, or of an untyped NULL: the row path
		}
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		out := ev.out(c, c.T, b.N)
		if w := c.Unit.FixedMicros(); w > 0 {
			// Rows come mostly in time order, so most fall in the bucket of
			// the row before: compared, not divided (a 64-bit division is
			// ~30 cycles).
			lo, hi := int64(1), int64(0) // no bucket yet
			for i, us := range x.I[:b.N] {
				if us < lo || us > hi {
					q := us / w
					if us%w != 0 && us < 0 {
						q--
					}
					lo = q * w
					hi = lo + (w - 1)
				}
				out.I[i] = lo
			}
		} else {
			for i, us := range x.I[:b.N] {
				out.I[i] = types.TruncMicros(us, c.Unit)
				if !expr.InTimeRange(out.I[i]) && !x.isNull(i) {
					// A WEEK of year 1 can start in year 0: the row path
					// says so, with the error it owns.
					return nil, false, nil
				}
			}
		}
		out.copyNulls(x.Null, b.N)
		return out, true, nil
	}, "timestamp_trunc")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		k, ok := c.Args[1].(*expr.Const)
		if !ok || k.V.Null {
			return nil, false, nil
		}
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		x = dense(x, b.N)
		match, err := ev.matcher(k)
		if err != nil {
			return nil, true, err
		}
		out := ev.out(c, types.Bool, b.N)
		ev.matchRows(c, x, b.N, match, out.I)
		out.copyNulls(x.Null, b.N)
		return out, true, nil
	}, "regexp_contains")

	// LIKE with a constant pattern: compiled once per query
	// (sqlfunc.LikeMatcher), not once per row.
	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		k, ok := c.Args[1].(*expr.Const)
		if !ok || k.V.Null || c.Args[0].Type().Kind != types.KindString {
			return nil, false, nil
		}
		match, ok := ev.likes[k.V.S]
		if !ok {
			var err error
			if match, err = sqlfunc.LikeMatcher(k.V.S); err != nil {
				return nil, true, paramError(c, err)
			}
			ev.likes[k.V.S] = match
		}
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		x = dense(x, b.N)
		out := ev.out(c, types.Bool, b.N)
		ev.matchRows(c, x, b.N, match, out.I)
		out.copyNulls(x.Null, b.N)
		return out, true, nil
	}, "like")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		if x.T.Kind == types.KindInt64 && c.T.Kind == types.KindFloat64 {
			out := ev.out(c, c.T, b.N)
			for i, v := range x.I[:b.N] {
				out.F[i] = float64(v)
			}
			out.copyNulls(x.Null, b.N)
			return out, true, nil
		}
		if x.T.Kind == types.KindNull {
			out := newVector(c.T, b.N)
			out.Null = make([]bool, b.N)
			for i := range out.Null {
				out.Null[i] = true
			}
			return out, true, nil
		}
		return nil, false, nil
	}, "cast")

	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		if len(c.Args) == 2 {
			if k, ok := c.Args[1].(*expr.Const); ok && strings.EqualFold(k.V.S, "UTC") && c.Args[0].Type().Kind == types.KindTimestamp {
				x, err := ev.eval(c.Args[0], b)
				if err != nil {
					return nil, true, err
				}
				out := &Vector{T: types.Datetime, I: x.I[:b.N], Null: x.Null}
				return out, true, nil
			}
		}
		return nil, false, nil
	}, "datetime")

	// COALESCE (and IFNULL) evaluates an argument only for the rows every
	// earlier one left NULL (evalFor).
	vectorised(func(ev *evaluator, c *expr.Call, b *Batch) (*Vector, bool, error) {
		out := newVector(c.T, b.N)
		open := make([]bool, b.N) // rows still NULL
		for r := range open {
			open[r] = true
		}
		for _, a := range c.Args {
			v, err := ev.evalFor(a, b, open)
			if err != nil {
				return nil, true, err
			}
			for r := 0; r < b.N; r++ {
				if open[r] && !v.isNull(r) {
					out.set(r, v.Value(r), b.N)
					open[r] = false
				}
			}
		}
		for r := 0; r < b.N; r++ {
			if open[r] {
				out.setNull(r, b.N)
			}
		}
		return out, true, nil
	}, "coalesce")
}

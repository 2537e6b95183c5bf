package exec

import (
	"regexp"
	"strings"

	"logq/planner"
	"logq/types"
)

// evaluator computes expressions over batches. Kernels are chosen by type
// once per batch; functions without a kernel are evaluated row by row through
// planner.EvalCall, the single definition of every function.
type evaluator struct {
	regexps map[string]*regexp.Regexp
	// outs keeps each expression node's result vector for reuse by the next
	// batch: a batch is only valid until its operator's next call, so the
	// storage can be recycled instead of allocated per batch.
	outs   map[planner.Expr]*Vector
	consts map[*planner.Const]*Vector
	// mem is the query's memory budget, shared by every evaluator of the
	// query (nil: unbounded); operators that keep rows charge it.
	mem *memBudget
}

func newEvaluator() *evaluator {
	return &evaluator{regexps: map[string]*regexp.Regexp{}, outs: map[planner.Expr]*Vector{}, consts: map[*planner.Const]*Vector{}}
}

// out returns e's result vector, resized to n rows of type t.
func (ev *evaluator) out(e planner.Expr, t types.Type, n int) *Vector {
	v := ev.outs[e]
	if v == nil {
		v = &Vector{}
		ev.outs[e] = v
	}
	v.T, v.Lazy = t, nil
	v.resize(n)
	return v
}

// nulls returns a cleared NULL slice of n rows for v, reusing its storage.
func (v *Vector) freshNulls(n int) []bool {
	v.nullBuf = grow(v.nullBuf[:0], n)
	clear(v.nullBuf)
	v.Null = v.nullBuf
	return v.Null
}

func (ev *evaluator) eval(e planner.Expr, b *Batch) (*Vector, error) {
	switch x := e.(type) {
	case *planner.ColRef:
		return b.Cols[x.Idx], nil
	case *planner.Const:
		if v := ev.consts[x]; v != nil && v.len() >= b.N {
			return v, nil
		}
		v := constVector(x.V, max(b.N, BatchSize))
		ev.consts[x] = v
		return v, nil
	case *planner.Case:
		return ev.caseExpr(x, b)
	case *planner.Call:
		if v, ok, err := ev.kernel(x, b); ok || err != nil {
			return v, err
		}
		return ev.rowByRow(x, b)
	}
	return nil, &Error{Kind: KindInternal, Msg: "unknown expression"}
}

// eval2 evaluates the two arguments of a binary call.
func (ev *evaluator) eval2(c *planner.Call, b *Batch) (l, r *Vector, err error) {
	if l, err = ev.eval(c.Args[0], b); err != nil {
		return nil, nil, err
	}
	r, err = ev.eval(c.Args[1], b)
	return l, r, err
}

// rowByRow is the fallback: box each row's arguments and call EvalCall.
func (ev *evaluator) rowByRow(c *planner.Call, b *Batch) (*Vector, error) {
	args := make([]*Vector, len(c.Args))
	for i, a := range c.Args {
		v, err := ev.eval(a, b)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	out := newVector(c.T, b.N)
	box := make([]types.Value, len(args))
	for r := 0; r < b.N; r++ {
		for i, a := range args {
			box[i] = a.Value(r)
		}
		v, err := planner.EvalCall(c, box)
		if err != nil {
			return nil, paramError(c, err)
		}
		out.set(r, v, b.N)
	}
	return out, nil
}

// paramError names the parameter whose constant made a call fail.
func paramError(c *planner.Call, err error) error {
	for _, a := range c.Args {
		if k, ok := a.(*planner.Const); ok && k.Param != "" {
			return &Error{Kind: KindInvalidArgument, Param: k.Param, Msg: "parameter " + k.Param + ": value " + quote(k.V.String()) + " cannot be used: " + err.Error(), Err: err}
		}
	}
	return err
}

func quote(s string) string { return "\"" + s + "\"" }

func (ev *evaluator) caseExpr(c *planner.Case, b *Batch) (*Vector, error) {
	out := newVector(c.T, b.N)
	done := make([]bool, b.N)
	for _, w := range c.Whens {
		cond, err := ev.eval(w.Cond, b)
		if err != nil {
			return nil, err
		}
		then, err := ev.eval(w.Then, b)
		if err != nil {
			return nil, err
		}
		for r := 0; r < b.N; r++ {
			if !done[r] && !cond.isNull(r) && cond.I[r] != 0 {
				done[r] = true
				out.set(r, then.Value(r), b.N)
			}
		}
	}
	els, err := ev.eval(c.Else, b)
	if err != nil {
		return nil, err
	}
	for r := 0; r < b.N; r++ {
		if !done[r] {
			out.set(r, els.Value(r), b.N)
		}
	}
	return out, nil
}

// kernel evaluates the calls that have a vectorised implementation.
func (ev *evaluator) kernel(c *planner.Call, b *Batch) (*Vector, bool, error) {
	switch c.Fn {
	case "=", "!=", "<", "<=", ">", ">=":
		return ev.compare(c, b)
	case "and", "or":
		l, r, err := ev.eval2(c, b)
		if err != nil {
			return nil, true, err
		}
		return logic(ev.out(c, types.Bool, b.N), c.Fn == "and", l, r, b.N), true, nil
	case "not":
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
	case "is_null":
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
	case "timestamp_trunc", "datetime_trunc":
		x, err := ev.eval(c.Args[0], b)
		if err != nil {
			return nil, true, err
		}
		out := ev.out(c, c.T, b.N)
		if w := c.Unit.FixedMicros(); w > 0 {
			for i, us := range x.I[:b.N] {
				q := us / w
				if us%w != 0 && us < 0 {
					q--
				}
				out.I[i] = q * w
			}
		} else {
			for i, us := range x.I[:b.N] {
				out.I[i] = types.TruncMicros(us, c.Unit)
			}
		}
		out.copyNulls(x.Null, b.N)
		return out, true, nil
	case "regexp_contains":
		k, ok := c.Args[1].(*planner.Const)
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
		for i, s := range x.S[:b.N] {
			if match(s) {
				out.I[i] = 1
			} else {
				out.I[i] = 0
			}
		}
		out.copyNulls(x.Null, b.N)
		return out, true, nil
	case "cast":
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
	case "datetime":
		if len(c.Args) == 2 {
			if k, ok := c.Args[1].(*planner.Const); ok && strings.EqualFold(k.V.S, "UTC") && c.Args[0].Type().Kind == types.KindTimestamp {
				x, err := ev.eval(c.Args[0], b)
				if err != nil {
					return nil, true, err
				}
				out := &Vector{T: types.Datetime, I: x.I[:b.N], Null: x.Null}
				return out, true, nil
			}
		}
	case "coalesce":
		args := make([]*Vector, len(c.Args))
		for i, a := range c.Args {
			v, err := ev.eval(a, b)
			if err != nil {
				return nil, true, err
			}
			args[i] = v
		}
		out := newVector(c.T, b.N)
		for r := 0; r < b.N; r++ {
			picked := false
			for _, a := range args {
				if !a.isNull(r) {
					out.set(r, a.Value(r), b.N)
					picked = true
					break
				}
			}
			if !picked {
				out.setNull(r, b.N)
			}
		}
		return out, true, nil
	}
	return nil, false, nil
}

// matcher returns a string predicate for a constant pattern: plain substring
// search when the pattern has no metacharacters, RE2 otherwise.
func (ev *evaluator) matcher(k *planner.Const) (func(string) bool, error) {
	re, ok := ev.regexps[k.V.S]
	if !ok {
		var err error
		re, err = planner.CompileRegexp(k.V.S)
		if err != nil {
			if k.Param != "" {
				return nil, &Error{Kind: KindInvalidArgument, Param: k.Param, Msg: "parameter " + k.Param + ": value " + quote(k.V.S) + " is not a valid regular expression: " + err.Error(), Err: err}
			}
			return nil, &Error{Kind: KindEvaluation, Msg: err.Error(), Err: err}
		}
		ev.regexps[k.V.S] = re
	}
	if lit, complete := re.LiteralPrefix(); complete {
		return func(s string) bool { return strings.Contains(s, lit) }, nil
	}
	return re.MatchString, nil
}

// dense returns v with lazily referenced values read (kernels that touch
// the typed slices need them).
func dense(v *Vector, n int) *Vector {
	if v.Lazy == nil {
		return v
	}
	out := newVector(v.T, n)
	for i := 0; i < n; i++ {
		out.set(i, v.Value(i), n)
	}
	return out
}

// copyNulls sets v's NULL flags to a copy of n (nil: none).
func (v *Vector) copyNulls(n []bool, rows int) {
	if n == nil {
		v.Null = nil
		return
	}
	copy(v.freshNulls(rows), n[:rows])
}

// logic is three-valued AND/OR into out.
func logic(out *Vector, and bool, l, r *Vector, n int) *Vector {
	if l.Null == nil && r.Null == nil {
		li, ri := l.I[:n], r.I[:n]
		if and {
			for i := range li {
				out.I[i] = li[i] & ri[i]
			}
		} else {
			for i := range li {
				out.I[i] = li[i] | ri[i]
			}
		}
		return out
	}
	for i := 0; i < n; i++ {
		ln, rn := l.isNull(i), r.isNull(i)
		lv, rv := !ln && l.I[i] != 0, !rn && r.I[i] != 0
		if and {
			switch {
			case (!ln && !lv) || (!rn && !rv):
				out.I[i] = 0
			case ln || rn:
				out.setNull(i, n)
				out.I[i] = 0
			default:
				out.I[i] = 1
			}
		} else {
			switch {
			case lv || rv:
				out.I[i] = 1
			case ln || rn:
				out.setNull(i, n)
				out.I[i] = 0
			default:
				out.I[i] = 0
			}
		}
	}
	return out
}

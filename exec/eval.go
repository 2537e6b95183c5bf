package exec

import (
	"maps"
	"regexp"
	"strings"

	"logq/expr"
	"logq/planner"
	"logq/sqlfunc"
	"logq/types"
)

// evaluator computes expressions over batches. Kernels are chosen by type
// once per batch; functions without a kernel are evaluated row by row through
// expr.Eval with the function a call resolved to, the single definition
// of every function (sqlfunc).
type evaluator struct {
	regexps map[string]*regexp.Regexp
	likes   map[string]func(string) bool // LIKE patterns, compiled
	// outs keeps each expression node's result vector for reuse by the next
	// batch: a batch is only valid until its operator's next call, so the
	// storage can be recycled instead of allocated per batch.
	outs   map[expr.Expr]*Vector
	consts map[*expr.Const]*Vector
	// memos keeps a string predicate's answers per dictionary code
	// (matchRows), per call node.
	memos map[*expr.Call]*codeMemo
	// mem is the query's memory budget, shared by every evaluator of the
	// query (nil: unbounded); operators that keep rows charge it.
	mem *memBudget
}

// release gives the evaluator's vectors back to the pool (vector_pool.go)
// once its query has ended.
func (ev *evaluator) release() {
	for e, v := range ev.outs {
		releaseVector(v)
		delete(ev.outs, e)
	}
	for c, v := range ev.consts {
		releaseVector(v)
		delete(ev.consts, c)
	}
}

func newEvaluator() *evaluator {
	return &evaluator{regexps: map[string]*regexp.Regexp{}, likes: map[string]func(string) bool{}, outs: map[expr.Expr]*Vector{}, consts: map[*expr.Const]*Vector{}, memos: map[*expr.Call]*codeMemo{}}
}

// out returns e's result vector, resized to n rows of type t.
func (ev *evaluator) out(e expr.Expr, t types.Type, n int) *Vector {
	v := ev.outs[e]
	if v == nil {
		v = takeVector()
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

func (ev *evaluator) eval(e expr.Expr, b *Batch) (*Vector, error) {
	switch x := e.(type) {
	case *expr.ColRef:
		return b.Cols[x.Idx], nil
	case *expr.Const:
		// A constant is written out for the rows asked, and again at twice
		// the size when a longer batch comes: a query of a few rows does
		// not fill BatchSize rows per constant (coalesce(sum(x), 0) over
		// two groups wrote 4096).
		n := b.N
		v := ev.consts[x]
		if v != nil {
			if v.len() >= b.N {
				return v, nil
			}
			n = max(n, 2*v.len())
		} else {
			v = takeVector()
			ev.consts[x] = v
		}
		fillConst(v, x.V, n)
		return v, nil
	case *expr.Case:
		return ev.caseExpr(x, b)
	case *inSet:
		return ev.evalInSet(x, b)
	case *keyedValue:
		return ev.evalKeyed(x, b)
	case *applied:
		return ev.evalApplied(x, b)
	case *planner.OuterParam:
		return constVector(x.Value(), b.N), nil
	case *expr.With:
		return ev.with(x, b)
	case *expr.WithVar:
		if v := b.lets[x.ID]; v != nil {
			return v, nil
		}
		return nil, &Error{Kind: KindInternal, Msg: "WITH variable " + x.Name + " read outside its WITH expression"}
	case *expr.Call:
		if x.Fn == "if" {
			return ev.ifExpr(x, b)
		}
		if v, ok, err := ev.kernel(x, b); ok || err != nil {
			return v, err
		}
		return ev.rowByRow(x, b)
	}
	return nil, &Error{Kind: KindInternal, Msg: "unknown expression"}
}

// with evaluates a WITH expression: each variable once over the batch, in
// order, then the result over the batch extended by their values.
func (ev *evaluator) with(w *expr.With, b *Batch) (*Vector, error) {
	inner := &Batch{N: b.N, Cols: b.Cols, lets: make(map[int]*Vector, len(b.lets)+len(w.Vars))}
	maps.Copy(inner.lets, b.lets)
	for i, v := range w.Vars {
		x, err := ev.eval(v, inner)
		if err != nil {
			return nil, err
		}
		inner.lets[w.IDs[i]] = x
	}
	return ev.eval(w.Body, inner)
}

// eval2 evaluates the two arguments of a binary call.
func (ev *evaluator) eval2(c *expr.Call, b *Batch) (l, r *Vector, err error) {
	if l, err = ev.eval(c.Args[0], b); err != nil {
		return nil, nil, err
	}
	r, err = ev.eval(c.Args[1], b)
	return l, r, err
}

// evalEach evaluates each of es over b.
func (ev *evaluator) evalEach(es []expr.Expr, b *Batch) ([]*Vector, error) {
	out := make([]*Vector, len(es))
	for i, e := range es {
		v, err := ev.eval(e, b)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// rowByRow is the fallback: box each row's arguments and evaluate the
// call's function (expr.Eval) on them.
func (ev *evaluator) rowByRow(c *expr.Call, b *Batch) (*Vector, error) {
	args, err := ev.evalEach(c.Args, b)
	if err != nil {
		return nil, err
	}
	out := newVector(c.T, b.N)
	box := make([]types.Value, len(args))
	def := c.Resolve() // once per batch; Def was set when the plan was built
	for r := 0; r < b.N; r++ {
		for i, a := range args {
			box[i] = a.Value(r)
		}
		v, err := expr.Eval(def, c, box)
		if err != nil {
			return nil, paramError(c, err)
		}
		out.set(r, v, b.N)
	}
	return out, nil
}

// paramError names the parameter whose constant made a call fail.
func paramError(c *expr.Call, err error) error {
	for _, a := range c.Args {
		if k, ok := a.(*expr.Const); ok && k.Param != "" {
			return &Error{Kind: KindInvalidArgument, Param: k.Param, Msg: "parameter " + k.Param + ": value " + quote(k.V.String()) + " cannot be used: " + err.Error(), Err: err}
		}
	}
	return err
}

func quote(s string) string { return "\"" + s + "\"" }

// evalFor evaluates e for the rows of b where need is true; other rows of
// the result are NULL or whatever e gave them. BigQuery evaluates a CASE
// branch (and its WHEN), an IF arm and a COALESCE or IFNULL argument only
// for the rows that need it, so an error raised by another row (a division
// by zero the branch guards against, a subquery key no taken branch reads)
// is not the query's. e is evaluated on the whole batch first, which is
// cheapest when nothing fails; only when that fails is it evaluated again on
// the rows that need it alone, and that error, if any, is the query's.
func (ev *evaluator) evalFor(e expr.Expr, b *Batch, need []bool) (*Vector, error) {
	v, err := ev.eval(e, b)
	if err == nil {
		return v, nil
	}
	var rows []int32
	for r := 0; r < b.N; r++ {
		if need[r] {
			rows = append(rows, int32(r))
		}
	}
	if len(rows) == b.N {
		return nil, err
	}
	out := newVector(e.Type(), b.N)
	for r := 0; r < b.N; r++ {
		if !need[r] {
			out.setNull(r, b.N)
		}
	}
	if len(rows) == 0 {
		return out, nil
	}
	sv, err := ev.eval(e, b.take(rows))
	if err != nil {
		return nil, err
	}
	for k, r := range rows {
		out.set(int(r), sv.Value(k), b.N)
	}
	return out, nil
}

func (ev *evaluator) caseExpr(c *expr.Case, b *Batch) (*Vector, error) {
	out := newVector(c.T, b.N)
	open := make([]bool, b.N) // rows no WHEN has taken yet
	for r := range open {
		open[r] = true
	}
	take := make([]bool, b.N)
	for _, w := range c.Whens {
		cond, err := ev.evalFor(w.Cond, b, open)
		if err != nil {
			return nil, err
		}
		for r := 0; r < b.N; r++ {
			take[r] = open[r] && !cond.isNull(r) && cond.I[r] != 0
		}
		then, err := ev.evalFor(w.Then, b, take)
		if err != nil {
			return nil, err
		}
		for r := 0; r < b.N; r++ {
			if take[r] {
				open[r] = false
				out.set(r, then.Value(r), b.N)
			}
		}
	}
	els, err := ev.evalFor(c.Else, b, open)
	if err != nil {
		return nil, err
	}
	for r := 0; r < b.N; r++ {
		if open[r] {
			out.set(r, els.Value(r), b.N)
		}
	}
	return out, nil
}

// ifExpr is IF(cond, then, else): each arm for the rows that take it.
func (ev *evaluator) ifExpr(c *expr.Call, b *Batch) (*Vector, error) {
	cond, err := ev.eval(c.Args[0], b)
	if err != nil {
		return nil, err
	}
	yes, no := make([]bool, b.N), make([]bool, b.N)
	for r := 0; r < b.N; r++ {
		yes[r] = !cond.isNull(r) && cond.I[r] != 0
		no[r] = !yes[r]
	}
	then, err := ev.evalFor(c.Args[1], b, yes)
	if err != nil {
		return nil, err
	}
	els, err := ev.evalFor(c.Args[2], b, no)
	if err != nil {
		return nil, err
	}
	out := newVector(c.T, b.N)
	for r := 0; r < b.N; r++ {
		if yes[r] {
			out.set(r, then.Value(r), b.N)
		} else {
			out.set(r, els.Value(r), b.N)
		}
	}
	return out, nil
}

// kernel evaluates c with its vectorised kernel (kernels.go), if it has
// one; ok is false when it must run row by row. Under the SAFE. prefix the
// row path turns errors into NULL, so kernels are skipped.
func (ev *evaluator) kernel(c *expr.Call, b *Batch) (*Vector, bool, error) {
	k := kernels[c.Fn]
	if k == nil {
		return nil, false, nil
	}
	v, ok, err := k(ev, c, b)
	if err != nil && c.Safe {
		// SAFE.f: the row path makes NULL of exactly the rows whose call
		// fails (an argument's own error still fails the query there).
		return nil, false, nil
	}
	return v, ok, err
}

// matcher returns a string predicate for a constant pattern: plain substring
// search when the pattern has no metacharacters, RE2 otherwise.
func (ev *evaluator) matcher(k *expr.Const) (func(string) bool, error) {
	re, ok := ev.regexps[k.V.S]
	if !ok {
		var err error
		re, err = sqlfunc.CompileRegexp(k.V.S)
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
	for i, x := range v.lateValues(n) {
		out.set(i, x, n)
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

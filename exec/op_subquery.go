package exec

import (
	"context"
	"fmt"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// Subqueries inside expressions (planner.Subquery) that do not read the
// enclosing row (uncorrelated, or decorrelated by the planner) run once per
// query; those that do run per outer row (op_apply.go). Before the
// operators of a plan are built, every
// subquery of the plan (and, first, those inside its own plan) is run and the
// node is replaced by what it computed: a constant for a scalar, EXISTS or
// ARRAY subquery, an inSet (a hash set of the values) for IN. The operators
// then see ordinary expressions, so every operator, worker and kernel
// handles them without knowing about subqueries, and nothing is shared
// between goroutines but read-only sets.
//
// The values an IN set or an ARRAY keeps are charged to the query's memory
// budget; a scalar subquery reads at most two rows, EXISTS one batch.

// subqueries runs the subqueries of one query.
type subqueries struct {
	ctx  context.Context
	view View
	mem  *memBudget
	done map[planner.Node]*subResult // by the subquery's plan: copies share it
	// applies holds the state of each correlated subquery run per outer
	// row, by its plan: copies share it.
	applies map[planner.Node]*applyState
}

type subResult struct {
	value types.Value            // scalar, EXISTS, ARRAY
	set   *valueSet              // IN
	sets  map[string]*valueSet   // correlated IN: the values by appendKey of the key
	keyed map[string]types.Value // keyed: the value by appendKey of the key
	dups  map[string]bool        // keyed: keys with more than one row
}

// valueSet is the distinct non-NULL values of an IN subquery, by appendKey
// (INT64 and FLOAT64 of equal value share a key), and whether any was NULL.
type valueSet struct {
	keys    map[string]struct{}
	hasNull bool
	empty   bool
	// structs are the set's STRUCT values, uncertain those of them holding
	// a NULL or a NaN (at any depth): such a value is equal to no other,
	// and = says FALSE or NULL for it field by field, which the keys
	// cannot say (structIn).
	structs, uncertain []types.Value
}

// resolveSubqueries replaces every subquery of plan by its value.
func resolveSubqueries(ctx context.Context, plan planner.Node, view View, mem *memBudget) error {
	r := &subqueries{ctx: ctx, view: view, mem: mem, done: map[planner.Node]*subResult{}}
	return r.resolve(plan)
}

func (r *subqueries) resolve(n planner.Node) error {
	for _, in := range n.Children() {
		if err := r.resolve(in); err != nil {
			return err
		}
	}
	if len(planner.Subqueries(n)) == 0 {
		return nil
	}
	var err error
	planner.MapSubqueryExprs(n, func(e expr.Expr) expr.Expr {
		s, ok := e.(*planner.Subquery)
		if !ok || err != nil {
			return e
		}
		if s.Params != nil { // correlated: run per outer row (op_apply.go)
			a, aerr := r.apply(s)
			if aerr != nil {
				err = aerr
				return e
			}
			return a
		}
		res, rerr := r.run(s)
		if rerr != nil {
			err = rerr
			return e
		}
		switch s.Kind {
		case planner.SubIn:
			return &inSet{x: s.X, set: res.set, key: s.Key, sets: res.sets}
		case planner.SubKeyed:
			return &keyedValue{x: s.X, vals: res.keyed, dups: res.dups, def: s.Default, line: s.Line, col: s.Col}
		}
		return &expr.Const{V: res.value}
	})
	return err
}

// run executes one subquery's plan (once per plan).
func (r *subqueries) run(s *planner.Subquery) (*subResult, error) {
	if res, ok := r.done[s.Plan]; ok {
		return res, nil
	}
	if err := r.resolve(s.Plan); err != nil {
		return nil, err
	}
	res, err := r.execute(s)
	if err != nil {
		return nil, err
	}
	r.done[s.Plan] = res
	return res, nil
}

// execute runs s's plan, whose own subqueries are resolved, and collects
// what its kind computes.
func (r *subqueries) execute(s *planner.Subquery) (*subResult, error) {
	ev := newEvaluator()
	ev.mem = r.mem
	defer ev.release() // after the operators close; what it keeps are values copied out
	op, err := build(s.Plan, &Env{view: r.view, ev: ev})
	if err != nil {
		return nil, err
	}
	defer op.Close()
	res := &subResult{}
	var vals []types.Value
	set := &valueSet{keys: map[string]struct{}{}, empty: true}
	var key []byte
	rows := 0
read:
	for {
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		b, err := op.Next(r.ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			break
		}
		if b.N == 0 {
			continue
		}
		rows += b.N
		switch s.Kind {
		case planner.SubExists:
			break read
		case planner.SubScalar:
			if rows > 1 {
				return nil, scalarRowsError(s.Line, s.Col)
			}
			vals = append(vals, b.Cols[0].Value(0))
		case planner.SubArray:
			if err := r.mem.charge("subquery of ARRAY", b.N, 1); err != nil {
				return nil, err
			}
			for i := 0; i < b.N; i++ {
				vals = append(vals, b.Cols[0].Value(i)) // a NULL too (see nullInResult)
			}
		case planner.SubKeyed:
			if err := r.mem.charge("correlated subquery", b.N, 2); err != nil {
				return nil, err
			}
			if res.keyed == nil {
				res.keyed = map[string]types.Value{}
			}
			for i := 0; i < b.N; i++ {
				key = appendKey(key[:0], b.Cols[0].Value(i))
				if _, seen := res.keyed[string(key)]; seen {
					if !s.FirstRow {
						if res.dups == nil {
							res.dups = map[string]bool{}
						}
						res.dups[string(key)] = true
					}
					continue
				}
				res.keyed[string(key)] = b.Cols[1].Value(i)
			}
		case planner.SubIn:
			if err := r.mem.charge("subquery of IN", b.N, len(b.Cols)); err != nil {
				return nil, err
			}
			col := b.Cols[len(b.Cols)-1] // after the key of a correlated IN
			for i := 0; i < b.N; i++ {
				to := set
				if s.Key != nil {
					key = appendKey(key[:0], b.Cols[0].Value(i))
					if res.sets == nil {
						res.sets = map[string]*valueSet{}
					}
					if to = res.sets[string(key)]; to == nil {
						to = &valueSet{keys: map[string]struct{}{}, empty: true}
						res.sets[string(key)] = to
					}
				}
				to.add(col.Value(i), &key)
			}
		}
	}
	switch s.Kind {
	case planner.SubExists:
		res.value = types.BoolValue(rows > 0)
	case planner.SubScalar:
		res.value = types.NullOf(s.T)
		if len(vals) == 1 {
			res.value = vals[0]
		}
	case planner.SubArray:
		res.value = types.ArrayValue(*s.T.Elem, append([]types.Value{}, vals...))
	case planner.SubIn:
		res.set = set
	}
	return res, nil
}

// scalarRowsError is BigQuery's error for a scalar subquery of more than
// one row, placed at the subquery.
func scalarRowsError(line, col int) *Error {
	msg := "Scalar subquery produced more than one element"
	return &Error{Kind: KindEvaluation, Msg: fmt.Sprintf("%d:%d: %s", line, col, msg), Line: line, Col: col, Reason: msg}
}

// keyedValue is a decorrelated scalar subquery (planner.SubKeyed) once its
// values are known: the value for x's key, else def (also for a NULL x,
// which equals no key); an error for a key in dups.
type keyedValue struct {
	x         expr.Expr
	vals      map[string]types.Value
	dups      map[string]bool
	def       types.Value
	line, col int
}

func (e *keyedValue) Type() types.Type      { return e.def.T }
func (e *keyedValue) Children() []expr.Expr { return []expr.Expr{e.x} }
func (e *keyedValue) WithChildren(ch []expr.Expr) expr.Expr {
	c := *e
	c.x = ch[0]
	return &c
}
func (e *keyedValue) String() string {
	return fmt.Sprintf("keyed(%s, %d values)", e.x, len(e.vals))
}

func (ev *evaluator) evalKeyed(e *keyedValue, b *Batch) (*Vector, error) {
	x, err := ev.eval(e.x, b)
	if err != nil {
		return nil, err
	}
	out := ev.out(e, e.def.T, b.N)
	var key []byte
	for r := 0; r < b.N; r++ {
		v := e.def
		if k := x.Value(r); !matchesNothing(k) {
			key = appendKey(key[:0], k)
			if kv, ok := e.vals[string(key)]; ok {
				v = kv
			}
			if e.dups[string(key)] {
				return nil, scalarRowsError(e.line, e.col)
			}
		}
		out.set(r, v, b.N)
	}
	return out, nil
}

// add puts one of the subquery's values into the set; key is scratch.
func (s *valueSet) add(v types.Value, key *[]byte) {
	s.empty = false
	if v.Null {
		s.hasNull = true
		return
	}
	if v.T.Kind == types.KindStruct {
		s.structs = append(s.structs, v)
		if holdsUnknown(v) {
			s.uncertain = append(s.uncertain, v)
		}
	}
	*key = appendKey((*key)[:0], v)
	if _, ok := s.keys[string(*key)]; !ok {
		s.keys[string(*key)] = struct{}{}
	}
}

// test is BigQuery's x IN (the set's values): FALSE for an empty (or nil)
// set; else NULL for a NULL x; TRUE when x is among the values; else NULL
// if a value was NULL; else FALSE. NaN equals nothing. key is scratch.
func (s *valueSet) test(v types.Value, key *[]byte) (in, null bool) {
	if s == nil || s.empty {
		return false, false
	}
	if v.Null {
		return false, true
	}
	if v.T.Kind == types.KindStruct {
		return s.structIn(v, key)
	}
	if !matchesNothing(v) {
		*key = appendKey((*key)[:0], v)
		if _, found := s.keys[string(*key)]; found {
			return true, false
		}
	}
	return false, s.hasNull
}

// structIn is test for a STRUCT: found by its key when neither it nor the
// value holds a NULL or NaN; else = compares it with each value that could
// answer other than FALSE (all of them when v holds one, else the
// uncertain ones), field by field (ZetaSQL's three-valued STRUCT equality,
// the one definition in the function library); a NULL from it makes the
// answer NULL unless a value is equal.
func (s *valueSet) structIn(v types.Value, key *[]byte) (in, null bool) {
	candidates := s.structs
	if !holdsUnknown(v) {
		*key = appendKey((*key)[:0], v)
		if _, found := s.keys[string(*key)]; found {
			return true, false
		}
		candidates = s.uncertain
	}
	null = s.hasNull
	if len(candidates) == 0 {
		return false, null
	}
	eq, call := expr.Registered("="), &expr.Call{Fn: "=", T: types.Bool}
	for _, e := range candidates {
		r, err := eq.Eval(call, []types.Value{v, e})
		switch {
		case err != nil || r.Null:
			null = true
		case r.I != 0:
			return true, false
		}
	}
	return false, null
}

// holdsUnknown reports whether v holds a NULL or a NaN at any depth.
func holdsUnknown(v types.Value) bool {
	if matchesNothing(v) {
		return true
	}
	for _, e := range v.L {
		if holdsUnknown(e) {
			return true
		}
	}
	return false
}

// inSet is x IN (subquery) once the subquery's values are known: set, or
// for a correlated IN the set of each value of key.
type inSet struct {
	x    expr.Expr
	set  *valueSet
	key  expr.Expr
	sets map[string]*valueSet
}

func (e *inSet) Type() types.Type { return types.Bool }
func (e *inSet) Children() []expr.Expr {
	if e.key != nil {
		return []expr.Expr{e.x, e.key}
	}
	return []expr.Expr{e.x}
}
func (e *inSet) WithChildren(ch []expr.Expr) expr.Expr {
	c := *e
	c.x = ch[0]
	if len(ch) > 1 {
		c.key = ch[1]
	}
	return &c
}
func (e *inSet) String() string {
	if e.key != nil {
		return fmt.Sprintf("in(%s, key %s, sets of %d keys)", e.x, e.key, len(e.sets))
	}
	return fmt.Sprintf("in(%s, set of %d values, null=%v)", e.x, len(e.set.keys), e.set.hasNull)
}

// evalInSet is BigQuery's IN over a subquery's values (valueSet.test), per
// row over its key's values for a correlated IN.
func (ev *evaluator) evalInSet(e *inSet, b *Batch) (*Vector, error) {
	out := ev.out(e, types.Bool, b.N)
	clear(out.I[:b.N])
	if e.key == nil && e.set.empty {
		return out, nil
	}
	x, err := ev.eval(e.x, b)
	if err != nil {
		return nil, err
	}
	var keys *Vector
	if e.key != nil {
		if keys, err = ev.eval(e.key, b); err != nil {
			return nil, err
		}
	}
	var scratch []byte
	for r := 0; r < b.N; r++ {
		set := e.set
		if keys != nil {
			set = nil // a NULL or NaN key equals no row's
			if k := keys.Value(r); !matchesNothing(k) {
				scratch = appendKey(scratch[:0], k)
				set = e.sets[string(scratch)]
			}
		}
		in, null := set.test(x.Value(r), &scratch)
		switch {
		case in:
			out.I[r] = 1
		case null:
			out.setNull(r, b.N)
		}
	}
	return out, nil
}

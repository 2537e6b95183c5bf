package exec

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"logq/planner"
	"logq/sqlparse"
	"logq/types"
)

// Result is the rows of a query with their column names and types.
type Result struct {
	Columns []planner.Column
	Rows    [][]types.Value
}

// Query is a parsed saved query, ready to run many times.
type Query struct {
	AST    *sqlparse.Query
	Source string
	Params []string // parameters the SQL uses
	// Caller, when set, is a caller's SQL that replaces the final SELECT of
	// a sandboxed endpoint (see Sandboxed).
	Caller *planner.Sandbox
	// plans keeps the query's bound plans per parameter values
	// (plancache.go); nil plans every call.
	plans *planCache
}

// Sandboxed returns q with its final SELECT replaced by a caller's SQL,
// under the rules of planner.Sandbox. Only the parse happens here (a syntax
// error, a second statement or a statement that is not a query is refused at
// once); the rest is checked as the call is planned. Errors are *Error of
// KindInvalidQuery positioned in sql.
func (q *Query) Sandboxed(sql string) (*Query, error) {
	ast, err := sqlparse.ParseSelect(sql)
	if err != nil {
		return nil, classify(err)
	}
	out := *q
	out.Caller = &planner.Sandbox{Query: ast, Src: sql, Params: q.Params}
	out.plans = nil // the caller's SQL differs from call to call
	return &out, nil
}

// Prepare parses and checks a query once.
func Prepare(sql string) (*Query, error) {
	ast, err := sqlparse.Parse(sql)
	if err != nil {
		return nil, err
	}
	if err := planner.Check(ast, sql); err != nil {
		return nil, err
	}
	return &Query{AST: ast, Source: sql, Params: planner.Params(ast), plans: newPlanCache()}, nil
}

// Request is one call of a query.
type Request struct {
	Params  map[string]string
	Now     time.Time     // CURRENT_TIMESTAMP; zero means time.Now()
	Timeout time.Duration // 0: only ctx limits the run
	MaxRows int           // rows beyond this are not kept; 0: no cap
	// MemoryBudget bounds, in bytes, the rows the query's joins, sorts and
	// aggregates keep (an estimate; see memBudget); 0: no bound.
	MemoryBudget int64
	// RecordsAsJSON, for a caller that only writes the rows in the API's
	// response encoding (types.ResponseEncoder): a nested record read late
	// (a source's object field selected whole) comes back as a JSON value
	// holding that encoding, written from its columns without assembling
	// it (late_json.go). The column's type stays the record's.
	RecordsAsJSON bool
}

// Run plans q against the storage's current contents and executes it.
// Errors are *Error. A panic inside is a bug: it is recovered here, once,
// and returned as KindInternal with its stack.
func Run(ctx context.Context, st Storage, q *Query, req Request) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fromPanic(r)
		}
		if err != nil {
			err = classify(err)
		}
	}()
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	plan, view, err := prepare(st, q, req)
	if err != nil {
		return nil, err
	}
	return execute(ctx, plan, view, req, &memBudget{limit: req.MemoryBudget})
}

// prepare binds and optimises q for one call, over a view that reads each
// source as the plan first names it.
func prepare(st Storage, q *Query, req Request) (planner.Node, View, error) {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	view := st.View()
	if _, ok := view.(keepsPlans); ok && q.plans != nil && q.Caller == nil {
		plan, err := q.plans.plan(q, view, req.Params, now.UnixMicro())
		return plan, view, err
	}
	plan, err := planner.Plan(q.AST, q.Source, planner.Options{Catalog: view, Params: req.Params, Now: now.UnixMicro(), Sandbox: q.Caller})
	return plan, view, err
}

// Explain returns the optimised plan of q for the given request.
func Explain(st Storage, q *Query, req Request) (string, error) {
	plan, _, err := prepare(st, q, req)
	if err != nil {
		return "", classify(err)
	}
	return planner.Explain(plan), nil
}

func execute(ctx context.Context, plan planner.Node, view View, req Request, mem *memBudget) (*Result, error) {
	maxRows := req.MaxRows
	if err := resolveSubqueries(ctx, plan, view, mem); err != nil { // op_subquery.go
		return nil, err
	}
	ev := newEvaluator()
	ev.mem = mem
	defer ev.release() // after the operators are closed
	op, err := build(plan, &Env{view: view, ev: ev})
	if err != nil {
		return nil, err
	}
	defer op.Close()
	res := &Result{Columns: resultColumns(plan.Columns())}
	var records *recordWriter // RecordsAsJSON's buffers, made at the first record
	arrays := map[int]bool{}  // the result columns whose type holds an ARRAY
	for c, col := range res.Columns {
		if holdsArray(col.T) {
			arrays[c] = true
		}
	}
	// A value read late (a nested record, a late field) that could not be
	// read reads as NULL where it is met; the query then fails with it.
	done := func() (*Result, error) {
		if f, ok := view.(interface{ lateErr() error }); ok {
			if err := f.lateErr(); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := op.Next(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return done()
		}
		n := b.N
		if maxRows > 0 {
			n = min(n, maxRows-len(res.Rows))
		}
		// Late fields are read for the whole batch at once (a column
		// looked up once per segment, not per row).
		late := make([][]types.Value, len(b.Cols))
		for c, v := range b.Cols {
			switch {
			case v.Lazy != nil && req.RecordsAsJSON && v.Lazy.field.Object:
				if records == nil {
					records = getRecordWriter()
					defer records.release()
				}
				late[c] = v.lateJSON(n, records)
			case v.Lazy != nil:
				late[c] = v.lateValues(n)
			}
		}
		// The batch's rows share one allocation, not one each.
		nc := len(b.Cols)
		slab := make([]types.Value, n*nc)
		for r := 0; r < b.N; r++ {
			if maxRows > 0 && len(res.Rows) >= maxRows {
				return done()
			}
			row := slab[r*nc : (r+1)*nc : (r+1)*nc]
			for c, v := range b.Cols {
				if late[c] != nil {
					row[c] = late[c][r]
				} else {
					row[c] = v.Value(r)
				}
				if arrays[c] && nullInResult(&row[c]) {
					return nil, &Error{Kind: KindEvaluation, Msg: "Array cannot have a null element; error in writing field " + res.Columns[c].Name}
				}
			}
			res.Rows = append(res.Rows, row)
		}
	}
}

// build turns a plan into operators: the one place that knows both. The
// storage's view is offered each node first (View.Build); what it does not
// answer is built here from exec's own operators.
func build(n planner.Node, env *Env) (Operator, error) {
	if op, err := env.view.Build(n, env); op != nil || err != nil {
		return op, err
	}
	ev := env.ev
	switch x := n.(type) {
	case *planner.Values:
		return &valuesOp{plan: x, ev: ev}, nil
	case *planner.Filter:
		in, err := build(x.In, env)
		return &filterOp{in: in, cond: x.Cond, ev: ev}, err
	case *planner.Project:
		in, err := build(x.In, env)
		return &projectOp{in: in, exprs: x.Exprs, ev: ev}, err
	case *planner.Limit:
		in, err := build(x.In, env)
		return &limitOp{in: in, n: x.N, offset: x.Offset}, err
	case *planner.Sort:
		in, err := build(x.In, env)
		return &sortOp{plan: x, ev: ev, in: in}, err
	case *planner.Aggregate:
		in, err := build(x.In, env)
		return newAggOp(in, x, ev), err
	case *planner.Unnest:
		in, err := build(x.In, env)
		return &unnestOp{in: in, plan: x, ev: ev}, err
	case *planner.Window:
		in, err := build(x.In, env)
		return newWindowOp(in, x, ev), err
	case *planner.Join:
		l, err := build(x.Left, env)
		if err != nil {
			return nil, err
		}
		r, err := build(x.Right, env)
		return &joinOp{left: l, right: r, plan: x, ev: ev}, err
	case *planner.SetOp:
		l, err := build(x.Left, env)
		if err != nil {
			return nil, err
		}
		r, err := build(x.Right, env)
		return &setOp{left: l, right: r, plan: x, ev: ev}, err
	case *planner.RecursiveUnion:
		return newRecursiveOp(x, env)
	case *planner.WorkTable:
		return &workTableOp{plan: x, env: env}, nil
	case *planner.Union:
		u := &unionOp{}
		for _, in := range x.Inputs {
			op, err := build(in, env)
			if err != nil {
				return nil, err
			}
			u.ins = append(u.ins, op)
		}
		return u, nil
	}
	return nil, &Error{Kind: KindInternal, Msg: fmt.Sprintf("no operator for %T", n)}
}

// An ARRAY may hold NULL elements inside a query (ARRAY_AGG without IGNORE
// NULLS, [x, NULL], ARRAY(SELECT …)), but one that reaches the result is an
// error, as in BigQuery: its result format has no NULL array element.

// holdsArray reports whether values of type t can contain an ARRAY.
func holdsArray(t types.Type) bool {
	switch t.Kind {
	case types.KindArray:
		return true
	case types.KindStruct:
		for _, f := range t.Fields {
			if holdsArray(f.Type) {
				return true
			}
		}
	}
	return false
}

// nullInResult reports whether v holds an ARRAY with a NULL element.
// It walks by pointer: a wide record is thousands of values.
func nullInResult(v *types.Value) bool {
	if v.Null {
		return false
	}
	switch v.T.Kind {
	case types.KindArray:
		for i := range v.L {
			if v.L[i].Null || nullInResult(&v.L[i]) {
				return true
			}
		}
	case types.KindStruct:
		for i := range v.L {
			if nullInResult(&v.L[i]) {
				return true
			}
		}
	}
	return false
}

// resultColumns names a query's result columns as BigQuery names them when
// it writes a result: a name that an earlier column has (names compare
// without case) takes the first free suffix _1, _2, …, so that a row, a
// JSON object, never holds one key twice (SELECT 1 AS a, 2 AS a gives a
// and a_1). Inside the query, duplicate names stay as they are. cols is
// the plan's own slice: it is copied when a name changes.
func resultColumns(cols []planner.Column) []planner.Column {
	seen := make(map[string]bool, len(cols))
	var out []planner.Column  // cols' copy, made at the first repeated name
	var taken map[string]bool // then every name, the suffixed ones too
	for i, c := range cols {
		k := strings.ToLower(c.Name)
		if !seen[k] {
			seen[k] = true
			continue
		}
		if out == nil {
			out = slices.Clone(cols)
			taken = make(map[string]bool, len(cols))
			for _, c := range cols {
				taken[strings.ToLower(c.Name)] = true
			}
		}
		for n := 1; ; n++ {
			name := c.Name + "_" + strconv.Itoa(n)
			if l := strings.ToLower(name); !taken[l] {
				taken[l], seen[l] = true, true
				out[i].Name = name
				break
			}
		}
	}
	if out == nil {
		return cols
	}
	return out
}

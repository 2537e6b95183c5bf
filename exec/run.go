package exec

import (
	"context"
	"fmt"
	"time"

	"logq/event"
	"logq/logstore"
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
	return &Query{AST: ast, Source: sql, Params: planner.Params(ast)}, nil
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
}

// Run plans q against the store's current contents and executes it. Errors
// are *Error. A panic inside is a bug: it is recovered here, once, and
// returned as KindInternal with its stack.
func Run(ctx context.Context, store *logstore.Store, q *Query, req Request) (res *Result, err error) {
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
	plan, cat, err := prepare(store, q, req)
	if err != nil {
		return nil, err
	}
	return execute(ctx, plan, cat, req.MaxRows, &memBudget{limit: req.MemoryBudget})
}

// prepare binds and optimises q for one call, over a catalog of snapshots
// taken as the plan reads each source.
func prepare(store *logstore.Store, q *Query, req Request) (planner.Node, *catalog, error) {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	cat := &catalog{store: store, snaps: map[string]logstore.Snapshot{}}
	plan, err := planner.Plan(q.AST, q.Source, planner.Options{Catalog: cat, Params: req.Params, Now: now.UnixMicro(), Sandbox: q.Caller})
	return plan, cat, err
}

// Explain returns the optimised plan of q for the given request.
func Explain(store *logstore.Store, q *Query, req Request) (string, error) {
	plan, _, err := prepare(store, q, req)
	if err != nil {
		return "", classify(err)
	}
	return planner.Explain(plan), nil
}

func execute(ctx context.Context, plan planner.Node, cat *catalog, maxRows int, mem *memBudget) (*Result, error) {
	if err := resolveSubqueries(ctx, plan, cat, mem); err != nil { // op_subquery.go
		return nil, err
	}
	ev := newEvaluator()
	ev.mem = mem
	op, err := build(plan, cat, ev)
	if err != nil {
		return nil, err
	}
	defer op.Close()
	res := &Result{Columns: plan.Columns()}
	arrays := map[int]bool{} // the result columns whose type holds an ARRAY
	for c, col := range res.Columns {
		if holdsArray(col.T) {
			arrays[c] = true
		}
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
			return res, nil
		}
		for r := 0; r < b.N; r++ {
			if maxRows > 0 && len(res.Rows) >= maxRows {
				return res, nil
			}
			row := make([]types.Value, len(b.Cols))
			for c, v := range b.Cols {
				row[c] = v.Value(r)
				if arrays[c] && nullInResult(row[c]) {
					return nil, &Error{Kind: KindEvaluation, Msg: "Array cannot have a null element; error in writing field " + res.Columns[c].Name}
				}
			}
			res.Rows = append(res.Rows, row)
		}
	}
}

// build turns a plan into operators (the one place that knows both).
func build(n planner.Node, cat *catalog, ev *evaluator) (Operator, error) {
	switch x := n.(type) {
	case *planner.Scan:
		return newParallelScan(x, cat.snapshot(x.Source), 0), nil
	case *planner.Values:
		return &valuesOp{plan: x, ev: ev}, nil
	case *planner.Filter:
		in, err := build(x.In, cat, ev)
		return &filterOp{in: in, cond: x.Cond, ev: ev}, err
	case *planner.Project:
		in, err := build(x.In, cat, ev)
		return &projectOp{in: in, exprs: x.Exprs, ev: ev}, err
	case *planner.Limit:
		in, err := build(x.In, cat, ev)
		return &limitOp{in: in, n: x.N, offset: x.Offset}, err
	case *planner.Sort:
		op := &sortOp{plan: x, ev: ev}
		if sp, ok := x.In.(*planner.Scan); ok && x.Limit >= 0 && newestFirstKey(x, sp) {
			// Newest segments first, serially, stopping once the top-k is full.
			scan := newScan(sp, cat.snapshot(sp.Source), ev)
			scan.newestFirst, scan.floor = true, op.timeFloor
			op.in = scan
			return op, nil
		}
		var err error
		op.in, err = build(x.In, cat, ev)
		return op, err
	case *planner.Aggregate:
		if sp, ok := linearScan(x.In); ok {
			if op := newParallelAgg(x, cat.snapshot(sp.Source), ev); op != nil {
				return op, nil
			}
		}
		in, err := build(x.In, cat, ev)
		return newAggOp(in, x, ev), err
	case *planner.Unnest:
		in, err := build(x.In, cat, ev)
		return &unnestOp{in: in, plan: x, ev: ev}, err
	case *planner.Window:
		if sp, ok := linearScan(x.In); ok && x.TopN > 0 {
			if in := newParallelTopN(x, cat.snapshot(sp.Source), ev); in != nil {
				return newWindowOp(in, x, ev), nil
			}
		}
		if key, ok := newestFirstWindow(x); ok {
			sp := x.In.(*planner.Scan)
			scan := newScan(sp, cat.snapshot(sp.Source), ev)
			w := newWindowOp(scan, x, ev)
			readNewestFirst(scan, w, key)
			return w, nil
		}
		in, err := build(x.In, cat, ev)
		return newWindowOp(in, x, ev), err
	case *planner.Join:
		l, err := build(x.Left, cat, ev)
		if err != nil {
			return nil, err
		}
		r, err := build(x.Right, cat, ev)
		return &joinOp{left: l, right: r, plan: x, ev: ev}, err
	case *planner.SetOp:
		l, err := build(x.Left, cat, ev)
		if err != nil {
			return nil, err
		}
		r, err := build(x.Right, cat, ev)
		return &setOp{left: l, right: r, plan: x, ev: ev}, err
	case *planner.Union:
		u := &unionOp{}
		for _, in := range x.Inputs {
			op, err := build(in, cat, ev)
			if err != nil {
				return nil, err
			}
			u.ins = append(u.ins, op)
		}
		return u, nil
	}
	return nil, &Error{Kind: KindInternal, Msg: fmt.Sprintf("no operator for %T", n)}
}

// catalog serves the planner from one snapshot per source, taken on first
// use, so a query sees one consistent state of each source.
type catalog struct {
	store *logstore.Store
	snaps map[string]logstore.Snapshot
}

func (c *catalog) snapshot(name string) logstore.Snapshot {
	s, ok := c.snaps[name]
	if !ok {
		s = c.store.Snapshot(name)
		c.snaps[name] = s
	}
	return s
}

func (c *catalog) Table(name string) planner.TableSchema { return tableSchema{c.snapshot(name).Schema} }

type tableSchema struct{ s *event.Schema }

func (t tableSchema) Field(path string) (types.Type, bool, bool) {
	if f, ok := t.s.Lookup(path); ok {
		return f.Type, f.Object, true
	}
	return planner.EmptyCatalog{}.Table("").Field(path)
}

func (t tableSchema) Children(path string) []string {
	var fields []*event.Field
	if path == "" {
		fields = t.s.Top
	} else if f, ok := t.s.Lookup(path); ok {
		fields = f.Children
	}
	if len(fields) == 0 && path == "" {
		return planner.EmptyCatalog{}.Table("").Children("")
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// newestFirstKey reports whether a sort's first key is the scan's event
// timestamp, descending: then the scan can visit the newest segments first
// and stop once the top-k is full.
func newestFirstKey(s *planner.Sort, scan *planner.Scan) bool {
	k := s.Keys[0]
	c, ok := k.Expr.(*planner.ColRef)
	if !ok || !k.Desc {
		return false
	}
	f := scan.Fields[c.Idx]
	return f.Path == "timestamp" && !f.Presence
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
func nullInResult(v types.Value) bool {
	if v.Null {
		return false
	}
	switch v.T.Kind {
	case types.KindArray:
		for _, e := range v.L {
			if e.Null || nullInResult(e) {
				return true
			}
		}
	case types.KindStruct:
		for _, f := range v.L {
			if nullInResult(f) {
				return true
			}
		}
	}
	return false
}

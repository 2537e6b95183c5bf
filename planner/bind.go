package planner

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Options are what a call supplies to Plan.
type Options struct {
	Catalog Catalog
	// Params holds the caller's values; a parameter absent here is NULL.
	Params map[string]string
	// Now is CURRENT_TIMESTAMP for the whole query, µs since the epoch.
	Now int64
	// Sandbox, when set, is a caller's query that runs in place of the
	// query's final SELECT (sandbox.go).
	Sandbox *Sandbox
	// Bound, when set, is told the name of every scalar, aggregate and
	// analytic function the binder binds a call to, before any folding:
	// the library's coverage test collects it from the golden queries.
	Bound func(name string)
}

// bound tells Options.Bound of a call of name.
func (b *binder) bound(name string) {
	if b.opts.Bound != nil {
		b.opts.Bound(name)
	}
}

// Plan binds a parsed query for one call and optimises it. src is the query
// text, for error positions.
func Plan(q *sqlparse.Query, src string, opts Options) (Node, error) {
	return bindPlan(&binder{src: src, opts: opts}, q)
}

// bindPlan binds q with b, optimises the plan and resolves its calls: Plan
// and NewTemplate (template.go), whose binders differ only in nowLate.
func bindPlan(b *binder, q *sqlparse.Query) (plan Node, err error) {
	if !expr.Linked() {
		return nil, errNoLibrary
	}
	opts := b.opts
	defer b.recover(&err)
	if opts.Sandbox != nil {
		plan = b.sandboxed(q, opts.Sandbox)
	} else {
		plan = b.query(q, nil)
	}
	plan = optimize(plan)
	if err := checkConstants(plan); err != nil {
		return nil, err
	}
	resolveCalls(plan)
	return plan, nil
}

// resolveCalls gives every call of the plan, and of its subqueries' plans,
// its function (Call.Def), so that no row looks one up by name. The binder
// resolved the calls it typed; this reaches those the rewrites made.
func resolveCalls(n Node) {
	for _, e := range n.Expressions() {
		resolveExpr(e)
	}
	for _, in := range Inputs(n) {
		resolveCalls(in)
	}
}

func resolveExpr(e expr.Expr) { resolveIn(e, true) }

// resolveIn gives every call of e its function, and those of its
// subqueries' plans when plans is set. A name with no function
// ($grouping_set, which the aggregate reads itself) stays nil and is not
// written again: a kept plan's copies (template.go) resolve what they
// share only by reading.
func resolveIn(e expr.Expr, plans bool) {
	switch x := e.(type) {
	case *expr.Call:
		if x.Def == nil {
			if d := expr.Registered(x.Fn); d != nil {
				x.Def = d
			}
		}
	case *Subquery:
		if !plans {
			return
		}
		resolveCalls(x.Plan)
	}
	for _, c := range e.Children() {
		resolveIn(c, plans)
	}
}

// checkConstants evaluates every call left with only constant arguments:
// one that fails because of a parameter's value is that parameter's error,
// raised now. Any other error of constants is left to run time, where it
// is raised only for a row that reaches it, as ZetaSQL evaluates:
// `SELECT 1/z FROM (SELECT 0 AS k, 0 AS z) WHERE k > 0` has no row, and no
// error.
func checkConstants(n Node) error {
	var err error
	visit := func(e expr.Expr) {
		if e == nil || err != nil {
			return
		}
		expr.MapExpr(e, func(x expr.Expr) expr.Expr {
			if c, ok := x.(*expr.Call); ok && err == nil && len(c.Args) > 0 {
				var pe *expr.ParamError
				if _, ferr := expr.Fold(c); errors.As(ferr, &pe) {
					err = fromParamError(ferr)
				}
			}
			return x
		})
	}
	var walk func(n Node)
	walk = func(n Node) {
		for _, e := range n.Expressions() {
			visit(e)
		}
		for _, in := range Inputs(n) {
			walk(in)
		}
	}
	walk(n)
	return err
}

// Check binds a saved query with every parameter unknown and no data, to find
// errors before the query is ever called.
func Check(q *sqlparse.Query, src string) error { return CheckAgainst(q, src, EmptyCatalog{}) }

// CheckAgainst is Check with the sources' schemas cat knows. Check is
// CheckAgainst an empty catalog, and must refuse no query that a catalog
// with the query's fields accepts (exec's FuzzCheckNoStricterThanRun).
func CheckAgainst(q *sqlparse.Query, src string, cat Catalog) (err error) {
	if !expr.Linked() {
		return errNoLibrary
	}
	b := &binder{src: src, opts: Options{Catalog: cat}, symbolic: true}
	defer b.recover(&err)
	b.checkAll = true
	b.query(q, nil)
	return nil
}

// Params lists the parameters a query uses, sorted and without duplicates.
func Params(q *sqlparse.Query) []string {
	seen := map[string]bool{}
	walkAST(q, func(n sqlparse.Node) {
		if p, ok := n.(*sqlparse.Param); ok {
			seen[p.Name] = true
		}
	})
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

type binder struct {
	// recursing is the chain of recursive-WITH CTEs being bound, innermost
	// last (bind_recursive.go).
	recursing []*cteDef
	// keepConstRows: a one-row constant FROM item is not inlined (bind_select.go).
	keepConstRows bool
	src           string
	opts          Options
	symbolic      bool // Check: parameters are unknown
	// nowLate: CURRENT_TIMESTAMP binds to a nowRef, given its value per
	// call by Template.Plan, instead of a constant (template.go).
	nowLate  bool
	checkAll bool // Check: bind every CTE, read or not
	// caller is true while binding a sandboxed caller's own SQL, where a
	// table name that is no CTE is refused instead of read as a log source.
	caller bool
	// outer holds the scopes of the queries around the expression
	// subqueries being bound, innermost last (bind_subquery.go).
	outer []*scope
	// collect, while binding an EXISTS subquery, turns its references to
	// the query around it into outerRefs instead of refusing them
	// (bind_correlated.go).
	collect *collector
	// flatten is set while an array path is bound (bind_flatten.go).
	flatten bool
	// lets counts the WITH expression variables being bound, by lower-case
	// name, and letSeq numbers them (bind_with.go).
	lets   map[string]int
	letSeq int
}

func (b *binder) recover(err *error) {
	if r := recover(); r != nil {
		e, ok := r.(*Error)
		if !ok {
			panic(r)
		}
		*err = e
	}
}

// cteEnv is the chain of WITH clauses visible at a point of the query.
type cteEnv struct {
	parent *cteEnv
	defs   map[string]*cteDef
}

type cteDef struct {
	cte *sqlparse.CTE
	env *cteEnv // the CTEs visible to its body: earlier ones of the same WITH
	// src is the text the CTE was written in and caller whether a sandboxed
	// caller wrote it: an endpoint's CTE read from a caller's query is bound
	// with the endpoint's text and rights.
	src    string
	caller bool
	// A CTE of a WITH RECURSIVE may read itself (bind_recursive.go): while
	// its base term is bound inBase is set (reading itself there is an
	// error); while its recursive term is, work is the table it reads and
	// refs counts the reads.
	recursive bool
	inBase    bool
	work      *WorkTable
	refs      int
	binding   bool // being bound: a read now is a cycle through other CTEs
}

// names lists every CTE name visible in e, sorted, for error messages.
func (e *cteEnv) names() []string {
	seen := map[string]bool{}
	var out []string
	for ; e != nil; e = e.parent {
		for _, d := range e.defs {
			if !seen[strings.ToLower(d.cte.Name)] {
				seen[strings.ToLower(d.cte.Name)] = true
				out = append(out, d.cte.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (e *cteEnv) lookup(name string) *cteDef {
	for ; e != nil; e = e.parent {
		if d, ok := e.defs[strings.ToLower(name)]; ok {
			return d
		}
	}
	return nil
}

// query binds a full query. CTEs are bound only when read (dead-CTE
// elimination), so a CTE nobody reads is never planned or run.
func (b *binder) query(q *sqlparse.Query, env *cteEnv) Node {
	if len(q.With) > 0 {
		env = b.withEnv(q.With, env, q.Recursive)
		if b.checkAll {
			for _, c := range q.With {
				b.query(c.Query, env.defs[strings.ToLower(c.Name)].env)
			}
		}
	}
	if sel, ok := q.Body.(*sqlparse.Select); ok {
		return b.selectBlock(sel, env, q.OrderBy, q.Limit, q.Offset)
	}
	plan := b.setExpr(q.Body, env)
	if len(q.OrderBy) > 0 {
		cols := plan.Columns()
		var keys []SortKey
		for _, o := range q.OrderBy {
			idx := b.outputColumn(o.Expr, cols)
			if idx < 0 {
				b.fail(o.At, "ORDER BY after a set operation must name an output column")
			}
			keys = append(keys, b.sortKey(o, &expr.ColRef{Idx: idx, T: cols[idx].T, Name: cols[idx].Name}))
		}
		plan = &Sort{In: plan, Keys: keys, Limit: -1}
	}
	return b.limit(plan, q.Limit, q.Offset)
}

// withEnv adds the CTEs of one WITH clause to env, unbound: each is bound
// where it is read.
// In a recursive WITH, each CTE also sees itself.
func (b *binder) withEnv(with []*sqlparse.CTE, env *cteEnv, recursive bool) *cteEnv {
	inner := &cteEnv{parent: env, defs: map[string]*cteDef{}}
	for _, c := range with {
		key := strings.ToLower(c.Name)
		if _, dup := inner.defs[key]; dup {
			b.fail(c.At, "duplicate CTE name %s", c.Name)
		}
		snapshot := &cteEnv{parent: env, defs: map[string]*cteDef{}}
		for k, v := range inner.defs {
			snapshot.defs[k] = v
		}
		def := &cteDef{cte: c, env: snapshot, src: b.src, caller: b.caller, recursive: recursive}
		if recursive { // every CTE of the clause, before and after (query-syntax.md)
			def.env = inner
		}
		inner.defs[key] = def
	}
	return inner
}

// sortKey is an ORDER BY item's key; a STRUCT, a JSON value, or an ARRAY
// of either cannot be ordered.
func (b *binder) sortKey(o *sqlparse.OrderItem, e expr.Expr) SortKey {
	if t := e.Type(); !t.Orderable() {
		b.fail(o.Expr.Pos(), "ORDER BY does not support a value of type %s", t)
	}
	k := SortKey{Expr: b.collateKey(o, e), Desc: o.Desc, NullsFirst: !o.Desc} // bind_collation.go
	if o.NullsFirst != nil {
		k.NullsFirst = *o.NullsFirst
	}
	return k
}

// outputColumn finds the output column an ORDER BY item names (by ordinal or
// name), or -1.
func (b *binder) outputColumn(e sqlparse.Expr, cols []Column) int {
	switch e := e.(type) {
	case *sqlparse.Literal:
		if e.Kind == sqlparse.LitInt {
			var n int
			fmt.Sscan(e.Value, &n)
			if n < 1 || n > len(cols) {
				b.fail(e.At, "ordinal %d is out of range (1 to %d)", n, len(cols))
			}
			return n - 1
		}
	case *sqlparse.Ident:
		if len(e.Parts) == 1 {
			for i, c := range cols {
				if strings.EqualFold(c.Name, e.Parts[0]) {
					return i
				}
			}
		}
	}
	return -1
}

func (b *binder) limit(plan Node, limit, offset sqlparse.Expr) Node {
	if limit == nil && offset == nil {
		return plan
	}
	n := int64(noLimit) // LIMIT ALL OFFSET k
	if limit != nil {
		n = b.constInt(limit, "LIMIT")
	}
	var off int64
	if offset != nil {
		off = b.constInt(offset, "OFFSET")
	}
	if limit == nil && off == 0 {
		return plan // LIMIT ALL OFFSET 0
	}
	return &Limit{In: plan, N: n, Offset: off}
}

// noLimit is the row count of LIMIT ALL: more rows than any query has, small
// enough that count + offset cannot overflow.
const noLimit = 1 << 62

func (b *binder) constInt(e sqlparse.Expr, what string) int64 { return b.constAtLeast(e, what, 0) }

// constAtLeast reads an INT64 constant of at least lo (LIMIT, OFFSET,
// NTILE's buckets, LAG's offset, …); unknown while checking a saved query.
func (b *binder) constAtLeast(e sqlparse.Expr, what string, lo int64) int64 {
	x := b.expr(e, &exprCtx{})
	c, ok := x.(*expr.Const)
	if !ok && b.symbolic {
		return lo
	}
	if !ok || c.V.T.Kind != types.KindInt64 || c.V.Null || c.V.I < lo {
		if lo == 0 {
			b.fail(e.Pos(), "%s needs a non-negative integer constant", what)
		}
		b.fail(e.Pos(), "%s must be an integer constant of at least %d", what, lo)
	}
	return c.V.I
}

func (b *binder) setExpr(s sqlparse.SetExpr, env *cteEnv) Node {
	switch s := s.(type) {
	case *sqlparse.Select:
		return b.selectBlock(s, env, nil, nil, nil)
	case *sqlparse.Query:
		return b.query(s, env)
	case *sqlparse.SetOp:
		return b.setOp(s, env) // bind_setop.go
	}
	panic("unreachable")
}

// walkAST calls f for every node of a query.
func walkAST(n sqlparse.Node, f func(sqlparse.Node)) {
	walkASTIf(n, func(x sqlparse.Node) bool { f(x); return true })
}

// walkASTIf calls f for every node of a query, not entering the nodes below
// one for which f returns false.
func walkASTIf(n sqlparse.Node, f func(sqlparse.Node) bool) {
	if n == nil || !f(n) {
		return
	}
	w := func(x sqlparse.Node) {
		if x != nil && !isNilNode(x) {
			walkASTIf(x, f)
		}
	}
	switch n := n.(type) {
	case *sqlparse.Query:
		for _, c := range n.With {
			w(c.Query)
		}
		w(n.Body)
		for _, o := range n.OrderBy {
			w(o.Expr)
		}
		w(n.Limit)
		w(n.Offset)
	case *sqlparse.SetOp:
		w(n.Left)
		w(n.Right)
	case *sqlparse.Select:
		for _, it := range n.Items {
			w(it.Expr)
			w(it.Of)
			for _, r := range it.Replace {
				w(r.Expr)
			}
		}
		w(n.From)
		w(n.Where)
		for _, g := range n.GroupBy {
			w(g)
		}
		w(n.Having)
		w(n.Qualify)
		for _, nw := range n.Windows {
			walkWindowSpec(nw.Spec, w)
		}
	case *sqlparse.Join:
		w(n.Left)
		w(n.Right)
		w(n.On)
	case *sqlparse.UnnestRef:
		w(n.Expr)
		for _, a := range n.Zip {
			w(a.Expr)
		}
		w(n.Mode)
	case *sqlparse.NamedArg:
		w(n.X)
	case *sqlparse.SubqueryRef:
		w(n.Query)
	case *sqlparse.UnpivotRef:
		w(n.From)
	case *sqlparse.SampleRef:
		w(n.From)
		w(n.Size)
		for _, e := range n.PartitionBy {
			w(e)
		}
		w(n.Repeatable)
	case *sqlparse.PivotRef:
		w(n.From)
		for _, a := range n.Aggs {
			w(a)
		}
		w(n.For)
		for _, v := range n.Values {
			w(v)
		}
	case *sqlparse.Unary:
		w(n.X)
	case *sqlparse.Binary:
		w(n.L)
		w(n.R)
	case *sqlparse.Call:
		for _, a := range n.Args {
			w(a)
		}
		w(n.HavingX)
		w(n.Where)
		for _, o := range n.OrderBy {
			w(o.Expr)
		}
		w(n.Limit)
		walkWindowSpec(n.Over, w)
	case *sqlparse.Case:
		w(n.Operand)
		for _, wh := range n.Whens {
			w(wh.Cond)
			w(wh.Then)
		}
		w(n.Else)
	case *sqlparse.Cast:
		w(n.X)
		w(n.Format)
		w(n.TimeZone)
	case *sqlparse.Index:
		w(n.X)
		w(n.Index)
	case *sqlparse.FieldAccess:
		w(n.X)
	case *sqlparse.IsNull:
		w(n.X)
		w(n.From)
	case *sqlparse.In:
		w(n.X)
		for _, a := range n.List {
			w(a)
		}
		w(n.Unnest)
		w(n.Query)
	case *sqlparse.GroupingSets:
		for _, set := range n.Sets {
			for _, a := range set.Exprs {
				w(a)
			}
		}
	case *sqlparse.Between:
		w(n.X)
		w(n.Lo)
		w(n.Hi)
	case *sqlparse.Like:
		w(n.X)
		w(n.Pattern)
		for _, a := range n.Patterns {
			w(a)
		}
		w(n.Unnest)
		w(n.Query)
	case *sqlparse.IntervalLit:
		w(n.Value)
	case *sqlparse.ArrayLit:
		for _, a := range n.Elems {
			w(a)
		}
	case *sqlparse.StructLit:
		for _, a := range n.Elems {
			w(a)
		}
	case *sqlparse.ExprSubquery:
		w(n.Query)
	case *sqlparse.WithExpr:
		for _, v := range n.Values {
			w(v)
		}
		w(n.Result)
	}
}

func walkWindowSpec(s *sqlparse.WindowSpec, w func(sqlparse.Node)) {
	if s == nil {
		return
	}
	for _, p := range s.PartitionBy {
		w(p)
	}
	for _, o := range s.OrderBy {
		w(o.Expr)
	}
	if s.Frame != nil {
		w(s.Frame.Start.Offset)
		w(s.Frame.End.Offset)
	}
}

// isNilNode catches typed nil pointers stored in an interface.
func isNilNode(n sqlparse.Node) bool {
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// orderable refuses a JSON value where values are ordered, grouped or
// compared (BigQuery defines neither equality nor order on JSON).
func (b *binder) orderable(pos int, where string, t types.Type) {
	if t.Has(types.KindJSON) {
		b.fail(pos, "%s does not support a value of type %s (JSON has no equality or order)", where, t)
	}
	b.noCollation(pos, where, t) // bind_collation.go
}

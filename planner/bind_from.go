package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// fromTree is a FROM clause before its row layout is fixed.
type fromTree struct {
	rv          *rangeVar // leaves (scan, plan) and unnest elements
	plan        Node      // rvPlan leaves
	left, right *fromTree // joins
	joinKind    JoinKind
	on          expr.Expr
	in          *fromTree // unnest input
	unnest      expr.Expr
	unnestLeft  bool
	unnestOn    expr.Expr // LEFT JOIN UNNEST … ON: over the range variables, resolved at layout
	offsetRV    *rangeVar
	sub         *fromTree // filtered: the rows of sub for which cond holds
	cond        expr.Expr
}

// from binds a FROM clause, adding range variables to sc. Conditions that
// belong to WHERE (presence of unnested objects, ON of inner joins against
// UNNEST) are appended to where.
func (b *binder) from(f sqlparse.FromItem, env *cteEnv, sc *scope, where *[]expr.Expr) *fromTree {
	switch f := f.(type) {
	case *sqlparse.TableRef:
		if u := b.pathUnnest(f, sc); u != nil {
			return b.unnestItem(u, nil, false, sc, where)
		}
		alias := tableAlias(f)
		if def := env.lookup(f.Name); def != nil {
			switch {
			case def.work != nil: // a recursive CTE read by its own recursive term
				def.refs++
				return b.planItem(def.work, alias, sc)
			case def.binding && b.recursing[len(b.recursing)-1] != def:
				b.fail(f.At, "CTEs %s and %s read each other in a cycle: only a CTE reading itself is supported", def.cte.Name, b.recursing[len(b.recursing)-1].cte.Name)
			case def.inBase:
				b.fail(f.At, "recursive CTE %s cannot be read in its base term: write it as base UNION ALL (or UNION DISTINCT) recursive term, matched by position", def.cte.Name)
			}
			if cols, ok := mergeableCTE(def); ok && !def.recursive {
				if t, ok := b.mergeCTE(def, cols, alias, sc, where); ok {
					return t
				}
			}
			return b.valueItem(b.planItem(b.cte(def, f.At), alias, sc), def.cte.Query, def.env, sc)
		}
		if b.caller {
			b.fail(f.At, "table %s is not allowed: a sandboxed query may read only these CTEs: %s",
				f.Name, strings.Join(env.names(), ", "))
		}
		scan := &Scan{Source: f.Name, Alias: alias, TimeLo: minTime, TimeHi: maxTime}
		rv := &rangeVar{alias: strings.ToLower(alias), kind: rvScan, scan: scan, table: b.opts.Catalog.Table(f.Name)}
		sc.vars = append(sc.vars, rv)
		return &fromTree{rv: rv}
	case *sqlparse.SubqueryRef:
		return b.valueItem(b.planItem(b.query(f.Query, env), f.Alias, sc), f.Query, env, sc)
	case *sqlparse.UnpivotRef:
		return b.planItem(b.unpivot(f, env), f.Alias, sc) // bind_unpivot.go
	case *sqlparse.PivotRef:
		return b.planItem(b.pivot(f, env), f.Alias, sc) // bind_pivot.go
	case *sqlparse.SampleRef:
		return b.sample(f, env, sc, where) // bind_sample.go
	case *sqlparse.UnnestRef:
		return b.unnestItem(f, nil, false, sc, where)
	case *sqlparse.Join:
		// What a side's own FROM adds to WHERE (a merged CTE's WHERE, the
		// presence test of `CROSS JOIN UNNEST(b.metadata)`) filters that
		// side's rows. The query's WHERE is the place for it when the side
		// is preserved (a filter of one side's rows commutes with the
		// join); a side the join pads with NULLs is filtered on its own,
		// before the join (padded).
		padL, padR := f.Kind == sqlparse.JoinRight || f.Kind == sqlparse.JoinFull, f.Kind == sqlparse.JoinLeft || f.Kind == sqlparse.JoinFull
		// An outer join needs both sides as row sources: a one-row constant
		// side (SELECT 1 AS id) is not inlined. Nor is a constant anywhere
		// in a side the join pads with NULLs (inside a join nested there):
		// its columns must be NULL in the padded rows. A join nested in the
		// preserved side inlines its constants as it would anywhere.
		side := func(item sqlparse.FromItem, padded bool, w *[]expr.Expr) *fromTree {
			if _, nested := item.(*sqlparse.Join); !padded && (nested || (!padL && !padR)) {
				return b.from(item, env, sc, w)
			}
			keep := b.keepConstRows
			b.keepConstRows = true
			defer func() { b.keepConstRows = keep }()
			return b.from(item, env, sc, w)
		}
		start := len(sc.vars)
		left := b.padded(f, padL, where, func(w *[]expr.Expr) *fromTree { return side(f.Left, padL, w) })
		// RIGHT and FULL JOIN UNNEST(…), and a JOIN UNNEST(…) USING, join
		// a relation, not the left rows' arrays: the array may not read
		// the left side (as in BigQuery), and the join runs as any other.
		if u, ok := f.Right.(*sqlparse.UnnestRef); ok && !padL && len(f.Using) == 0 {
			return b.unnestJoin(f, u, left, sc, where)
		}
		if tr, ok := f.Right.(*sqlparse.TableRef); ok {
			if u := b.pathUnnest(tr, sc); u != nil {
				// `left, t.arr` unnests t.arr of each left row.
				if padL {
					b.fail(f.At, "%s of an array of the left side's rows is not supported (BigQuery refuses it too); use LEFT JOIN or CROSS JOIN", f.Kind)
				}
				if len(f.Using) > 0 {
					b.fail(f.At, "USING with an array of the left side's rows is not supported; use ON")
				}
				return b.unnestJoin(f, u, left, sc, where)
			}
			if f.On == nil && len(f.Using) == 0 && f.Kind != sqlparse.JoinComma && f.Kind != sqlparse.JoinCross {
				b.fail(f.At, "%s of %s needs ON or USING: it is no array of a FROM item (only UNNEST or an array path joins without)", f.Kind, tr.Name)
			}
		}
		mid := len(sc.vars)
		right := b.padded(f, padR, where, func(w *[]expr.Expr) *fromTree {
			// A parenthesized join, or the UNNEST of a RIGHT or FULL JOIN:
			// only its own names (scope.inner).
			why := ""
			switch f.Right.(type) {
			case *sqlparse.Join:
				why = "inside a parenthesized join: only its own FROM items are (move the condition to the join's ON)"
			case *sqlparse.UnnestRef:
				why = "in the array of a " + f.Kind.String() + " UNNEST, which may not read the left side (BigQuery refuses it too; use LEFT JOIN or CROSS JOIN)"
			}
			if why != "" {
				inner, innerWhy := sc.inner, sc.innerWhy
				sc.inner, sc.innerWhy = mid, why
				defer func() { sc.inner, sc.innerWhy = inner, innerWhy }()
			}
			return side(f.Right, padR, w)
		})
		var on expr.Expr
		if len(f.Using) > 0 {
			on = b.using(f, sc, start, mid) // bind_using.go
		} else if f.On != nil {
			on = b.boolExpr(f.On, &exprCtx{sc: sc}, "ON")
		}
		return b.join(f, left, right, on, where)
	}
	b.fail(f.Pos(), "unsupported FROM item")
	return nil
}

// tableAlias is the name a table's columns are qualified with: its alias,
// else the last part of its name.
func tableAlias(f *sqlparse.TableRef) string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name[strings.LastIndexByte(f.Name, '.')+1:]
}

// pathUnnest reads `FROM t.arr`, a path whose first name is a range
// variable in scope (or, in a subquery, of the query around it: then the
// UNNEST reads the enclosing row), as the UNNEST(t.arr) it stands for; nil
// when the name is a table's.
func (b *binder) pathUnnest(f *sqlparse.TableRef, sc *scope) *sqlparse.UnnestRef {
	i := strings.IndexByte(f.Name, '.')
	if i <= 0 {
		return nil
	}
	found := sc.find(f.Name[:i]) != nil
	for _, o := range b.outer {
		found = found || o.find(f.Name[:i]) != nil
	}
	if !found {
		return nil
	}
	parts := strings.Split(f.Name, ".")
	return &sqlparse.UnnestRef{At: f.At, Expr: &sqlparse.Ident{At: f.At, Parts: parts}, Alias: f.Alias}
}

// padded binds one side of a join (bind, given where its own conditions
// go). A side the join pads with NULLs keeps its own conditions: they
// filter its rows before the join (see from).
func (b *binder) padded(f *sqlparse.Join, pad bool, where *[]expr.Expr, bind func(*[]expr.Expr) *fromTree) *fromTree {
	if !pad {
		return bind(where)
	}
	var own []expr.Expr
	t := bind(&own)
	if len(own) == 0 {
		return t
	}
	if t == nil {
		b.fail(f.At, "%s of a constant subquery that filters its rows is not supported", f.Kind)
	}
	return &fromTree{sub: t, cond: expr.JoinAnd(own)}
}

func (b *binder) join(f *sqlparse.Join, left, right *fromTree, on expr.Expr, where *[]expr.Expr) *fromTree {
	kind := JoinInner
	switch f.Kind {
	case sqlparse.JoinComma, sqlparse.JoinCross:
		kind = JoinCross
	case sqlparse.JoinLeft:
		kind = JoinLeft
	case sqlparse.JoinRight:
		kind = JoinRight
	case sqlparse.JoinFull:
		kind = JoinFull
	}
	outer := kind == JoinLeft || kind == JoinRight || kind == JoinFull
	// A constant single-row side contributes no rows or columns.
	if right == nil && !outer {
		if on != nil {
			*where = append(*where, expr.SplitAnd(on)...)
		}
		return left
	}
	if left == nil && !outer {
		if on != nil {
			*where = append(*where, expr.SplitAnd(on)...)
		}
		return right
	}
	if left == nil || right == nil {
		b.fail(f.At, "%s with a constant subquery is not supported", f.Kind)
	}
	if kind == JoinInner && on == nil {
		kind = JoinCross
	}
	return &fromTree{left: left, right: right, joinKind: kind, on: on}
}

// planItem adds a subquery or CTE. A plan that is one row of constants (after
// folding) is inlined: its columns become constants and it leaves the FROM.
func (b *binder) planItem(plan Node, alias string, sc *scope) *fromTree {
	rv := &rangeVar{alias: strings.ToLower(alias), cols: plan.Columns()}
	if consts := constRow(plan, b.nowLate); consts != nil && !b.keepConstRows {
		rv.kind, rv.consts = rvConst, consts
		sc.vars = append(sc.vars, rv)
		return nil
	}
	rv.kind = rvPlan
	sc.vars = append(sc.vars, rv)
	return &fromTree{rv: rv, plan: plan}
}

// valueItem marks the range variable planItem just added as a value table
// when q is SELECT AS VALUE: its one column is the row (its alias is the
// value, not a STRUCT of it) and a STRUCT's fields are its columns.
func (b *binder) valueItem(t *fromTree, q *sqlparse.Query, env *cteEnv, sc *scope) *fromTree {
	if isValueTable(q) && len(sc.vars) > 0 {
		sc.vars[len(sc.vars)-1].value = true
	}
	if b.symbolic && len(sc.vars) > 0 && starReadsSource(q, env, 0) {
		sc.vars[len(sc.vars)-1].open = true
	}
	return t
}

// selectsStar reports whether a SELECT of q (through parentheses and set
// operations) lists a * (t.* too).
func selectsStar(q sqlparse.SetExpr) bool {
	switch q := q.(type) {
	case *sqlparse.Query:
		return selectsStar(q.Body)
	case *sqlparse.Select:
		for _, it := range q.Items {
			if it.Star {
				return true
			}
		}
	case *sqlparse.SetOp:
		return selectsStar(q.Left) || selectsStar(q.Right)
	}
	return false
}

// starReadsSource reports whether a SELECT of q lists a * over a FROM that
// may read a source (through subqueries, their own CTEs and those of env)
// or an UNNEST (whose elements may be a source's): checked without
// schemas, the columns that * gives are not known. It errs towards yes
// (a name it cannot place is taken for a source); depth bounds CTEs that
// read each other.
func starReadsSource(q sqlparse.SetExpr, env *cteEnv, depth int) bool {
	if depth > 32 {
		return true
	}
	var reads func(f sqlparse.FromItem) bool
	reads = func(f sqlparse.FromItem) bool {
		switch f := f.(type) {
		case *sqlparse.TableRef:
			def := env.lookup(f.Name)
			return def == nil || def.work != nil || starReadsSource(def.cte.Query, def.env, depth+1)
		case *sqlparse.SubqueryRef:
			return starReadsSource(f.Query, env, depth+1)
		case *sqlparse.Join:
			return reads(f.Left) || reads(f.Right)
		case *sqlparse.PivotRef:
			return reads(f.From)
		case *sqlparse.UnpivotRef:
			return reads(f.From)
		case *sqlparse.SampleRef:
			return reads(f.From)
		case *sqlparse.UnnestRef:
			return true
		}
		return false
	}
	switch q := q.(type) {
	case *sqlparse.Query:
		if len(q.With) > 0 { // the query's own CTEs, each seeing those before it
			for _, c := range q.With {
				inner := &cteEnv{parent: env, defs: map[string]*cteDef{}}
				inner.defs[strings.ToLower(c.Name)] = &cteDef{cte: c, env: env}
				env = inner
			}
		}
		return starReadsSource(q.Body, env, depth)
	case *sqlparse.SetOp:
		return starReadsSource(q.Left, env, depth) || starReadsSource(q.Right, env, depth)
	case *sqlparse.Select:
		return selectsStar(q) && q.From != nil && reads(q.From)
	}
	return false
}

// isValueTable reports whether q's rows are values: SELECT AS VALUE, or a
// set operation of such by position.
func isValueTable(q sqlparse.SetExpr) bool { return selectsAs(q, "VALUE") }

// selectsAs reports whether every SELECT of q is SELECT AS as (VALUE or
// STRUCT), through parentheses and set operations by position.
func selectsAs(q sqlparse.SetExpr, as string) bool {
	switch q := q.(type) {
	case *sqlparse.Query:
		return selectsAs(q.Body, as)
	case *sqlparse.Select:
		return q.As == as
	case *sqlparse.SetOp:
		return q.Match == "" && selectsAs(q.Left, as) && selectsAs(q.Right, as)
	}
	return false
}

// valueOf is the value of a value table's row.
func valueOf(rv *rangeVar) expr.Expr {
	if rv.kind == rvConst {
		return constColumn(rv.consts[0])
	}
	return &sym{rv: rv, idx: 0, T: rv.cols[0].T, nm: rv.cols[0].Name}
}

// constColumn is a reference to an inlined one-row subquery's column: its
// constant, marked as a column's value (expr.AsColumn) so that the
// coercions BigQuery gives literals only do not apply to it.
func constColumn(e expr.Expr) expr.Expr {
	if c, ok := e.(*expr.Const); ok && c.Param == "" {
		return expr.AsColumn(c)
	}
	return e
}

// constRow returns the expressions of a plan that is one row of constants.
// In a template (nowLate) an expression of the query's time alone counts as
// one: binding at a given time would have folded it to a constant.
func constRow(n Node, nowLate bool) []expr.Expr {
	p, ok := n.(*Project)
	if !ok {
		return nil
	}
	v, ok := p.In.(*Values)
	if !ok || len(v.Rows) != 1 || len(v.Cols) != 0 {
		return nil
	}
	for _, e := range p.Exprs {
		if !expr.IsConst(e) && !(nowLate && onlyNow(e)) {
			return nil
		}
	}
	return p.Exprs
}

// unnestJoin binds `left [CROSS|LEFT|INNER] JOIN UNNEST(…)` and `left, UNNEST(…)`.
func (b *binder) unnestJoin(f *sqlparse.Join, u *sqlparse.UnnestRef, left *fromTree, sc *scope, where *[]expr.Expr) *fromTree {
	return b.unnestItem(u, left, f.Kind == sqlparse.JoinLeft, sc, where, f)
}

// unnestItem binds UNNEST(expr) over input (nil for a leading UNNEST).
func (b *binder) unnestItem(u *sqlparse.UnnestRef, input *fromTree, leftJoin bool, sc *scope, where *[]expr.Expr, join ...*sqlparse.Join) *fromTree {
	var on sqlparse.Expr
	if len(join) > 0 {
		on = join[0].On
	}
	onTrue := on == nil || isTrueLit(on)
	// UNNEST of a stored nested object: a path alias, no operator at all.
	if scanRV, path, ok := b.objectPath(u.Expr, sc); ok && len(u.Zip) == 0 && !u.WithOffset && (onTrue || !leftJoin) {
		rv := &rangeVar{alias: strings.ToLower(u.Alias), kind: rvPath, scan: scanRV.scan, table: scanRV.table, prefix: path}
		rv.cols = []Column{{Name: u.Alias}}
		rv.scanRV = scanRV
		if !leftJoin {
			p := scanField(scanRV, path, types.Bool, true)
			*where = append(*where, &expr.Call{Fn: "not", Args: []expr.Expr{&expr.Call{Fn: "is_null", Args: []expr.Expr{p}, T: types.Bool}}, T: types.Bool})
		}
		sc.vars = append(sc.vars, rv)
		if !onTrue {
			*where = append(*where, expr.SplitAnd(b.boolExpr(on, &exprCtx{sc: sc}, "ON"))...)
		}
		return input
	}
	var arr expr.Expr
	if len(u.Zip) > 0 {
		arr = b.zipArrays(u, sc) // bind_unnest_zip.go
	} else {
		arr = b.flattened(u.Expr, &exprCtx{sc: sc})
	}
	elem := types.Null
	switch t := arr.Type(); t.Kind {
	case types.KindArray:
		elem = *t.Elem
	case types.KindNull:
	default:
		b.fail(u.Expr.Pos(), "UNNEST needs an array, not %s", t)
	}
	rv := &rangeVar{alias: strings.ToLower(u.Alias), kind: rvElem, cols: []Column{{Name: u.Alias, T: elem}}}
	sc.vars = append(sc.vars, rv)
	t := &fromTree{in: input, unnest: arr, unnestLeft: leftJoin, rv: rv}
	if u.WithOffset {
		name := u.OffsetAlias
		if name == "" {
			name = "offset"
		}
		t.offsetRV = &rangeVar{alias: strings.ToLower(name), kind: rvElem, cols: []Column{{Name: name, T: types.Int64}}}
		sc.vars = append(sc.vars, t.offsetRV)
	}
	if !onTrue {
		cond := b.boolExpr(on, &exprCtx{sc: sc}, "ON")
		if leftJoin {
			t.unnestOn = cond // the NULL row stands in where no element passes
		} else {
			*where = append(*where, expr.SplitAnd(cond)...)
		}
	}
	return t
}

func isTrueLit(e sqlparse.Expr) bool {
	l, ok := e.(*sqlparse.Literal)
	return ok && l.Kind == sqlparse.LitBool && l.Value == "TRUE"
}

// objectPath reports whether e names a stored nested object (or a field no
// event has yet) of a scan: `t.metadata` or `m.request` with m itself a path.
func (b *binder) objectPath(e sqlparse.Expr, sc *scope) (*rangeVar, string, bool) {
	id, ok := e.(*sqlparse.Ident)
	if !ok || len(id.Parts) > 2 {
		return nil, "", false
	}
	if len(id.Parts) == 1 {
		// An unqualified column, as Studio writes it (`UNNEST(metadata)`):
		// a path when exactly one FROM item has a column of that name and it
		// is a scan's, a path's or a merged CTE's.
		if sc.find(id.Parts[0]) != nil {
			return nil, "", false
		}
		var owner *rangeVar
		for _, rv := range sc.visible() {
			if b.columnOf(rv, id.Parts[0]) != nil {
				if owner != nil {
					return nil, "", false // ambiguous: the binder says so
				}
				owner = rv
			}
		}
		if owner == nil || (owner.kind != rvScan && owner.kind != rvPath && owner.kind != rvView) {
			return nil, "", false
		}
		return b.objectPathOf(owner, id.Parts[0])
	}
	rv := sc.find(id.Parts[0])
	if rv == nil {
		return nil, "", false
	}
	return b.objectPathOf(rv, id.Parts[1])
}

// objectPathOf reports whether field name of range variable rv is a stored
// nested object (or a field no event has yet) of a scan.
func (b *binder) objectPathOf(rv *rangeVar, name string) (*rangeVar, string, bool) {
	var scanRV *rangeVar
	var path string
	switch rv.kind {
	case rvScan:
		scanRV, path = rv, name
	case rvPath:
		scanRV, path = rv.scanRV, rv.prefix+"."+name
	case rvView:
		if path = rv.viewColumn(name); path == "" {
			return nil, "", false
		}
		scanRV = rv.scanRV
	default:
		return nil, "", false
	}
	_, object, known := fieldOf(scanRV, path)
	if known && !object {
		return nil, "", false
	}
	return scanRV, path, true
}

// layout fixes the FROM row: each range variable's columns get their offset,
// and the tree becomes plan nodes. resolve then turns syms into ColRefs.
func (b *binder) layout(t *fromTree) Node {
	if t == nil {
		return &Values{Rows: [][]expr.Expr{{}}}
	}
	// Expressions are resolved against the whole FROM row, whose columns
	// are numbered from the left; a join or UNNEST nested on the right
	// (`a LEFT JOIN (b CROSS JOIN UNNEST(…))`) evaluates them over its own
	// row, which starts at base: they are shifted by it.
	next := 0
	base := map[Node]int{}
	var build func(t *fromTree) Node
	build = func(t *fromTree) Node {
		start := next
		switch {
		case t.left != nil:
			l := build(t.left)
			r := build(t.right)
			j := &Join{Left: l, Right: r, Kind: t.joinKind}
			if t.on != nil {
				j.Cond = t.on // resolved by the caller with every offset known
			}
			base[j] = start
			return j
		case t.sub != nil:
			f := &Filter{In: build(t.sub), Cond: t.cond}
			base[f] = start
			return f
		case t.unnest != nil || t.in != nil:
			var in Node = &Values{Rows: [][]expr.Expr{{}}}
			if t.in != nil {
				in = build(t.in)
			}
			t.rv.offset = next
			next++
			cols := append(append([]Column(nil), in.Columns()...), Column{Name: t.rv.cols[0].Name, Table: t.rv.alias, T: t.rv.cols[0].T})
			if t.offsetRV != nil {
				t.offsetRV.offset = next
				next++
				cols = append(cols, Column{Name: t.offsetRV.cols[0].Name, T: types.Int64})
			}
			u := &Unnest{In: in, Expr: t.unnest, Left: t.unnestLeft, WithOffset: t.offsetRV != nil, Cols: cols}
			if t.unnestOn != nil {
				u.Cond = resolveSyms(t.unnestOn)
			}
			base[u] = start
			return u
		case t.rv.kind == rvScan:
			t.rv.offset = next
			s := t.rv.scan
			s.cols = make([]Column, len(s.Fields))
			for i, f := range s.Fields {
				s.cols[i] = Column{Name: lastName(f.Path), Table: t.rv.alias, T: f.T}
			}
			next += len(s.Fields)
			return s
		default:
			t.rv.offset = next
			next += len(t.rv.cols)
			return t.plan
		}
	}
	plan := build(t)
	local := func(e expr.Expr, n Node) expr.Expr {
		e = resolveSyms(e)
		if d := base[n]; d > 0 {
			e = expr.MapExpr(e, func(x expr.Expr) expr.Expr {
				if c, ok := x.(*expr.ColRef); ok {
					shifted := *c
					shifted.Idx -= d
					return &shifted
				}
				return x
			})
		}
		return e
	}
	var fix func(n Node)
	fix = func(n Node) {
		switch n := n.(type) {
		case *Join:
			fix(n.Left)
			fix(n.Right)
			if n.Cond != nil {
				n.Cond = local(n.Cond, n)
			}
		case *Unnest:
			fix(n.In)
			n.Expr = local(n.Expr, n)
		case *Filter:
			fix(n.In)
			n.Cond = local(n.Cond, n)
		}
	}
	fix(plan)
	return plan
}

// resolveSyms replaces syms by ColRefs once offsets are fixed.
func resolveSyms(e expr.Expr) expr.Expr {
	return expr.MapExpr(e, func(x expr.Expr) expr.Expr {
		if s, ok := x.(*sym); ok {
			return &expr.ColRef{Idx: s.rv.offset + s.idx, T: s.T, Name: s.nm}
		}
		return x
	})
}

package planner

import (
	"sort"

	"logq/expr"
	"logq/types"
)

// optimize applies the rewrite rules in order. Each rule is a plain function
// from plan to plan; see the package comment for what each one buys.
func optimize(n Node) Node {
	n = pushFilters(n)
	n = windowTopN(n)
	n = topK(n)
	n = pruneRoot(n)
	n = lateFields(n)
	n = mergeProjects(n)
	n = quantileRanks(n)
	return n
}

// mergeProjects composes a Project over a Project into one, when the inner
// one's expressions are read at most once each or are plain column reads (so
// nothing is computed twice).
func mergeProjects(n Node) Node {
	mapInputs(n, mergeProjects)
	outer, ok := n.(*Project)
	if !ok {
		return n
	}
	inner, ok := outer.In.(*Project)
	if !ok {
		return n
	}
	reads := map[int]int{}
	for _, e := range outer.Exprs {
		countReads(e, reads)
	}
	for i, e := range inner.Exprs {
		if _, plain := e.(*expr.ColRef); !plain && reads[i] > 1 {
			return n
		}
	}
	exprs := make([]expr.Expr, len(outer.Exprs))
	for i, e := range outer.Exprs {
		exprs[i] = expr.Substitute(e, inner.Exprs)
	}
	return &Project{In: inner.In, Exprs: exprs, Cols: outer.Cols}
}

func countReads(e expr.Expr, reads map[int]int) {
	if c, ok := e.(*expr.ColRef); ok {
		reads[c.Idx]++
		return
	}
	for _, ch := range e.Children() {
		countReads(ch, reads)
	}
}

// pushFilters moves every Filter as close to the data as it can go: into
// scans, below projections, to the side of a join it reads. A LEFT JOIN whose
// right side WHERE filters (rejecting NULLs) becomes an inner join.
func pushFilters(n Node) Node {
	switch x := n.(type) {
	case *Filter:
		return pushInto(pushFilters(x.In), expr.SplitAnd(x.Cond))
	case *Join:
		x.Left, x.Right = pushFilters(x.Left), pushFilters(x.Right)
		return equiJoin(x)
	}
	mapInputs(n, pushFilters)
	return n
}

// pushInto places conjuncts over node n.
func pushInto(n Node, conds []expr.Expr) Node {
	var keep []expr.Expr
	for _, c := range conds {
		if k, ok := c.(*expr.Const); ok && k.V.Bool() {
			continue // TRUE: nothing to do
		}
		keep = append(keep, c)
	}
	conds = keep
	if len(conds) == 0 {
		return n
	}
	switch x := n.(type) {
	case *Scan:
		for _, c := range conds {
			addScanPredicate(x, c)
		}
		return x
	case *Filter:
		return pushInto(x.In, append(expr.SplitAnd(x.Cond), conds...))
	case *Project:
		var below, above []expr.Expr
		for _, c := range conds {
			// A condition on RAND()'s column stays above: pushed below, it
			// would draw its own number.
			if s := expr.Substitute(c, x.Exprs); !expr.IsVolatile(s) || expr.IsVolatile(c) {
				below = append(below, s)
			} else {
				above = append(above, c)
			}
		}
		x.In = pushInto(x.In, below)
		if len(above) > 0 {
			return &Filter{In: x, Cond: expr.JoinAnd(above)}
		}
		return x
	case *Join:
		if x.Kind == JoinRight || x.Kind == JoinFull {
			// Either side may be NULL-extended: WHERE stays above the join.
			return &Filter{In: equiJoin(x), Cond: expr.JoinAnd(conds)}
		}
		nl := len(x.Left.Columns())
		var left, right, rest []expr.Expr
		for _, c := range conds {
			used := map[int]bool{}
			expr.ColsUsed(c, used)
			onlyLeft, onlyRight := true, true
			for i := range used {
				if i < nl {
					onlyRight = false
				} else {
					onlyLeft = false
				}
			}
			switch {
			case onlyLeft:
				left = append(left, c)
			case onlyRight && x.Kind == JoinLeft && !nullRejecting(c):
				rest = append(rest, c)
			case onlyRight:
				if x.Kind == JoinLeft {
					x.Kind = JoinInner // WHERE drops the NULL-extended rows anyway
				}
				m := map[int]int{}
				for i := range used {
					m[i] = i - nl
				}
				right = append(right, expr.Remap(c, m))
			default:
				if x.Kind == JoinLeft && nullRejecting(c) {
					x.Kind = JoinInner
				}
				if x.Kind == JoinLeft {
					rest = append(rest, c)
				} else {
					x.Cond = expr.JoinAnd(append(expr.SplitAnd(orTrue(x.Cond)), c))
				}
			}
		}
		x.Left = pushInto(x.Left, left)
		x.Right = pushInto(x.Right, right)
		if x.Kind == JoinCross && x.Cond != nil {
			x.Kind = JoinInner
		}
		var out Node = equiJoin(x)
		if len(rest) > 0 {
			out = &Filter{In: out, Cond: expr.JoinAnd(rest)}
		}
		return out
	}
	return &Filter{In: n, Cond: expr.JoinAnd(conds)}
}

func orTrue(e expr.Expr) expr.Expr {
	if e == nil {
		return &expr.Const{V: types.BoolValue(true)}
	}
	return e
}

// nullRejecting reports whether a condition is never TRUE when all the
// columns it reads are NULL: comparisons and most functions are; IS NULL,
// COALESCE, IF, CASE and OR may not be.
func nullRejecting(e expr.Expr) bool {
	switch x := e.(type) {
	case *expr.Call:
		switch x.Fn {
		case "is_null", "coalesce", "if", "or", "is_false", "nullif":
			return false
		case "not":
			if c, ok := x.Args[0].(*expr.Call); ok && c.Fn == "is_null" {
				return true
			}
			return false
		case "and":
			return nullRejecting(x.Args[0]) || nullRejecting(x.Args[1])
		}
		if def := expr.Registered(x.Fn); def != nil && def.NullSafe {
			return false // it sees NULLs and may answer TRUE (IS DISTINCT FROM)
		}
		for _, a := range x.Args {
			if _, ok := a.(*expr.ColRef); ok {
				return true
			}
			if nullRejecting(a) {
				return true
			}
		}
	}
	return false
}

// equiJoin moves `left expr = right expr` conjuncts of a join condition into
// hash keys.
func equiJoin(j *Join) Node {
	if j.Cond == nil || j.Kind == JoinCross {
		return j
	}
	nl := len(j.Left.Columns())
	var rest []expr.Expr
	for _, c := range expr.SplitAnd(j.Cond) {
		call, ok := c.(*expr.Call)
		if ok && call.Fn == "=" {
			l, r := call.Args[0], call.Args[1]
			if side(l, nl) == 2 && side(r, nl) == 1 {
				l, r = r, l
			}
			if side(l, nl) == 1 && side(r, nl) == 2 {
				m := map[int]int{}
				used := map[int]bool{}
				expr.ColsUsed(r, used)
				for i := range used {
					m[i] = i - nl
				}
				j.LeftKeys = append(j.LeftKeys, l)
				j.RightKeys = append(j.RightKeys, expr.Remap(r, m))
				continue
			}
		}
		rest = append(rest, c)
	}
	j.Cond = expr.JoinAnd(rest)
	return j
}

// side: 1 when e reads only left columns, 2 only right, 0 otherwise.
func side(e expr.Expr, nl int) int {
	used := map[int]bool{}
	expr.ColsUsed(e, used)
	if len(used) == 0 {
		return 0
	}
	s := 0
	for i := range used {
		k := 1
		if i >= nl {
			k = 2
		}
		if s != 0 && s != k {
			return 0
		}
		s = k
	}
	return s
}

// addScanPredicate adds a conjunct to a scan: time bounds on the timestamp
// field and equality with a string constant become pruning predicates; every
// conjunct is also kept in the scan's filter unless fully answered by them.
func addScanPredicate(s *Scan, c expr.Expr) {
	if k, ok := c.(*expr.Const); ok {
		if !k.V.Bool() {
			s.Empty = true
		}
		return
	}
	// NOT (present(path) IS NULL): the object must exist.
	if not, ok := c.(*expr.Call); ok && not.Fn == "not" {
		if isn, ok := not.Args[0].(*expr.Call); ok && isn.Fn == "is_null" {
			if col, ok := isn.Args[0].(*expr.ColRef); ok && s.Fields[col.Idx].Presence {
				s.Present = append(s.Present, s.Fields[col.Idx].Path)
				return
			}
		}
	}
	if call, ok := c.(*expr.Call); ok && len(call.Args) == 2 {
		// `col op other`, or `other op col` read as `col flip(op) other`.
		col, lok := call.Args[0].(*expr.ColRef)
		other, op := call.Args[1], call.Fn
		if !lok {
			col, lok = call.Args[1].(*expr.ColRef)
			other, op = call.Args[0], flip(op)
		}
		k, rok := other.(*expr.Const)
		if def := expr.Registered(call.Fn); lok && (def == nil || !def.NullSafe) {
			f := s.Fields[col.Idx]
			timeBound := f.Path == "timestamp" && !f.Presence && other.Type().Kind == types.KindTimestamp && timeOp(op)
			switch {
			case !rok:
				if timeBound && onlyNow(other) {
					// A template's bound made of the query's time: the
					// scan's bounds once the time is known (template.go).
					s.nowBounds = append(s.nowBounds, nowBound{op: op, e: other})
					return
				}
			case k.V.Null && op != "!=":
				s.Empty = true
				return
			case timeBound:
				narrowTime(s, op, k.V.I)
				return
			case op == "=" && k.V.T.Kind == types.KindString && f.T.Kind == types.KindString && !f.Presence:
				s.Eq = append(s.Eq, EqPred{Field: col.Idx, Value: k.V.S})
				return
			}
		}
	}
	if s.Filter == nil {
		s.Filter = c
		return
	}
	s.Filter = expr.JoinAnd(append(expr.SplitAnd(s.Filter), c))
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// topK folds a Limit over a Sort (possibly through a Project) into the Sort,
// and moves the Project above the top-k so that expensive values (whole
// nested records) are computed for the kept rows only.
func topK(n Node) Node {
	x, ok := n.(*Limit)
	if !ok {
		mapInputs(n, topK)
		return n
	}
	x.In = topK(x.In)
	if x.N == noLimit {
		return x // LIMIT ALL OFFSET k keeps every row: a full sort, then the offset, not a heap of them all
	}
	switch in := x.In.(type) {
	case *Sort:
		if in.Limit < 0 {
			in.Limit, in.Offset = x.N, x.Offset
			return projectAboveTopK(in)
		}
	case *Project:
		if s, ok := in.In.(*Sort); ok && s.Limit < 0 {
			s.Limit, s.Offset = x.N, x.Offset
			in.In = projectAboveTopK(s)
			return in
		}
	}
	return x
}

// projectAboveTopK turns TopK(Project(in)) into Project(TopK(in)).
func projectAboveTopK(s *Sort) Node {
	p, ok := s.In.(*Project)
	if !ok {
		return s
	}
	keys := make([]SortKey, len(s.Keys))
	for i, k := range s.Keys {
		keys[i] = k
		keys[i].Expr = expr.Substitute(k.Expr, p.Exprs)
		if expr.IsVolatile(keys[i].Expr) && !expr.IsVolatile(k.Expr) {
			return s // ORDER BY r of RAND() AS r: sort by the value shown, computed once
		}
	}
	inner := &Sort{In: p.In, Keys: keys, Limit: s.Limit, Offset: s.Offset}
	return &Project{In: projectAboveTopK(inner), Exprs: p.Exprs, Cols: p.Cols}
}

// lateFields marks the STRING fields of a scan that a top-k right above it
// (a Sort with a LIMIT, a Window keeping its first rows per partition) only
// carries: no sort key, window expression or scan filter reads them. Such a
// field of a large input (a request id, a message) is then read for the few
// rows kept instead of for every row; reading a compressed string block is
// the costly part of such a scan. A field the Window partitions by, as it
// is, is late too: the executor groups its references by their dictionary
// codes (or resolves a segment's run of them at once), and only the kept
// rows' strings are ever made.
func lateFields(n Node) Node {
	mapInputs(n, lateFields)
	var scan *Scan
	used := map[int]bool{}
	switch x := n.(type) {
	case *Sort:
		if x.Limit < 0 {
			return n
		}
		scan, _ = x.In.(*Scan)
		for _, k := range x.Keys {
			expr.ColsUsed(k.Expr, used)
		}
	case *Window:
		if x.TopN <= 0 {
			return n
		}
		scan, _ = x.In.(*Scan)
		for i := range x.Calls {
			c := &x.Calls[i]
			for _, e := range c.Partition {
				if _, bare := e.(*expr.ColRef); !bare {
					expr.ColsUsed(e, used)
				}
			}
			for _, es := range [][]expr.Expr{c.Args, c.Agg.Args} {
				for _, e := range es {
					expr.ColsUsed(e, used)
				}
			}
			for _, k := range c.Order {
				expr.ColsUsed(k.Expr, used)
			}
		}
	}
	if scan == nil {
		return n
	}
	if scan.Filter != nil {
		expr.ColsUsed(scan.Filter, used)
	}
	for _, e := range scan.Eq {
		used[e.Field] = true
	}
	for i, f := range scan.Fields {
		k := f.T.Kind
		if !used[i] && !f.Presence && (k == types.KindString || k == types.KindBytes) {
			scan.Fields[i].Late = true
		}
	}
	return n
}

// quantileRanks marks approx_quantiles aggregates whose array is only read at
// constant offsets within it, so the executor computes just those ranks: the
// array then holds only them, in the order of Ranks, and the reads are
// renumbered to match (OFFSET(q, 95) of ranks [95 99] reads element 0). Its
// 101 elements per group were most of what invocation-stats allocated. An
// offset past the array is left to read the whole array and fail as it
// would.
func quantileRanks(n Node) Node {
	for _, in := range Inputs(n) {
		quantileRanks(in)
	}
	p, ok := n.(*Project)
	if !ok {
		return n
	}
	a, ok := p.In.(*Aggregate)
	if !ok {
		return n
	}
	nk := len(a.Keys)
	for ai := range a.Aggs {
		call := &a.Aggs[ai]
		if call.Fn != "approx_quantiles" {
			continue
		}
		col := nk + ai
		last := int(call.Args[1].(*expr.Const).V.I)
		// read returns the rank an expression reads of the array and the
		// base of its index (1 for ORDINAL), if it is such a read.
		read := func(e expr.Expr) (rank, base int, ok bool) {
			c, ok := e.(*expr.Call)
			if !ok || c.Fn != "offset" && c.Fn != "safe_offset" && c.Fn != "ordinal" && c.Fn != "safe_ordinal" {
				return 0, 0, false
			}
			if r, ok := c.Args[0].(*expr.ColRef); !ok || r.Idx != col {
				return 0, 0, false
			}
			k, ok := c.Args[1].(*expr.Const)
			if !ok || k.V.Null {
				return 0, 0, false
			}
			if c.Fn == "ordinal" || c.Fn == "safe_ordinal" {
				base = 1
			}
			return int(k.V.I) - base, base, true
		}
		ranks := map[int]bool{}
		onlyOffsets := true
		var visit func(e expr.Expr)
		visit = func(e expr.Expr) {
			if r, _, ok := read(e); ok {
				ranks[r] = true
				onlyOffsets = onlyOffsets && r >= 0 && r <= last
				return
			}
			if r, ok := e.(*expr.ColRef); ok && r.Idx == col {
				onlyOffsets = false
			}
			for _, ch := range e.Children() {
				visit(ch)
			}
		}
		for _, e := range p.Exprs {
			visit(e)
		}
		if !onlyOffsets || len(ranks) == 0 {
			continue
		}
		call.Ranks = call.Ranks[:0]
		for r := range ranks {
			call.Ranks = append(call.Ranks, r)
		}
		sort.Ints(call.Ranks)
		for i, e := range p.Exprs {
			p.Exprs[i] = expr.MapExpr(e, func(e expr.Expr) expr.Expr {
				r, base, ok := read(e)
				if !ok {
					return e
				}
				c := *e.(*expr.Call)
				c.Args = []expr.Expr{c.Args[0], &expr.Const{V: types.IntValue(int64(sort.SearchInts(call.Ranks, r) + base))}}
				return &c
			})
		}
	}
	return n
}

// timeOp reports whether a comparison of the time with a constant bounds
// a scan's time range.
func timeOp(op string) bool {
	switch op {
	case ">=", ">", "<=", "<", "=":
		return true
	}
	return false
}

// narrowTime applies `timestamp op v` to a scan's time range.
func narrowTime(s *Scan, op string, v int64) {
	switch op {
	case ">=":
		s.TimeLo = max(s.TimeLo, v)
	case ">":
		s.TimeLo = max(s.TimeLo, v+1)
	case "<=":
		s.TimeHi = min(s.TimeHi, v)
	case "<":
		s.TimeHi = min(s.TimeHi, v-1)
	case "=":
		s.TimeLo, s.TimeHi = max(s.TimeLo, v), min(s.TimeHi, v)
	}
}

package planner

import (
	"fmt"
	"strconv"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

type selItem struct {
	ast   sqlparse.Expr
	expr  expr.Expr // bound once expanded stars are known
	name  string
	pos   int
	asKey bool // a grouping-sets key by its alias or ordinal: read as the key
}

// selectBlock binds one SELECT with the ORDER BY and LIMIT of its query.
func (b *binder) selectBlock(s *sqlparse.Select, env *cteEnv, orderBy []*sqlparse.OrderItem, limit, offset sqlparse.Expr) Node {
	sc := &scope{env: env}
	var where []expr.Expr
	var tree *fromTree
	if s.From != nil {
		// Grouping sets tell a key from the constant it holds (GROUPING,
		// a key NULL in the sets without it): a one-row constant FROM item
		// stays a row source then, not inlined constants.
		keep := b.keepConstRows
		b.keepConstRows = hasGroupingSets(s.GroupBy)
		tree = b.from(s.From, env, sc, &where)
		b.keepConstRows = keep
	}
	if s.Where != nil {
		if hasAggregate(s.Where) {
			b.fail(s.Where.Pos(), "aggregate functions are not allowed in WHERE")
		}
		where = append(where, expr.SplitAnd(b.boolExpr(s.Where, &exprCtx{sc: sc}, "WHERE"))...)
	}
	items := b.expandItems(s, sc)
	if s.As == "VALUE" && len(items) != 1 {
		b.fail(s.At, "SELECT AS VALUE needs exactly one column, found %d", len(items))
	}
	grouped := len(s.GroupBy) > 0 || s.GroupAll || s.Having != nil || (s.Qualify != nil && hasAggregate(s.Qualify))
	for _, it := range items {
		grouped = grouped || (it.ast != nil && hasAggregate(it.ast))
	}
	for _, o := range orderBy {
		grouped = grouped || hasAggregate(o.Expr)
	}
	wins := &winCollector{named: b.namedWindows(s.Windows)} // bind_window.go

	var keys []expr.Expr
	var agg *aggCollector
	if grouped {
		agg = &aggCollector{}
		if hasGroupingSets(s.GroupBy) {
			// An item GROUP BY names by alias or ordinal is its key, read as
			// it stands (NULL in the sets without it), never recomputed from
			// other keys: in GROUPING SETS ((b), (ub)) with UPPER(b) AS ub,
			// ub is NULL in the set (b) and b in the set (ub).
			// (GROUPING's argument is read as a key later, naming none.)
			expanding := true
			agg.grouping = b.groupingSets(s.GroupBy, func(g sqlparse.Expr) expr.Expr {
				if i := b.groupByItem(g, items); i >= 0 && expanding {
					items[i].asKey = true
				}
				return b.groupKey(g, items, sc)
			})
			expanding = false
			keys = append(append(keys, agg.grouping.keys...), groupingSetKey())
		} else if s.GroupAll {
			keys = b.groupAllKeys(items, sc) // bind_group_all.go
		} else {
			for _, g := range s.GroupBy {
				keys = append(keys, b.groupKey(g, items, sc))
			}
		}
		if agg.grouping == nil {
			agg.plainKeys = keys
		}
		for i := range items {
			if items[i].ast != nil {
				e := b.expr(items[i].ast, &exprCtx{sc: sc, aggs: agg, wins: wins})
				if k := keyIndex(e, keys); items[i].asKey && k >= 0 {
					items[i].expr = &expr.ColRef{Idx: k, T: keys[k].Type(), Name: fmt.Sprintf("$key%d", k)}
					continue
				}
				items[i].expr = b.toAggOutput(e, keys, items[i].pos)
			} else {
				items[i].expr = b.toAggOutput(items[i].expr, keys, items[i].pos)
			}
		}
	} else {
		for i := range items {
			if items[i].ast != nil {
				items[i].expr = b.expr(items[i].ast, &exprCtx{sc: sc, wins: wins})
			}
		}
	}
	var having expr.Expr
	if s.Having != nil {
		having = b.toAggOutput(b.boolExpr(s.Having, &exprCtx{sc: sc, aggs: agg, laterAliases: items}, "HAVING"), keys, s.Having.Pos())
	}
	var qualify expr.Expr
	if s.Qualify != nil {
		qualify = b.boolExpr(s.Qualify, &exprCtx{sc: sc, aggs: agg, wins: wins, aliases: items}, "QUALIFY")
		if grouped {
			qualify = b.toAggOutput(qualify, keys, s.Qualify.Pos())
		}
	}
	// ORDER BY: an ordinal or a select alias reads the output; anything else
	// is computed as a hidden column.
	var sortKeys []SortKey
	var hidden []expr.Expr
	var hiddenAt []int // each hidden column's ORDER BY item, for errors
	outCols := len(items)
	for _, o := range orderBy {
		idx := -1
		if l, ok := o.Expr.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitInt {
			var n int
			fmt.Sscan(l.Value, &n)
			if n < 1 || n > len(items) {
				b.fail(l.At, "ORDER BY ordinal %d is out of range (1 to %d)", n, len(items))
			}
			idx = n - 1
		} else if id, ok := o.Expr.(*sqlparse.Ident); ok && len(id.Parts) == 1 {
			idx = aliasIndex(items, id.Parts[0])
		}
		if idx < 0 {
			e := b.expr(o.Expr, &exprCtx{sc: sc, aggs: agg, wins: wins, aliases: items})
			if grouped {
				e = b.toAggOutput(e, keys, o.At)
			}
			idx = outCols + len(hidden)
			hidden = append(hidden, e)
			hiddenAt = append(hiddenAt, o.At)
		}
		var t types.Type
		name := fmt.Sprintf("$order%d", idx-outCols)
		if idx < outCols {
			t, name = items[idx].expr.Type(), items[idx].name
		} else {
			t = hidden[idx-outCols].Type()
		}
		sortKeys = append(sortKeys, b.sortKey(o, &expr.ColRef{Idx: idx, T: t, Name: name}))
	}

	// The FROM row is complete: fix its layout and build the plan.
	plan := b.layout(tree)
	if len(where) > 0 {
		plan = &Filter{In: plan, Cond: resolveSyms(expr.JoinAnd(where))}
	}
	if grouped {
		a := &Aggregate{In: plan}
		if agg.grouping != nil {
			a.Sets = agg.grouping.sets
		}
		for i, k := range keys {
			a.Keys = append(a.Keys, resolveSyms(k))
			a.Cols = append(a.Cols, Column{Name: fmt.Sprintf("$key%d", i), T: k.Type()})
		}
		for _, c := range agg.calls {
			for j := range c.Args {
				c.Args[j] = resolveSyms(c.Args[j])
			}
			a.Aggs = append(a.Aggs, c)
			a.Cols = append(a.Cols, Column{Name: "$" + c.Fn, T: c.T})
		}
		plan = a
		if having != nil {
			plan = &Filter{In: plan, Cond: having}
		}
	}
	// Analytic calls read the row as it stands now; QUALIFY filters on them.
	place := func(e expr.Expr, pos int) expr.Expr {
		if grouped {
			return b.toAggOutput(e, keys, pos)
		}
		return resolveSyms(e)
	}
	if s.Qualify != nil && len(wins.calls) == 0 {
		b.fail(s.Qualify.Pos(), "QUALIFY needs an analytic function (… OVER …) in the select list or in QUALIFY")
	}
	plan, winBase := b.windowNode(plan, wins, place)
	final := func(e expr.Expr) expr.Expr {
		if !grouped {
			e = resolveSyms(e)
		}
		return placeWins(e, winBase)
	}
	if qualify != nil {
		plan = &Filter{In: plan, Cond: final(qualify)}
	}
	proj := &Project{In: plan}
	for _, it := range items {
		e := final(it.expr)
		proj.Exprs = append(proj.Exprs, e)
		proj.Cols = append(proj.Cols, Column{Name: it.name, T: e.Type()})
	}
	// Hidden ORDER BY columns are computed beside the select list, or, after
	// SELECT DISTINCT, from the distinct rows (afterDistinct).
	orderCols := proj
	if s.Distinct {
		orderCols = &Project{}
		for i, c := range proj.Cols {
			orderCols.Exprs = append(orderCols.Exprs, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
			orderCols.Cols = append(orderCols.Cols, c)
		}
	}
	// Checked without schemas, a * of a source lists only its fixed
	// fields: what ORDER BY names beside them is decided when it runs.
	unknownStar := b.symbolic && selectsStar(s) && sc.schemaless()
	for i, h := range hidden {
		h = final(h)
		if s.Distinct {
			h = b.afterDistinct(h, proj.Exprs[:outCols], keyStrings(proj.Exprs[:outCols]), hiddenAt[i], unknownStar)
		}
		orderCols.Exprs = append(orderCols.Exprs, h)
		orderCols.Cols = append(orderCols.Cols, Column{Name: fmt.Sprintf("$order%d", i), T: h.Type()})
	}
	plan = proj
	if s.Distinct {
		d := &Aggregate{In: plan}
		for i, c := range proj.Cols {
			b.orderable(s.At, "SELECT DISTINCT", c.T)
			d.Keys = append(d.Keys, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
			d.Cols = append(d.Cols, c)
		}
		plan = d
		if len(hidden) > 0 {
			orderCols.In = d
			plan = orderCols
		}
	}
	if len(sortKeys) > 0 {
		plan = &Sort{In: plan, Keys: sortKeys, Limit: -1}
	}
	if len(hidden) > 0 {
		trim := &Project{In: plan}
		for i := 0; i < outCols; i++ {
			trim.Exprs = append(trim.Exprs, &expr.ColRef{Idx: i, T: proj.Cols[i].T, Name: proj.Cols[i].Name})
			trim.Cols = append(trim.Cols, proj.Cols[i])
		}
		plan = trim
	}
	return b.limit(plan, limit, offset)
}

// afterDistinct rewrites e, an ORDER BY expression over the row the select
// list is computed from, to read the SELECT DISTINCT output instead: each
// largest subexpression that is a selected expression becomes that column,
// and anything else the row holds is refused, as ZetaSQL refuses a column
// that is "not visible after SELECT DISTINCT" (aggregates and analytic
// functions included, unless selected). ks are the selected expressions'
// strings.
func (b *binder) afterDistinct(e expr.Expr, selected []expr.Expr, ks []string, pos int, unknownStar bool) expr.Expr {
	// A constant is left as it is: its text does not say its type (2.0
	// and 2 both print 2), and it needs no column.
	if _, ok := e.(*expr.Const); ok {
		return e
	}
	es := e.String()
	for i, k := range ks {
		if k == es && selected[i].Type().Equal(e.Type()) {
			return &expr.ColRef{Idx: i, T: selected[i].Type(), Name: "$distinct" + strconv.Itoa(i)}
		}
	}
	if _, ok := e.(*expr.ColRef); ok && !unknownStar {
		b.fail(pos, "ORDER BY after SELECT DISTINCT can only use the selected columns and expressions over them")
	}
	ch := e.Children()
	if len(ch) == 0 {
		return e
	}
	out := make([]expr.Expr, len(ch))
	for i, c := range ch {
		out[i] = b.afterDistinct(c, selected, ks, pos, unknownStar)
	}
	return e.WithChildren(out)
}

func aliasIndex(items []selItem, name string) int {
	for i, it := range items {
		if strings.EqualFold(it.name, name) {
			return i
		}
	}
	return -1
}

// expandItems expands stars and names every select item as BigQuery does:
// the alias, else the last part of a path, else $colN.
func (b *binder) expandItems(s *sqlparse.Select, sc *scope) []selItem {
	var items []selItem
	for _, it := range s.Items {
		if !it.Star {
			name := it.Alias
			if name == "" {
				name = impliedAlias(it.Expr)
			}
			if name == "" {
				name = fmt.Sprintf("$col%d", len(items)+1)
			}
			items = append(items, selItem{ast: it.Expr, name: name, pos: it.At})
			continue
		}
		items = append(items, b.starItems(it, sc, len(items))...)
	}
	return items
}

// starOf expands expr.* of an expression other than a name path: its
// fields, each read from its own copy of the expression (so a volatile one,
// RAND(), is refused: a row's fields would come from different draws).
//
// An expression that calls an aggregate or analytic function (BigQuery's
// latest-row idiom, ARRAY_AGG(t ORDER BY ts DESC LIMIT 1)[OFFSET(0)].*) is
// bound here only for its type: each field becomes an item written as the
// field of the expression, bound with the select list, where the grouping
// sees it and equal calls are computed once.
func (b *binder) starOf(it *sqlparse.SelectItem, sc *scope) []selItem {
	calls := hasAggregate(it.Of) || hasAnalytic(it.Of)
	ctx := &exprCtx{sc: sc}
	if calls {
		ctx.aggs, ctx.wins = &aggCollector{}, &winCollector{}
	}
	v := b.expr(it.Of, ctx)
	t := v.Type()
	if t.Kind != types.KindStruct {
		b.fail(it.At, "expression.* needs a STRUCT, not %s", t)
	}
	if expr.IsVolatile(v) {
		b.fail(it.At, "expression.* of a volatile expression (RAND) is not supported: select it in a subquery and expand that column")
	}
	if !calls {
		return structFields(v)
	}
	var out []selItem
	seen := map[string]bool{}
	for i, f := range t.Fields {
		if f.Name == "" || seen[strings.ToLower(f.Name)] {
			b.fail(it.At, "expression.* of an aggregate or analytic call needs distinct named fields; field %d of %s is not", i+1, t)
		}
		seen[strings.ToLower(f.Name)] = true
		out = append(out, selItem{ast: &sqlparse.FieldAccess{At: it.At, X: it.Of, Name: f.Name}, name: f.Name, pos: it.At})
	}
	return out
}

// impliedAlias is the name BigQuery gives an unaliased expression: the last
// part of a path, else "" (anonymous).
func impliedAlias(e sqlparse.Expr) string {
	switch e := e.(type) {
	case *sqlparse.Ident:
		return e.Parts[len(e.Parts)-1]
	case *sqlparse.FieldAccess:
		return e.Name
	}
	return ""
}

// starItems expands one `*` or `path.*` of a select list whose earlier items
// made n columns, with its EXCEPT and REPLACE lists.
func (b *binder) starItems(it *sqlparse.SelectItem, sc *scope, n int) []selItem {
	vars := sc.vars
	var all []selItem
	if it.Of != nil {
		all, vars = b.starOf(it, sc), nil // SELECT a[OFFSET(0)].*
	} else if len(it.Prefix) > 0 {
		rv := sc.find(it.Prefix[0])
		if rv == nil || len(it.Prefix) > 1 {
			// A STRUCT-valued expression's fields: SELECT kv.*, t.kv.*.
			v := b.expr(&sqlparse.Ident{At: it.At, Parts: it.Prefix}, &exprCtx{sc: sc})
			if v.Type().Kind != types.KindStruct {
				b.fail(it.At, "%s.* must name a FROM item or a STRUCT, not %s", strings.Join(it.Prefix, "."), v.Type())
			}
			all, vars = structFields(v), nil
		} else {
			vars = []*rangeVar{rv}
		}
	}
	schemaless := false // a source's columns are the fields its events have had so far
	for i, rv := range vars {
		cols := b.rangeVarColumns(rv)
		if len(it.Prefix) == 0 {
			cols = sc.using.starColumns(i, rv, cols) // bind_using.go
		}
		all = append(all, cols...)
		schemaless = schemaless || rv.starUnknown()
	}
	// find lists the columns called name (EXCEPT drops them all).
	find := func(name, list string) []int {
		var at []int
		for i, c := range all {
			if strings.EqualFold(c.name, name) {
				at = append(at, i)
			}
		}
		if len(at) == 0 && !schemaless {
			b.fail(it.At, "column %s in SELECT * %s list does not exist", name, list)
		}
		return at
	}
	except := map[int]bool{}
	for _, name := range it.Except {
		for _, i := range find(name, "EXCEPT") {
			except[i] = true
		}
	}
	replaced := map[int]bool{}
	for _, r := range it.Replace {
		at := find(r.Name, "REPLACE")
		if len(at) > 1 {
			b.fail(r.At, "column %s in SELECT * REPLACE is ambiguous: * has %d columns of that name", r.Name, len(at))
		}
		i := -1
		if len(at) == 1 {
			i = at[0]
		}
		if except[i] || replaced[i] {
			b.fail(r.At, "column %s is named twice in SELECT * EXCEPT/REPLACE", r.Name)
		}
		if i >= 0 {
			replaced[i] = true
			all[i] = selItem{ast: r.Expr, name: all[i].name, pos: r.At}
		}
	}
	var out []selItem
	for i, c := range all {
		if except[i] {
			continue
		}
		if c.pos == 0 {
			c.pos = it.At
		}
		if c.name == "" || strings.HasPrefix(c.name, "$col") {
			c.name = fmt.Sprintf("$col%d", n+len(out)+1) // anonymous where it lands
		}
		out = append(out, c)
	}
	if len(out) == 0 && len(it.Except) > 0 && !(schemaless && b.symbolic) {
		b.fail(it.At, "SELECT * EXCEPT leaves no column")
	}
	return out
}

// structFields lists the columns a STRUCT value's * expands to: its fields,
// by name (an anonymous one is named where it lands).
func structFields(v expr.Expr) []selItem {
	var out []selItem
	for i, f := range v.Type().Fields {
		out = append(out, selItem{expr: &expr.Call{Fn: "field", Args: []expr.Expr{v}, Idx: i, T: f.Type}, name: f.Name})
	}
	return out
}

// rangeVarColumns lists the columns * expands to for one range variable.
func (b *binder) rangeVarColumns(rv *rangeVar) []selItem {
	var out []selItem
	if rv.value { // a value table: its STRUCT's fields, or the value, anonymous
		v := valueOf(rv)
		if v.Type().Kind != types.KindStruct {
			return []selItem{{expr: v}}
		}
		return structFields(v)
	}
	switch rv.kind {
	case rvView:
		for _, c := range rv.view {
			out = append(out, selItem{expr: viewField(rv, c), name: c})
		}
	case rvScan, rvPath:
		prefix := ""
		srv := rv
		if rv.kind == rvPath {
			prefix, srv = rv.prefix, rv.scanRV
		}
		for _, name := range rv.table.Children(prefix) {
			path := name
			if prefix != "" {
				path = prefix + "." + name
			}
			t, _, _ := fieldOf(srv, path)
			out = append(out, selItem{expr: scanField(srv, path, t, false), name: name})
		}
	case rvPlan:
		for i, c := range rv.cols {
			out = append(out, selItem{expr: &sym{rv: rv, idx: i, T: c.T, nm: c.Name}, name: c.Name})
		}
	case rvElem:
		// UNNEST makes a value table: * of a STRUCT element is its fields
		// (aliased or not), of another element the element, anonymous
		// when the UNNEST has no alias.
		c := rv.cols[0]
		elem := &sym{rv: rv, idx: 0, T: c.T, nm: c.Name}
		if c.T.Kind != types.KindStruct {
			out = append(out, selItem{expr: elem, name: c.Name})
			break
		}
		for i, f := range c.T.Fields {
			out = append(out, selItem{expr: &expr.Call{Fn: "field", Args: []expr.Expr{elem}, Idx: i, T: f.Type}, name: f.Name})
		}
	case rvConst:
		for i, c := range rv.cols {
			out = append(out, selItem{expr: constColumn(rv.consts[i]), name: c.Name})
		}
	}
	return out
}

// groupKey binds one GROUP BY item: an ordinal, a select alias, or an
// expression over the FROM row.
func (b *binder) groupKey(g sqlparse.Expr, items []selItem, sc *scope) expr.Expr {
	k := b.groupKeyExpr(g, items, sc)
	b.orderable(g.Pos(), "GROUP BY", k.Type())
	return k
}

func (b *binder) groupKeyExpr(g sqlparse.Expr, items []selItem, sc *scope) expr.Expr {
	if i := b.groupByItem(g, items); i >= 0 {
		it := items[i]
		if it.ast == nil {
			return it.expr
		}
		if hasAggregate(it.ast) {
			b.fail(g.Pos(), "GROUP BY cannot refer to an aggregate (%s)", it.name)
		}
		return b.expr(it.ast, &exprCtx{sc: sc})
	}
	if hasAggregate(g) {
		b.fail(g.Pos(), "GROUP BY cannot contain an aggregate")
	}
	return b.expr(g, &exprCtx{sc: sc})
}

// groupByItem returns the select item a GROUP BY ordinal or alias names
// (an alias of an aggregate names none: GROUP BY reads FROM then), else -1.
func (b *binder) groupByItem(g sqlparse.Expr, items []selItem) int {
	if l, ok := g.(*sqlparse.Literal); ok && l.Kind == sqlparse.LitInt {
		var n int
		fmt.Sscan(l.Value, &n)
		if n < 1 || n > len(items) {
			b.fail(l.At, "GROUP BY ordinal %d is out of range (1 to %d)", n, len(items))
		}
		return n - 1
	}
	if id, ok := g.(*sqlparse.Ident); ok && len(id.Parts) == 1 {
		if i := aliasIndex(items, id.Parts[0]); i >= 0 && (items[i].ast == nil || !hasAggregate(items[i].ast)) {
			return i
		}
	}
	return -1
}

// aggCollector gathers the aggregates of a grouped SELECT, sharing identical ones.
type aggCollector struct {
	calls    []expr.AggCall
	keys     []string
	grouping *grouping // with ROLLUP, CUBE or GROUPING SETS (bind_grouping.go)
	// plainKeys are a plain GROUP BY's keys, which GROUPING's argument must
	// be one of (GROUPING is then 0).
	plainKeys []expr.Expr
}

// aggRef stands for an aggregate's output until toAggOutput places it.
type aggRef struct {
	i int
	T types.Type
}

func (a *aggRef) Type() types.Type                   { return a.T }
func (a *aggRef) Children() []expr.Expr              { return nil }
func (a *aggRef) WithChildren([]expr.Expr) expr.Expr { return a }
func (a *aggRef) String() string                     { return "$agg" + strconv.Itoa(a.i) }

// add returns the aggregate for call, written at pos. Calls written alike
// are computed once, unless an argument is volatile (SUM(RAND()) twice is
// two sums); one written call stays one aggregate wherever the binder
// copies it (a PIVOT aggregate for two aliases of one value).
func (c *aggCollector) add(call expr.AggCall, pos int) *aggRef {
	key := call.Fn + fmt.Sprint(call.Star, call.Distinct, call.Order, call.Limit, call.HasLimit, call.IgnoreNulls, call.RespectNulls, call.Having, call.Filtered)
	for _, a := range call.Args {
		key += "|" + a.String()
		if expr.IsVolatile(a) {
			key += "@" + strconv.Itoa(pos)
		}
	}
	for i, k := range c.keys {
		if k == key {
			return &aggRef{i: i, T: call.T}
		}
	}
	c.calls = append(c.calls, call)
	c.keys = append(c.keys, key)
	return &aggRef{i: len(c.calls) - 1, T: call.T}
}

// toAggOutput rewrites an expression bound over the FROM row into one over
// the Aggregate's output: group keys and aggregates become column reads; any
// other column read is an error.
func (b *binder) toAggOutput(e expr.Expr, keys []expr.Expr, pos int) expr.Expr {
	return b.aggOutput(e, keys, keyStrings(keys), pos)
}

// keyStrings are the keys' strings, which aggOutput compares each
// subexpression with: made once per expression rewritten, not per
// subexpression and key.
func keyStrings(keys []expr.Expr) []string {
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = k.String()
	}
	return ks
}

func (b *binder) aggOutput(e expr.Expr, keys []expr.Expr, ks []string, pos int) expr.Expr {
	if len(keys) > 0 {
		es := e.String()
		for i, k := range keys {
			if ks[i] == es && k.Type().Equal(e.Type()) && !computedFromColumnKeys(e, keys) {
				return &expr.ColRef{Idx: i, T: k.Type(), Name: "$key" + strconv.Itoa(i)}
			}
		}
	}
	switch x := e.(type) {
	case *aggRef:
		return &expr.ColRef{Idx: len(keys) + x.i, T: x.T, Name: x.String()}
	case *sym:
		b.fail(pos, "%s is neither grouped nor aggregated", x.nm)
	case *expr.Call:
		c := *x
		c.Args = make([]expr.Expr, len(x.Args))
		for i, a := range x.Args {
			c.Args[i] = b.aggOutput(a, keys, ks, pos)
		}
		return &c
	case *expr.With:
		ch := x.Children()
		for i, c := range ch {
			ch[i] = b.aggOutput(c, keys, ks, pos)
		}
		return x.WithChildren(ch)
	case *expr.Case:
		c := &expr.Case{T: x.T, Else: b.aggOutput(x.Else, keys, ks, pos)}
		for _, w := range x.Whens {
			c.Whens = append(c.Whens, expr.When{Cond: b.aggOutput(w.Cond, keys, ks, pos), Then: b.aggOutput(w.Then, keys, ks, pos)})
		}
		return c
	case *Subquery:
		s := *x
		if x.X != nil {
			s.X = b.aggOutput(x.X, keys, ks, pos)
		}
		if x.Key != nil {
			s.Key = b.aggOutput(x.Key, keys, ks, pos)
		}
		if x.Outer != nil {
			s.Outer = make([]expr.Expr, len(x.Outer))
			for i, o := range x.Outer {
				s.Outer[i] = b.aggOutput(o, keys, ks, pos)
			}
		}
		return &s
	}
	return e
}

// keyIndex returns the index of the key written as e, else -1.
func keyIndex(e expr.Expr, keys []expr.Expr) int {
	if len(keys) == 0 {
		return -1
	}
	es := e.String()
	for i, k := range keys {
		if k.String() == es {
			return i
		}
	}
	return -1
}

// computedFromColumnKeys reports whether e, a key expression such as x+1,
// is to be computed from grouped columns rather than read as its own key:
// under ROLLUP, CUBE or GROUPING SETS, where keys are NULL in some sets, and
// when every column e reads is itself a key. ZetaSQL resolves a grouped
// column's name to its key first, so with GROUP BY ROLLUP(x, x+1) the
// selected x+1 is NULL exactly where x is, not where the key x+1 is.
func computedFromColumnKeys(e expr.Expr, keys []expr.Expr) bool {
	switch e.(type) {
	case *expr.Call, *expr.With:
	default:
		return false
	}
	if len(keys) == 0 {
		return false
	}
	if c, ok := keys[len(keys)-1].(*expr.Call); !ok || c.Fn != "$grouping_set" {
		return false
	}
	cols, ok := 0, true
	var walk func(x expr.Expr)
	walk = func(x expr.Expr) {
		switch x := x.(type) {
		case *sym: // a column of the FROM row, before the aggregate places it
			cols++
			for _, k := range keys {
				if _, col := k.(*sym); col && k.String() == x.String() {
					return
				}
			}
			ok = false
		case *expr.Const, *expr.WithVar: // a variable's value is walked in its With
		case *expr.Call:
			if x.Fn == "$grouping_set" {
				ok = false
			}
			for _, a := range x.Args {
				walk(a)
			}
		case *expr.With:
			for _, c := range x.Children() {
				walk(c)
			}
		default:
			ok = false
		}
	}
	walk(e)
	return ok && cols > 0
}

// hasAggregate reports whether an expression calls an aggregate function
// (not counting aggregates inside subqueries, nor analytic calls of
// aggregates: SUM(x) OVER () groups nothing).
func hasAggregate(e sqlparse.Expr) bool {
	found := false
	walkASTIf(e, func(n sqlparse.Node) bool {
		if c, ok := n.(*sqlparse.Call); ok && c.Over == nil && expr.IsAggregate(funcName(c.Name)) {
			found = true
		}
		return !isSubqueryBody(n)
	})
	return found
}

// funcName is the lower-case function name without a dataset qualifier:
// `a-b.c.generate_timestamp_trunc_array` calls the built-in of that name.
// A built-in whose name has a dot (HLL_COUNT.INIT) keeps it, SAFE. dropped.
func funcName(name string) string {
	lower := strings.ToLower(name)
	if full := strings.TrimPrefix(lower, "safe."); strings.Contains(full, ".") && (expr.IsAggregate(full) || expr.LookupFunc(full) != nil) {
		return full
	}
	return lower[strings.LastIndexByte(lower, '.')+1:]
}

package clickhouse

import (
	"fmt"
	"strconv"
	"strings"

	"logq/expr"
	"logq/planner"
	"logq/types"
)

// Translation: a plan subtree becomes one ClickHouse SELECT when every node
// and expression in it can be written so that ClickHouse 18.16 computes
// exactly what exec would (the rules are in translate_expr.go and
// translate_agg.go). It is built bottom up as a rel: a node folds into its
// input's SELECT where SQL allows (a filter into WHERE, a projection into
// the select list, a sort into ORDER BY), else the input becomes a
// subquery. What cannot be written is left to exec, which offers the
// node's inputs again: the largest translatable subtrees run in ClickHouse.

// rel is a SELECT being built: its clauses, and its output columns as
// expressions over its FROM.
type rel struct {
	from  string
	where []string
	group []string // GROUP BY keys
	agg   bool     // aggregated (with or without keys)
	order []string
	limit string
	cols  []rcol
	depth int // subqueries below: this level's aliases are _<depth>_<i>
	// local is the table that holds a scan's rows on each server (its
	// FROM's, or under a Distributed one), while the rel reads a scan.
	local string
}

// rcol is one output column of a rel.
type rcol struct {
	t types.Type
	// sql is the column as one ClickHouse expression in logq's encoding of
	// t (sqlType), which other expressions may use; "" when there is none.
	sql string
	// raw and read, when sql is "", are what the column is read from and
	// how (an object, an array, a widened field): it can only be passed on.
	raw  []string
	read func(fields [][]byte) (types.Value, error)
	// quant is an APPROX_QUANTILES aggregate, read only at its ranks.
	quant *quantCol
	// nonNeg marks a column whose values are never negative: a scan's
	// timestamp when its range starts at or after 1970.
	nonNeg bool
}

// quantCol is APPROX_QUANTILES(x, n) kept as the group's sorted values, or
// as one expression per rank read.
type quantCol struct {
	sorted string // an Array of the non-NULL values, ascending (NaN first)
	at     map[int]string
	n      int
	ranks  []int
	elem   types.Type
}

// translate writes the subtree at n as one ClickHouse query, when every
// node and expression of it can be written exactly; else false, and exec
// computes n from its inputs (each offered again).
func (v *view) translate(n planner.Node) (*remoteQuery, bool) {
	r, ok := v.rel(n)
	if !ok {
		return nil, false
	}
	return r.query()
}

func (v *view) rel(n planner.Node) (*rel, bool) {
	switch n := n.(type) {
	case *planner.Scan:
		r, goEq, ok := v.scanRel(n, true)
		return r, ok && len(goEq) == 0
	case *planner.Filter:
		r, ok := v.rel(n.In)
		if !ok || r.order != nil || r.limit != "" {
			return nil, false // rows in order: exec filters them as they come
		}
		if r.agg {
			r = r.wrap()
		}
		cond, ok := chExpr(r.cols, n.Cond, true)
		if !ok {
			return nil, false
		}
		r.where = append(r.where, cond)
		return r, true
	case *planner.Project:
		r, ok := v.rel(n.In)
		if !ok {
			return nil, false
		}
		cols := make([]rcol, len(n.Exprs))
		for i, e := range n.Exprs {
			if cols[i], ok = projectCol(r.cols, e); !ok {
				return nil, false
			}
		}
		r.cols = cols
		return r, true
	case *planner.Aggregate:
		r, ok := v.rel(n.In)
		if !ok {
			return nil, false
		}
		if r.agg || r.order != nil || r.limit != "" {
			r = r.wrap()
		}
		return r.aggregate(n)
	case *planner.Sort:
		r, ok := v.rel(n.In)
		if !ok || r.order != nil || r.limit != "" {
			return nil, false
		}
		for _, k := range n.Keys {
			terms, ok := orderTerms(r.cols, k)
			if !ok {
				return nil, false
			}
			r.order = append(r.order, terms...)
		}
		if n.Limit >= 0 {
			if r.lateRows(n, n.Limit+n.Offset) {
				v.e.narrowed.Add(1)
			}
			r.limit = limitClause(n.Limit, n.Offset)
		}
		return r, true
	case *planner.Limit:
		r, ok := v.rel(n.In)
		if !ok || r.limit != "" {
			return nil, false
		}
		r.limit = limitClause(n.N, n.Offset)
		return r, true
	}
	return nil, false
}

func limitClause(n, offset int64) string {
	return "LIMIT " + strconv.FormatInt(n, 10) + " OFFSET " + strconv.FormatInt(offset, 10)
}

// projectCol is a Project's column: a column of the input passed on
// (whatever it is), an element of a quantiles column, or an expression.
func projectCol(in []rcol, e expr.Expr) (rcol, bool) {
	if c, ok := e.(*expr.ColRef); ok {
		return in[c.Idx], true
	}
	if s, ok := quantileElement(in, e); ok {
		return rcol{t: e.Type(), sql: s}, true
	}
	s, ok := chExpr(in, e, false)
	return rcol{t: e.Type(), sql: s}, ok
}

// orderTerms writes one sort key as ORDER BY terms with BigQuery's order
// made explicit: NULLs first or last as asked, NaN below every number,
// whatever ClickHouse's defaults.
func orderTerms(cols []rcol, k planner.SortKey) ([]string, bool) {
	switch k.Expr.Type().Kind {
	case types.KindBool, types.KindInt64, types.KindFloat64, types.KindString, types.KindTimestamp, types.KindDatetime:
	default:
		return nil, false
	}
	x, ok := chExpr(cols, k.Expr, false)
	if !ok {
		return nil, false
	}
	dir := map[bool]string{false: " ASC", true: " DESC"}
	terms := []string{"isNull(" + x + ")" + dir[k.NullsFirst]}
	if k.Expr.Type().Kind == types.KindFloat64 {
		terms = append(terms, "ifNull(isNaN("+x+"), 0)"+dir[!k.Desc])
	}
	return append(terms, x+dir[k.Desc]), true
}

// lateRows narrows a top-k of a scan by time to the rows it can keep, before
// their columns are read: ClickHouse reads every column a query selects
// for every row that passes WHERE before it sorts, which for logs.all's
// wide rows over a day is most of the query. So the rows' times are
// picked first, by the same WHERE and ORDER BY over the time column alone,
// and the query reads the rest only at those times (the sort key, so only
// their granules). On a cluster the inner query names the local table: run
// on each shard, it picks that shard's top k, which holds every row of the
// global top k the shard has. Rows sharing a time all pass; the outer
// ORDER BY and LIMIT choose among them as before.
func (r *rel) lateRows(n *planner.Sort, k int64) bool {
	if r.local == "" || r.agg || k < 0 || k > maxLateRows || len(n.Keys) == 0 { // k < 0: the sum wrapped
		return false
	}
	c, ok := n.Keys[0].Expr.(*expr.ColRef)
	if !ok || r.cols[c.Idx].sql != ident("timestamp") {
		return false
	}
	inner := "SELECT `timestamp` FROM " + r.local
	if len(r.where) > 0 {
		inner += " WHERE " + strings.Join(r.where, " AND ")
	}
	inner += " ORDER BY " + strings.Join(r.order, ", ") + " LIMIT " + strconv.FormatInt(k, 10)
	r.where = append(r.where, "`timestamp` IN ("+inner+")")
	return true
}

// maxLateRows bounds the top-k lateRows narrows: past it, the set of times
// costs more than the columns it spares.
const maxLateRows = 10_000

// wrap makes r the subquery of a new SELECT that passes its columns on.
func (r *rel) wrap() *rel {
	sel, out := r.selectList(true)
	return &rel{from: "(" + r.sql(sel) + ")", cols: out, depth: r.depth + 1}
}

// selectList lists what r selects and the columns a reader of it sees:
// aliased (_<depth>_<i>) for a query above, else positional.
func (r *rel) selectList(alias bool) (sel []string, out []rcol) {
	add := func(s string) string {
		if !alias {
			sel = append(sel, s)
			return ""
		}
		a := fmt.Sprintf("_%d_%d", r.depth, len(sel))
		sel = append(sel, s+" AS "+a)
		return a
	}
	for _, c := range r.cols {
		o := rcol{t: c.t, read: c.read, nonNeg: c.nonNeg}
		switch {
		case c.quant != nil:
			q := *c.quant
			if q.at != nil {
				q.at = map[int]string{}
				for _, r := range q.ranks {
					q.at[r] = add(c.quant.at[r])
				}
			} else {
				q.sorted = add(c.quant.sorted)
			}
			o.quant = &q
		case c.sql != "":
			o.sql = add(c.sql)
		default:
			for _, p := range c.raw {
				o.raw = append(o.raw, add(p))
			}
		}
		out = append(out, o)
	}
	if len(sel) == 0 {
		sel = append(sel, "1")
	}
	return sel, out
}

// sql writes r with select list sel.
func (r *rel) sql(sel []string) string {
	var b strings.Builder
	b.WriteString("SELECT " + strings.Join(sel, ", ") + " FROM " + r.from)
	if len(r.where) > 0 {
		b.WriteString(" WHERE " + strings.Join(r.where, " AND "))
	}
	if len(r.group) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(r.group, ", "))
	}
	if len(r.order) > 0 {
		b.WriteString(" ORDER BY " + strings.Join(r.order, ", "))
	}
	if r.limit != "" {
		b.WriteString(" " + r.limit)
	}
	return b.String()
}

// query is r as the query exec reads: its columns decoded from each row's
// fields. A quantiles column read whole is not written (exec computes it).
func (r *rel) query() (*remoteQuery, bool) {
	q := &remoteQuery{}
	at := 0
	for _, c := range r.cols {
		switch {
		case c.quant != nil:
			return nil, false
		case c.sql != "":
			i, t := at, c.t
			q.cols = append(q.cols, outCol{t: t, read: func(fs [][]byte) (types.Value, error) { return decodeSQL(fs[i], t) }})
			at++
		default:
			lo, hi, read := at, at+len(c.raw), c.read
			q.cols = append(q.cols, outCol{t: c.t, read: func(fs [][]byte) (types.Value, error) { return read(fs[lo:hi]) }})
			at = hi
		}
	}
	sel, _ := r.selectList(false)
	q.sql, q.width = r.sql(sel), max(at, 1)
	return q, true
}

// decodeSQL reads a field written by a column's sql: the encoding sqlType
// gives each kind.
func decodeSQL(b []byte, t types.Type) (types.Value, error) {
	if b == nil {
		return types.NullOf(t), nil
	}
	switch t.Kind {
	case types.KindBool:
		return types.BoolValue(string(b) != "0"), nil
	case types.KindInt64, types.KindTimestamp, types.KindDatetime:
		i, err := parseInt(b)
		return types.Value{T: t, I: i}, err
	case types.KindFloat64:
		f, err := parseFloat(b)
		return types.FloatValue(f), err
	case types.KindString:
		return types.StringValue(string(b)), nil
	case types.KindNull:
		return types.NullOf(t), nil
	}
	return types.Value{}, fmt.Errorf("no ClickHouse encoding of %s", t)
}

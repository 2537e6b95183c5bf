package main

import (
	"strconv"
	"strings"

	"logq/endpoint"
	"logq/sqlparse"
)

// rowOrder says how a test compares rows: in order when the query orders
// its result, as a multiset otherwise.
//
// The order is read from the parsed query, not from its text: the result
// has an order exactly when the statement's own ORDER BY (the top level,
// after any WITH and set operation) has one; an ORDER BY inside a CTE or
// a subquery orders nothing that a reader of the result can rely on. The
// planner turns that top-level ORDER BY into the plan's top Sort or TopK
// (under at most a Project), so the two views agree; the parse needs no
// store and no parameters, and stays the same while plans change.
type rowOrder struct {
	ordered bool
	by      string     // the ORDER BY as printed, for the report
	keys    []orderKey // the sort keys; nil when one is not an output column
}

// order is how the rows of a test are compared: by the caller's SQL when
// the test sends one, else by the endpoint's.
func (r *testRunner) order(e *endpoint.Endpoint, tc *testCase) rowOrder {
	if tc.sql != nil {
		q, err := sqlparse.ParseSelect(tc.sql.value)
		if err != nil {
			return rowOrder{} // the API refuses it; the test wants that error
		}
		return orderOf(q)
	}
	if o, ok := r.orders[e]; ok {
		return o
	}
	q, err := sqlparse.Parse(e.SQL)
	var o rowOrder
	if err == nil {
		o = orderOf(q)
	}
	r.orders[e] = o
	return o
}

// orderKey is an ORDER BY key that names an output column: by its name
// (a select alias or a column's own name) or by its 1-based ordinal.
type orderKey struct {
	name    string
	ordinal int
}

// orderOf reads the order of a parsed query. A parenthesised query as the
// whole body carries its own ORDER BY out.
func orderOf(q *sqlparse.Query) rowOrder {
	for q != nil && len(q.OrderBy) == 0 {
		inner, ok := q.Body.(*sqlparse.Query)
		if !ok {
			return rowOrder{}
		}
		q = inner
	}
	if q == nil {
		return rowOrder{}
	}
	o := rowOrder{ordered: true}
	var parts []string
	keys := make([]orderKey, 0, len(q.OrderBy))
	for _, it := range q.OrderBy {
		s := sqlparse.PrintExpr(it.Expr)
		if it.Desc {
			s += " DESC"
		}
		parts = append(parts, s)
		switch e := it.Expr.(type) {
		case *sqlparse.Ident:
			// Only a bare name can be an output column: BigQuery resolves it
			// to a select alias first (planner/doc.go). A qualified t.x names
			// an input column, which may not be what the output calls x.
			if len(e.Parts) == 1 && keys != nil {
				keys = append(keys, orderKey{name: e.Parts[0]})
				continue
			}
		case *sqlparse.Literal:
			if n, err := strconv.Atoi(e.Value); e.Kind == sqlparse.LitInt && err == nil && keys != nil {
				keys = append(keys, orderKey{ordinal: n})
				continue
			}
		}
		keys = nil
	}
	o.by = "ORDER BY " + strings.Join(parts, ", ")
	o.keys = keys
	return o
}

// tieColumns maps the sort keys onto a result's columns; nil when one of
// them is not among cols (then rows compare strictly by position).
func (o rowOrder) tieColumns(cols []string) []string {
	if len(o.keys) == 0 {
		return nil
	}
	out := make([]string, 0, len(o.keys))
	for _, k := range o.keys {
		found := ""
		if k.ordinal > 0 && k.ordinal <= len(cols) {
			found = cols[k.ordinal-1]
		}
		for _, c := range cols {
			if k.name != "" && strings.EqualFold(c, k.name) {
				found = c
				break
			}
		}
		if found == "" {
			return nil
		}
		out = append(out, found)
	}
	return out
}

// settleTies lets rows tied on every sort key come in either order: the
// engine's order among them is not part of the query's meaning. Each run
// of got rows with equal keys that holds, as a multiset, exactly the want
// rows at the same positions is taken in want's order; anything else is
// left for the positional diff to show.
func settleTies(want, got []jsonRow, keys []string) []jsonRow {
	if len(keys) == 0 {
		return got
	}
	out := got
	copied := false
	for i := 0; i < len(got); {
		j := i + 1
		for j < len(got) && sameKeys(got[i], got[j], keys) {
			j++
		}
		if j-i > 1 && j <= len(want) && sameMultiset(want[i:j], got[i:j]) {
			if !copied {
				out = append([]jsonRow(nil), got...)
				copied = true
			}
			copy(out[i:j], want[i:j])
		}
		i = j
	}
	return out
}

func sameKeys(a, b jsonRow, keys []string) bool {
	for _, k := range keys {
		av, aok := a.vals[k]
		bv, bok := b.vals[k]
		if !aok || !bok || !equalValue(av, bv) {
			return false
		}
	}
	return true
}

func sameMultiset(want, got []jsonRow) bool {
	if len(want) != len(got) {
		return false
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && equalRow(w, g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// JOIN … USING (a, b), as BigQuery has it:
//
//   - the condition is left.a = right.a AND left.b = right.b, where left.a is
//     the one column a of the left side (a USING column of a join inside it
//     counts as one column) and likewise on the right;
//   - an unqualified `a` is not ambiguous: it reads the merged column, which
//     is the left one for INNER and LEFT joins, the right one for RIGHT, and
//     COALESCE(left.a, right.a) for FULL; `l.a` and `r.a` still read each side;
//   - SELECT * shows a merged column once, before the other columns of the
//     join (the columns of an enclosing USING join first), and leaves out the
//     two columns it merges; `l.*` still has l.a.

// usingScope is what the USING joins of a FROM clause bring into its scope.
type usingScope struct {
	cols   []*usingCol
	joins  int
	hidden map[*rangeVar]map[string]bool // merged columns SELECT * leaves out
}

// usingCol is one merged column.
type usingCol struct {
	name   string
	expr   expr.Expr
	first  int  // index in scope.vars of the join's first range variable
	join   int  // the USING join's number in its FROM clause
	merged bool // merged again by an enclosing USING join
}

func (u *usingScope) hide(rv *rangeVar, name string) {
	if u.hidden[rv] == nil {
		u.hidden[rv] = map[string]bool{}
	}
	u.hidden[rv][strings.ToLower(name)] = true
}

func (u *usingScope) isHidden(rv *rangeVar, name string) bool {
	return u != nil && u.hidden[rv][strings.ToLower(name)]
}

// lookup finds the merged column an unqualified name reads, or nil.
func (u *usingScope) lookup(name string) *usingCol {
	if u == nil {
		return nil
	}
	for i := len(u.cols) - 1; i >= 0; i-- { // the outermost join's first
		if c := u.cols[i]; !c.merged && strings.EqualFold(c.name, name) {
			return c
		}
	}
	return nil
}

// using binds the USING list of a join whose left side brought the range
// variables sc.vars[start:mid] and whose right side the rest, and returns
// its condition.
func (b *binder) using(f *sqlparse.Join, sc *scope, start, mid int) expr.Expr {
	if f.Kind == sqlparse.JoinComma || f.Kind == sqlparse.JoinCross {
		b.fail(f.At, "%s cannot have USING", f.Kind)
	}
	if sc.using == nil {
		sc.using = &usingScope{hidden: map[*rangeVar]map[string]bool{}}
	}
	sc.using.joins++
	end := len(sc.vars)
	var cond expr.Expr
	seen := map[string]bool{}
	var added []*usingCol
	for _, name := range f.Using {
		if seen[strings.ToLower(name)] {
			b.fail(f.At, "column %s appears twice in USING", name)
		}
		seen[strings.ToLower(name)] = true
		l, lmark := b.usingSide(sc, start, mid, name, f.At, "left")
		r, rmark := b.usingSide(sc, mid, end, name, f.At, "right")
		eq := b.call(f.At, "=", []expr.Expr{l, r})
		if cond == nil {
			cond = eq
		} else {
			cond = b.call(f.At, "and", []expr.Expr{cond, eq})
		}
		lmark()
		rmark()
		merged := l
		switch f.Kind {
		case sqlparse.JoinRight:
			merged = r
		case sqlparse.JoinFull:
			merged = b.call(f.At, "coalesce", []expr.Expr{l, r})
		}
		added = append(added, &usingCol{name: name, expr: merged, first: start, join: sc.using.joins})
	}
	sc.using.cols = append(sc.using.cols, added...)
	return cond
}

// usingSide finds column name among sc.vars[lo:hi] (or a merged column of a
// USING join there). The returned function hides it from SELECT *; it runs
// once both sides are found.
func (b *binder) usingSide(sc *scope, lo, hi int, name string, pos int, side string) (expr.Expr, func()) {
	for i := len(sc.using.cols) - 1; i >= 0; i-- {
		c := sc.using.cols[i]
		if !c.merged && c.first >= lo && c.first < hi && strings.EqualFold(c.name, name) {
			return c.expr, func() { c.merged = true }
		}
	}
	var found []expr.Expr
	var from []*rangeVar
	var scans []*rangeVar
	for _, rv := range sc.vars[lo:hi] {
		x := b.columnOf(rv, name)
		if x == nil && rv.kind == rvElem && strings.EqualFold(rv.cols[0].Name, name) {
			x = &sym{rv: rv, idx: 0, T: rv.cols[0].T, nm: rv.cols[0].Name} // an UNNEST's element or offset
		}
		if x != nil {
			found = append(found, x)
			from = append(from, rv)
		}
		if rv.kind == rvScan {
			scans = append(scans, rv)
		}
	}
	switch {
	case len(found) > 1:
		b.fail(pos, "column %s in USING is ambiguous on the %s side of the join", name, side)
	case len(found) == 1:
		rv := from[0]
		return found[0], func() { sc.using.hide(rv, name) }
	case len(scans) == 1:
		// A field no event of that source has yet: NULL until one does.
		rv := scans[0]
		return scanField(rv, name, types.Null, false), func() { sc.using.hide(rv, name) }
	}
	if b.symbolic {
		// Checked without schemas, an open derived table (or one of
		// several sources) may have it: the run decides.
		for _, rv := range sc.vars[lo:hi] {
			if rv.fieldsUnknown() {
				return unknownColumn(), func() {}
			}
		}
	}
	b.fail(pos, "column %s in USING is not on the %s side of the join", name, side)
	return nil, nil
}

// usingColumnsAt lists the merged columns SELECT * puts before the columns of
// sc.vars[i]: those of joins starting there, the outermost first.
func (u *usingScope) columnsAt(i int) []*usingCol {
	if u == nil {
		return nil
	}
	var out []*usingCol
	for j := u.joins; j > 0; j-- {
		for _, c := range u.cols {
			if c.join == j && c.first == i && !c.merged {
				out = append(out, c)
			}
		}
	}
	return out
}

// starColumns is what SELECT * shows for sc.vars[i]: the merged columns of
// the USING joins that start there, then rv's columns less those merged.
func (u *usingScope) starColumns(i int, rv *rangeVar, cols []selItem) []selItem {
	if u == nil {
		return cols
	}
	var out []selItem
	for _, c := range u.columnsAt(i) {
		out = append(out, selItem{expr: c.expr, name: c.name})
	}
	for _, c := range cols {
		if !u.isHidden(rv, c.name) {
			out = append(out, c)
		}
	}
	return out
}

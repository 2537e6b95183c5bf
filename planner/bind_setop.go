package planner

import (
	"logq/sqlparse"
	"logq/types"
)

// Set operations, as BigQuery has them:
//
//   - UNION ALL concatenates (a Union node); UNION DISTINCT is an Aggregate
//     keyed by every column over that Union (NULLs group together);
//   - INTERSECT DISTINCT and EXCEPT DISTINCT are a SetOp node;
//   - INTERSECT ALL and EXCEPT ALL do not exist in BigQuery and are refused;
//   - both inputs have the same number of columns, each pair coerced to its
//     supertype (INT64 and FLOAT64 give FLOAT64), named after the left input;
//   - different set operations in one chain need parentheses
//     (`a UNION ALL b INTERSECT DISTINCT c` is refused, as in BigQuery).

func setOpName(s *sqlparse.SetOp) string {
	if s.All {
		return s.Op + " ALL"
	}
	return s.Op + " DISTINCT"
}

func (b *binder) setOp(s *sqlparse.SetOp, env *cteEnv) Node {
	name := setOpName(s)
	if s.All && s.Op != "UNION" {
		b.fail(s.At, "%s is not supported (BigQuery has only %s DISTINCT)", name, s.Op)
	}
	if l, ok := s.Left.(*sqlparse.SetOp); ok && setOpName(l) != name {
		b.fail(s.At, "%s and %s cannot be combined without parentheses", setOpName(l), name)
	}
	left, right := b.setExpr(s.Left, env), b.setExpr(s.Right, env)
	lc, rc := left.Columns(), right.Columns()
	if len(lc) != len(rc) {
		b.fail(s.At, "%s inputs have %d and %d columns", name, len(lc), len(rc))
	}
	cols := make([]Column, len(lc))
	var lx, rx []Expr
	cast := false
	for i := range lc {
		t, ok := types.Supertype(lc[i].T, rc[i].T)
		if !ok {
			b.fail(s.At, "%s column %d has types %s and %s, which have no common supertype", name, i+1, lc[i].T, rc[i].T)
		}
		cols[i] = Column{Name: lc[i].Name, T: t}
		l, _ := coerceTo(&ColRef{Idx: i, T: lc[i].T, Name: lc[i].Name}, t)
		r, _ := coerceTo(&ColRef{Idx: i, T: rc[i].T, Name: rc[i].Name}, t)
		lx, rx = append(lx, l), append(rx, r)
		cast = cast || !lc[i].T.Equal(t) || !rc[i].T.Equal(t)
	}
	if cast {
		left = &Project{In: left, Exprs: lx, Cols: cols}
		right = &Project{In: right, Exprs: rx, Cols: cols}
	}
	switch s.Op {
	case "INTERSECT", "EXCEPT":
		kind := SetIntersect
		if s.Op == "EXCEPT" {
			kind = SetExcept
		}
		return &SetOp{Kind: kind, Left: left, Right: right, Cols: cols}
	}
	ins := []Node{}
	for _, in := range []Node{left, right} {
		if u, ok := in.(*Union); ok {
			ins = append(ins, u.Inputs...)
		} else {
			ins = append(ins, in)
		}
	}
	if s.All {
		return &Union{Inputs: ins, Cols: cols}
	}
	// UNION DISTINCT: distinct rows of the concatenation. A left input that is
	// itself a UNION DISTINCT (an Aggregate) is one input here, deduplicated
	// again; the result is the same.
	u := &Union{Inputs: ins, Cols: cols}
	d := &Aggregate{In: u}
	for i, c := range cols {
		d.Keys = append(d.Keys, &ColRef{Idx: i, T: c.T, Name: c.Name})
		d.Cols = append(d.Cols, c)
	}
	return d
}

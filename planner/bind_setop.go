package planner

import (
	"slices"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Set operations, as BigQuery has them:
//
//   - UNION ALL concatenates (a Union node); UNION DISTINCT is an Aggregate
//     keyed by every column over that Union (NULLs group together);
//   - INTERSECT DISTINCT and EXCEPT DISTINCT are a SetOp node;
//   - INTERSECT ALL and EXCEPT ALL (ZetaSQL's, not BigQuery's) are a SetOp
//     node too, counting rows;
//   - both inputs have the same number of columns, each pair coerced to its
//     supertype (INT64 and FLOAT64 give FLOAT64), named after the left input;
//   - different set operations in one chain need parentheses
//     (`a UNION ALL b INTERSECT DISTINCT c` is refused, as in BigQuery);
//   - BY NAME and CORRESPONDING pair columns by name instead
//     (bind_setop_name.go).

func setOpName(s *sqlparse.SetOp) string {
	if s.All {
		return s.Op + " ALL"
	}
	return s.Op + " DISTINCT"
}

// coerceSetColumn converts column i of a set operation's input n to type
// t: implicitly (INT64 to FLOAT64), or, for a STRING literal meeting a
// DATE, DATETIME or TIMESTAMP column, by coercing the literal itself where
// the input selects it, as BigQuery coerces literals. It returns the input
// (rewritten when a literal was) and the expression that reads the column
// as t.
func coerceSetColumn(n Node, i int, t types.Type, fail func()) (Node, expr.Expr) {
	c := n.Columns()[i]
	if e, err := expr.CoerceTo(&expr.ColRef{Idx: i, T: c.T, Name: c.Name}, t); err == nil {
		return n, e
	}
	if lit, ok := coerceLiteralColumn(n, i, t); ok {
		return lit, &expr.ColRef{Idx: i, T: t, Name: c.Name}
	}
	fail()
	return nil, nil
}

// coerceLiteralColumn rewrites column i of n, when every input row selects
// it as a constant (through projections and unions), to that constant
// coerced to t.
func coerceLiteralColumn(n Node, i int, t types.Type) (Node, bool) {
	switch x := n.(type) {
	case *Project:
		k, ok := x.Exprs[i].(*expr.Const)
		if !ok {
			return nil, false
		}
		e, err := expr.CoerceTo(k, t)
		if err != nil {
			return nil, false
		}
		out := *x
		out.Exprs, out.Cols = slices.Clone(x.Exprs), slices.Clone(x.Cols)
		out.Exprs[i], out.Cols[i].T = e, t
		return &out, true
	case *Union:
		out := &Union{Cols: slices.Clone(x.Cols)}
		out.Cols[i].T = t
		for _, in := range x.Inputs {
			c, ok := coerceLiteralColumn(in, i, t)
			if !ok {
				return nil, false
			}
			out.Inputs = append(out.Inputs, c)
		}
		return out, true
	}
	return nil, false
}

// floatLiteralColumn reports whether every row of n selects column i as
// a FLOAT64 literal.
func floatLiteralColumn(n Node, i int) bool {
	switch x := n.(type) {
	case *Project:
		return expr.IsFloatLiteral(x.Exprs[i])
	case *Union:
		for _, in := range x.Inputs {
			if !floatLiteralColumn(in, i) {
				return false
			}
		}
		return len(x.Inputs) > 0
	}
	return false
}

// setOpKey names a set operation with its column matching: operations in
// one chain without parentheses must have the same key.
func setOpKey(s *sqlparse.SetOp) string {
	if s.Match == "" {
		return setOpName(s)
	}
	family := "CORRESPONDING"
	if s.Match == "BY NAME" {
		family = "BY NAME"
	}
	// The mode as it acts (CORRESPONDING is INNER …), names without case.
	key := []string{setMatchMode(s), setOpName(s), family}
	for _, n := range s.Names {
		key = append(key, strings.ToLower(n))
	}
	return strings.Join(key, " ")
}

func (b *binder) setOp(s *sqlparse.SetOp, env *cteEnv) Node {
	if l, ok := s.Left.(*sqlparse.SetOp); ok && setOpKey(l) != setOpKey(s) {
		b.fail(s.At, "%s and %s cannot be combined without parentheses", strings.TrimSpace(setOpKey(l)), strings.TrimSpace(setOpKey(s)))
	}
	if s.Match != "" {
		return b.setOpByName(s, env) // bind_setop_name.go
	}
	left, right := b.setExpr(s.Left, env), b.setExpr(s.Right, env)
	if b.symbolic && len(left.Columns()) != len(right.Columns()) {
		// Checked without schemas, a * over a source lists only what a
		// schema would: the widths are the run's to compare. The input
		// whose columns are all known stands for the result.
		ls, rs := starReadsSource(s.Left, env, 0), starReadsSource(s.Right, env, 0)
		switch {
		case ls && !rs:
			return right
		case ls || rs:
			return left
		}
	}
	return b.combine(s, left, right)
}

// combine is the set operation s of two bound inputs whose columns pair
// up by position.
func (b *binder) combine(s *sqlparse.SetOp, left, right Node) Node {
	name := setOpName(s)
	lc, rc := left.Columns(), right.Columns()
	if len(lc) != len(rc) {
		b.fail(s.At, "%s inputs have %d and %d columns", name, len(lc), len(rc))
	}
	cols := make([]Column, len(lc))
	var lx, rx []expr.Expr
	cast := false
	for i := range lc {
		t, ok := types.Supertype(lc[i].T, rc[i].T)
		// A FLOAT64 literal meeting a decimal column is that decimal, as
		// a literal is beside one in an expression.
		switch {
		case lc[i].T.IsDecimal() && rc[i].T.Kind == types.KindFloat64 && floatLiteralColumn(right, i):
			t = lc[i].T
		case rc[i].T.IsDecimal() && lc[i].T.Kind == types.KindFloat64 && floatLiteralColumn(left, i):
			t = rc[i].T
		}
		if !ok {
			b.fail(s.At, "%s column %d has types %s and %s, which have no common supertype", name, i+1, lc[i].T, rc[i].T)
		}
		cols[i] = Column{Name: lc[i].Name, T: t}
		b.noCollation(s.At, name, lc[i].T)
		b.noCollation(s.At, name, rc[i].T)
		if !s.All || s.Op != "UNION" {
			b.orderable(s.At, name, t) // DISTINCT, INTERSECT and EXCEPT compare rows
		}
		var l, r expr.Expr
		fail := func() {
			b.fail(s.At, "%s column %d has types %s and %s; only a literal converts between them", name, i+1, lc[i].T, rc[i].T)
		}
		left, l = coerceSetColumn(left, i, t, fail)
		right, r = coerceSetColumn(right, i, t, fail)
		lx, rx = append(lx, l), append(rx, r)
		cast = cast || !left.Columns()[i].T.Equal(t) || !right.Columns()[i].T.Equal(t)
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
		return &SetOp{Kind: kind, All: s.All, Left: left, Right: right, Cols: cols}
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
		b.orderable(s.At, "a set operation with DISTINCT", c.T)
		d.Keys = append(d.Keys, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
		d.Cols = append(d.Cols, c)
	}
	return d
}

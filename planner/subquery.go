package planner

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/types"
)

// SubqueryKind says what an expression subquery computes.
type SubqueryKind uint8

// Subquery kinds.
const (
	// SubScalar is (SELECT x …): the value of its one row, NULL when it has
	// no row, an error when it has more than one.
	SubScalar SubqueryKind = iota
	// SubExists is EXISTS (SELECT …): TRUE when it has a row, never NULL.
	SubExists
	// SubArray is ARRAY(SELECT x …): its rows' values in order, [] for none.
	SubArray
	// SubIn is X IN (SELECT x …) with BigQuery's three-valued logic: FALSE
	// when the subquery has no row (even for a NULL X), else NULL for a NULL
	// X, TRUE when X is among the values, else NULL when a value is NULL,
	// else FALSE. NOT IN is not(SubIn). With Key set it is correlated by one
	// equality, decorrelated (bind_correlated.go): Plan gives (key, value)
	// rows for non-NULL keys, and each row's subquery is the values of its
	// Key's rows (none for a NULL Key).
	SubIn
	// SubKeyed is a correlated scalar subquery, decorrelated
	// (bind_correlated.go): Plan gives (key, value) rows for non-NULL keys,
	// and the subquery's value is the one for X's key, else Default (the
	// aggregate over no rows; NULL for a plain value). A key with two rows
	// is an error when an outer row reads it (a scalar subquery of more
	// than one row), unless FirstRow (LIMIT 1) takes any one of them.
	SubKeyed
)

var subqueryNames = [...]string{"scalar", "exists", "array", "in", "keyed"}

func (k SubqueryKind) String() string { return subqueryNames[k] }

// Subquery is a subquery inside an expression: uncorrelated, decorrelated
// (SubIn with Key, SubKeyed), or run per outer row (Outer). Its Plan is
// bound and optimised on its own: its ColRefs read its own rows, never the
// enclosing row, so the rewrites of the enclosing plan (pushdown, pruning,
// remapping) leave it alone; only X (the left operand of IN), Key and Outer
// are ordinary sub-expressions over the enclosing row (children and mapExpr
// visit them).
//
// Expressions are data: the executor runs Plan once per query and replaces
// the node by its value, or for IN by a hash set of the values
// (exec/op_subquery.go), or, with Outer, once per distinct tuple of Outer's
// values (exec/op_apply.go). Copies made by rewrites share Plan, so a
// subquery that a rewrite duplicates still runs once (per tuple).
type Subquery struct {
	Kind SubqueryKind
	Plan Node
	X    expr.Expr // SubIn, SubKeyed
	Key  expr.Expr // SubIn correlated: the enclosing row's key
	T    types.Type
	// Default is SubKeyed's value for a key with no row.
	Default types.Value
	// FirstRow: SubKeyed keeps the first row of a key (the subquery had
	// LIMIT 1), instead of failing on a second.
	FirstRow bool
	// Line and Col place the subquery in the query text, for the errors
	// it raises at run time (a scalar subquery with more than one row).
	Line, Col int
	// Outer and Params make a correlated subquery that no rewrite
	// decorrelates (bind_apply.go): Plan reads OuterParam i, whose value is
	// (*Params)[i], and Outer[i] is that value's expression over the
	// enclosing row. The executor runs Plan once per distinct tuple of
	// Outer's values, with Params set to it. Nil for the other subqueries.
	Outer  []expr.Expr
	Params *[]types.Value
}

func (e *Subquery) Type() types.Type { return e.T }

// Children are X and Key, which read the enclosing row; the plan reads its
// own rows, not ours.
func (e *Subquery) Children() []expr.Expr {
	var out []expr.Expr
	if e.X != nil {
		out = append(out, e.X)
	}
	if e.Key != nil {
		out = append(out, e.Key)
	}
	return append(out, e.Outer...)
}

func (e *Subquery) WithChildren(ch []expr.Expr) expr.Expr {
	s := *e
	if e.X != nil {
		s.X, ch = ch[0], ch[1:]
	}
	if e.Key != nil {
		s.Key, ch = ch[0], ch[1:]
	}
	if e.Outer != nil {
		s.Outer = append([]expr.Expr(nil), ch...)
	}
	return &s
}

// OuterParam is, inside the plan of a correlated Subquery run per outer
// row, the value of the enclosing row's expression Outer[Idx] for the row
// being answered: (*Vals)[Idx], set by the executor before each run.
type OuterParam struct {
	Idx  int
	T    types.Type
	Vals *[]types.Value
}

func (o *OuterParam) Type() types.Type                   { return o.T }
func (o *OuterParam) Children() []expr.Expr              { return nil }
func (o *OuterParam) WithChildren([]expr.Expr) expr.Expr { return o }
func (o *OuterParam) String() string                     { return fmt.Sprintf("$outer%d", o.Idx) }

// Value is the parameter's value for the run under way.
func (o *OuterParam) Value() types.Value { return (*o.Vals)[o.Idx] }

func (e *Subquery) String() string {
	lines := strings.Split(strings.TrimSpace(Explain(e.Plan)), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	body := "subquery{" + strings.Join(lines, "; ") + "}"
	if e.Outer != nil {
		outer := make([]string, len(e.Outer))
		for i, o := range e.Outer {
			outer[i] = o.String()
		}
		x := ""
		if e.X != nil {
			x = e.X.String() + ", "
		}
		return e.Kind.String() + "(" + x + "per row of (" + strings.Join(outer, ", ") + "), " + body + ")"
	}
	switch e.Kind {
	case SubIn:
		if e.Key != nil {
			return "in(" + e.X.String() + ", key " + e.Key.String() + ", " + body + ")"
		}
		return "in(" + e.X.String() + ", " + body + ")"
	case SubKeyed:
		return "keyed(" + e.X.String() + ", " + body + ")"
	}
	return e.Kind.String() + "(" + body + ")"
}

package expr

import (
	"fmt"
	"strconv"
	"strings"

	"logq/types"
)

// Expr is a bound, typed scalar expression over the columns of a plan node's
// input. Expressions are data: the executor compiles them into kernels.
//
// Children and WithChildren let rewrites and walks (mapExpr, colsUsed, the
// executor's) handle every expression without a type switch.
type Expr interface {
	Type() types.Type
	String() string
	// Children returns the direct sub-expressions over the same row (a
	// subquery's plan reads its own rows and is not among them).
	Children() []Expr
	// WithChildren returns a copy of the expression with its children
	// replaced (same number, same order); the original is not changed.
	// Only expressions with children are asked.
	WithChildren(children []Expr) Expr
}

// ColRef reads column Idx of the input.
type ColRef struct {
	Idx  int
	T    types.Type
	Name string
}

// Const is a constant. Param names the parameter it came from, so that an
// error about the value can name it.
type Const struct {
	V     types.Value
	Param string
	// FloatLiteral marks a FLOAT64 written as a literal (not folded from
	// an expression): only it coerces to NUMERIC, read from its text,
	// which Text keeps (1.00000000000000000000000000000000000001 is no
	// double).
	FloatLiteral bool
	Text         string
	// Column marks the value of a column of an inlined one-row subquery
	// or CTE (SELECT '2020-01-01' AS s): folded like any constant, but a
	// column, not a literal, for the coercions only literals get (a
	// STRING to a date, a FLOAT64 to NUMERIC, an array or struct
	// literal's elements): BigQuery types a column reference by its
	// column.
	Column bool
}

// Call applies a function or operator. Fn is the lower-case name from the
// function table (operators use their symbol: "=", "+", "and", …). Unit is the
// date part of functions that take one; Idx the field of "field"; Safe marks
// SAFE_CAST and SAFE_ subscripts.
type Call struct {
	Fn   string
	Args []Expr
	T    types.Type
	Unit types.DatePart
	Idx  int
	Safe bool
	// Def is the function Fn names, resolved once when the plan is built
	// (planner.Plan), so that evaluating a row looks nothing up. A call
	// made after planning (by the executor) leaves it nil: Resolve finds it.
	Def *Func
}

// Resolve returns the called function: Def, or the one registered as Fn.
func (c *Call) Resolve() *Func {
	if c.Def != nil {
		return c.Def
	}
	return funcs[c.Fn]
}

// Case is a searched CASE; the simple form is bound as one.
type Case struct {
	Whens []When
	Else  Expr // never nil: a missing ELSE is a NULL constant
	T     types.Type
}

// When is one arm of a Case.
type When struct{ Cond, Then Expr }

func (e *ColRef) Type() types.Type { return e.T }
func (e *Const) Type() types.Type  { return e.V.T }
func (e *Call) Type() types.Type   { return e.T }
func (e *Case) Type() types.Type   { return e.T }

func (e *ColRef) String() string { return "#" + strconv.Itoa(e.Idx) + ":" + e.Name }

func (e *Const) String() string {
	switch {
	case e.V.Null:
		return "NULL"
	case e.V.T.Kind == types.KindString:
		return strconv.Quote(e.V.S)
	case e.V.T.Kind == types.KindTimestamp:
		return "TIMESTAMP " + strconv.Quote(types.FormatTimestamp(e.V.I))
	}
	return e.V.String()
}

func (e *Call) String() string {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = a.String()
	}
	switch {
	case isInfix(e.Fn) && len(args) == 2:
		return "(" + args[0] + " " + strings.ToUpper(e.Fn) + " " + args[1] + ")"
	case e.Fn == "cast":
		return fmt.Sprintf("cast(%s AS %s)", args[0], e.T)
	case e.Unit != types.PartInvalid:
		args = append(args, e.Unit.String())
	case e.Fn == "field":
		return fmt.Sprintf("%s.%d", args[0], e.Idx)
	}
	return e.Fn + "(" + strings.Join(args, ", ") + ")"
}

func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	b.WriteString(" ELSE " + e.Else.String() + " END")
	return b.String()
}

func isInfix(fn string) bool {
	switch fn {
	case "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "||", "and", "or", "&", "|", "^", "<<", ">>":
		return true
	}
	return false
}

// mapExpr rebuilds e bottom-up, replacing each node by f(node). Nodes with
// children are copied (WithChildren), so e itself is left as it was.
func MapExpr(e Expr, f func(Expr) Expr) Expr {
	if ch := e.Children(); len(ch) > 0 {
		out := make([]Expr, len(ch))
		for i, c := range ch {
			out[i] = MapExpr(c, f)
		}
		e = e.WithChildren(out)
	}
	return f(e)
}

func (e *ColRef) Children() []Expr { return nil }
func (e *Const) Children() []Expr  { return nil }
func (e *Call) Children() []Expr   { return e.Args }
func (e *Case) Children() []Expr {
	out := make([]Expr, 0, 2*len(e.Whens)+1)
	for _, w := range e.Whens {
		out = append(out, w.Cond, w.Then)
	}
	return append(out, e.Else)
}

func (e *ColRef) WithChildren([]Expr) Expr { return e }
func (e *Const) WithChildren([]Expr) Expr  { return e }
func (e *Call) WithChildren(ch []Expr) Expr {
	c := *e
	c.Args = ch
	return &c
}
func (e *Case) WithChildren(ch []Expr) Expr {
	c := &Case{T: e.T, Else: ch[len(ch)-1]}
	for i := 0; i+1 < len(ch); i += 2 {
		c.Whens = append(c.Whens, When{ch[i], ch[i+1]})
	}
	return c
}

// IsVolatile reports whether e calls a volatile function (RAND): each
// evaluation may differ, so e is evaluated once per row where it stands,
// never copied, shared between rows or answered per distinct value.
func IsVolatile(e Expr) bool {
	if c, ok := e.(*Call); ok {
		if f := c.Resolve(); f != nil && f.Volatile {
			return true
		}
	}
	for _, ch := range e.Children() {
		if IsVolatile(ch) {
			return true
		}
	}
	return false
}

// colsUsed adds the input columns e reads to set.
func ColsUsed(e Expr, set map[int]bool) {
	if c, ok := e.(*ColRef); ok {
		set[c.Idx] = true
		return
	}
	for _, ch := range e.Children() {
		ColsUsed(ch, set)
	}
}

// remap renumbers column references through m (old index → new).
func Remap(e Expr, m map[int]int) Expr {
	return MapExpr(e, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			n := *c
			n.Idx = m[c.Idx]
			return &n
		}
		return x
	})
}

// substitute replaces column i by exprs[i].
func Substitute(e Expr, exprs []Expr) Expr {
	return MapExpr(e, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			return exprs[c.Idx]
		}
		return x
	})
}

// IsConst reports whether e is a constant.
func IsConst(e Expr) bool { _, ok := e.(*Const); return ok }

// IsLiteral reports whether e is a constant written in the query (or a
// parameter), which BigQuery's literal coercions apply to; a column's
// folded value is not one.
func IsLiteral(e Expr) bool { c, ok := e.(*Const); return ok && !c.Column }

// AsColumn returns c as the value of a column (Column set, no literal
// text), for a reference to an inlined subquery's column.
func AsColumn(c *Const) *Const {
	out := *c
	out.Column, out.FloatLiteral, out.Text = true, false, ""
	return &out
}

// splitAnd flattens a conjunction.
func SplitAnd(e Expr) []Expr {
	if c, ok := e.(*Call); ok && c.Fn == "and" {
		return append(SplitAnd(c.Args[0]), SplitAnd(c.Args[1])...)
	}
	return []Expr{e}
}

// joinAnd rebuilds a conjunction; nil for none.
func JoinAnd(es []Expr) Expr {
	var out Expr
	for _, e := range es {
		if out == nil {
			out = e
		} else {
			out = &Call{Fn: "and", Args: []Expr{out, e}, T: types.Bool}
		}
	}
	return out
}

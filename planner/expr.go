package planner

import (
	"fmt"
	"strconv"
	"strings"

	"logq/types"
)

// Expr is a bound, typed scalar expression over the columns of a plan node's
// input. Expressions are data: the executor compiles them into kernels.
type Expr interface {
	Type() types.Type
	String() string
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
	case "=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "||", "and", "or":
		return true
	}
	return false
}

// children returns the direct sub-expressions.
func children(e Expr) []Expr {
	switch e := e.(type) {
	case *Call:
		return e.Args
	case *Case:
		out := make([]Expr, 0, 2*len(e.Whens)+1)
		for _, w := range e.Whens {
			out = append(out, w.Cond, w.Then)
		}
		return append(out, e.Else)
	case *Subquery:
		// The plan reads its own rows, not ours; X and Key read ours.
		switch {
		case e.Key != nil:
			return []Expr{e.X, e.Key}
		case e.X != nil:
			return []Expr{e.X}
		}
	}
	return nil
}

// mapExpr rebuilds e bottom-up, replacing each node by f(node).
func mapExpr(e Expr, f func(Expr) Expr) Expr {
	switch x := e.(type) {
	case *Call:
		c := *x
		c.Args = make([]Expr, len(x.Args))
		for i, a := range x.Args {
			c.Args[i] = mapExpr(a, f)
		}
		return f(&c)
	case *Case:
		c := &Case{T: x.T, Else: mapExpr(x.Else, f)}
		for _, w := range x.Whens {
			c.Whens = append(c.Whens, When{mapExpr(w.Cond, f), mapExpr(w.Then, f)})
		}
		return f(c)
	case *Subquery:
		s := *x
		if x.X != nil {
			s.X = mapExpr(x.X, f)
		}
		if x.Key != nil {
			s.Key = mapExpr(x.Key, f)
		}
		return f(&s)
	}
	return f(e)
}

// colsUsed adds the input columns e reads to set.
func colsUsed(e Expr, set map[int]bool) {
	if c, ok := e.(*ColRef); ok {
		set[c.Idx] = true
		return
	}
	for _, ch := range children(e) {
		colsUsed(ch, set)
	}
}

// remap renumbers column references through m (old index → new).
func remap(e Expr, m map[int]int) Expr {
	return mapExpr(e, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			n := *c
			n.Idx = m[c.Idx]
			return &n
		}
		return x
	})
}

// substitute replaces column i by exprs[i].
func substitute(e Expr, exprs []Expr) Expr {
	return mapExpr(e, func(x Expr) Expr {
		if c, ok := x.(*ColRef); ok {
			return exprs[c.Idx]
		}
		return x
	})
}

// IsConst reports whether e is a constant.
func IsConst(e Expr) bool { _, ok := e.(*Const); return ok }

// splitAnd flattens a conjunction.
func splitAnd(e Expr) []Expr {
	if c, ok := e.(*Call); ok && c.Fn == "and" {
		return append(splitAnd(c.Args[0]), splitAnd(c.Args[1])...)
	}
	return []Expr{e}
}

// joinAnd rebuilds a conjunction; nil for none.
func joinAnd(es []Expr) Expr {
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

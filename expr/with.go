package expr

import (
	"strings"

	"logq/types"
)

// With is a WITH expression, WITH(a AS x, b AS y, result): each of Vars is
// evaluated once per row, in order, and Body (and each later variable)
// reads them through WithVar. Evaluated once means what it says: RAND()
// bound to a variable gives one value per row however often it is read.
//
// IDs number the variables across the whole query, so that a WithVar finds
// its value whatever With nodes enclose it; Names are for String alone.
type With struct {
	IDs   []int
	Names []string
	Vars  []Expr
	Body  Expr
}

// WithVar reads the variable ID of an enclosing With.
type WithVar struct {
	ID   int
	Name string
	T    types.Type
}

func (e *With) Type() types.Type    { return e.Body.Type() }
func (e *WithVar) Type() types.Type { return e.T }

// String names variables, not their IDs: two bindings of the same text
// (a select item and its GROUP BY key) are the same expression.
func (e *With) String() string {
	var b strings.Builder
	b.WriteString("with(")
	for i, v := range e.Vars {
		b.WriteString(e.Names[i] + " := " + v.String() + ", ")
	}
	b.WriteString(e.Body.String() + ")")
	return b.String()
}

func (e *WithVar) String() string { return "$with." + e.Name }

func (e *With) Children() []Expr {
	return append(append(make([]Expr, 0, len(e.Vars)+1), e.Vars...), e.Body)
}

func (e *WithVar) Children() []Expr { return nil }

func (e *With) WithChildren(ch []Expr) Expr {
	n := len(ch) - 1
	return &With{IDs: e.IDs, Names: e.Names, Vars: append([]Expr(nil), ch[:n]...), Body: ch[n]}
}

func (e *WithVar) WithChildren([]Expr) Expr { return e }

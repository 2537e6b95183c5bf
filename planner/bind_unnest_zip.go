package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Multiway UNNEST (ZetaSQL's): UNNEST(a [AS x], b [AS y], … [, mode => m])
// gives a row per position, each array's element in a column named by its
// alias (or the last name of a path; anonymous otherwise). It is bound as
// the UNNEST of one array of STRUCTs made by unnest_zip, whose fields are
// the FROM item's columns (a STRUCT element's fields are, bind_names.go).
// The mode: PAD (the default) runs to the longest array, NULLs past the
// end of the shorter; TRUNCATE stops at the shortest; STRICT needs equal
// lengths. A NULL array has no element; a NULL mode is an error.

// zipArrays binds the arrays and mode of a multiway UNNEST into the
// unnest_zip call whose elements the UNNEST produces.
func (b *binder) zipArrays(u *sqlparse.UnnestRef, sc *scope) expr.Expr {
	if u.Alias != "" {
		b.fail(u.At, "a multiway UNNEST names its arrays inside it (UNNEST(a AS x, b AS y)), not as a whole")
	}
	if u.Mode != nil && len(u.Zip) == 1 {
		b.fail(u.Mode.Pos(), "mode is allowed only when UNNEST has more than one array")
	}
	mode := expr.Expr(&expr.Const{V: types.StringValue("PAD")})
	if u.Mode != nil {
		m, err := expr.CoerceTo(b.expr(u.Mode, &exprCtx{sc: sc}), types.String)
		if err != nil {
			b.fail(u.Mode.Pos(), "the mode of a multiway UNNEST is a STRING ('PAD', 'TRUNCATE' or 'STRICT'): %v", err)
		}
		if c, ok := m.(*expr.Const); ok && !c.V.Null && !expr.IsZipMode(c.V.S) {
			b.fail(u.Mode.Pos(), "the mode of a multiway UNNEST is 'PAD', 'TRUNCATE' or 'STRICT', not %q", c.V.S)
		}
		mode = m
	}
	args := []expr.Expr{mode}
	var fields []types.Field
	for _, a := range u.Zip {
		x := b.flattened(a.Expr, &exprCtx{sc: sc})
		switch t := x.Type(); t.Kind {
		case types.KindArray:
		case types.KindNull:
			x = &expr.Const{V: types.NullOf(types.ArrayOf(types.Int64))}
		default:
			b.fail(a.Expr.Pos(), "UNNEST needs an array, not %s", t)
		}
		name := a.Alias
		if name == "" {
			name = impliedAlias(a.Expr) // bind_select.go
		}
		for _, f := range fields {
			if name != "" && strings.EqualFold(f.Name, name) {
				b.fail(a.Expr.Pos(), "the arrays of a multiway UNNEST are named %s twice", name)
			}
		}
		args = append(args, x)
		fields = append(fields, types.Field{Name: name, Type: *x.Type().Elem})
	}
	return &expr.Call{Fn: "unnest_zip", Args: args, T: types.ArrayOf(types.StructOf(fields...))}
}

package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Array paths (ZetaSQL's): inside FLATTEN(…), UNNEST(…) and IN UNNEST(…), a
// field access on an ARRAY of STRUCTs reads the field of every element
// (NULL for a NULL element), and a field that is itself an array is
// concatenated (a NULL one adds nothing): [STRUCT([1, 2] AS a), STRUCT([3]
// AS a)].a is [1, 2, 3]. A subscript right after such an array field applies
// to each element's array before they are concatenated (….a[OFFSET(1)]
// takes the second of each). Anywhere else a field of an array is refused.
//
// While the path is bound its arrays of arrays are kept apart, typed
// ARRAY<ARRAY<T>> (a type no value of the dialect has): path_field makes
// them, path_offset and its kin subscript each inner array, path_flatten
// concatenates them where the path ends.

// flattened binds e, an array path, as the array it stands for.
func (b *binder) flattened(e sqlparse.Expr, ctx *exprCtx) expr.Expr {
	saved := b.flatten
	b.flatten = true
	x := b.expr(e, ctx)
	b.flatten = saved
	return pathFlatten(x)
}

// isPathNode reports whether e continues an array path: a name, a field
// access or a subscript. Any other expression's operands are not on it.
func isPathNode(e sqlparse.Expr) bool {
	switch e.(type) {
	case *sqlparse.Ident, *sqlparse.FieldAccess, *sqlparse.Index:
		return true
	}
	return false
}

// nestedArray reports whether t is a path's array of arrays.
func nestedArray(t types.Type) bool {
	return t.Kind == types.KindArray && t.Elem.Kind == types.KindArray
}

// pathFlatten concatenates a path's array of arrays.
func pathFlatten(x expr.Expr) expr.Expr {
	if !nestedArray(x.Type()) {
		return x
	}
	return &expr.Call{Fn: "path_flatten", Args: []expr.Expr{x}, T: *x.Type().Elem}
}

// pathField reads field name of every element of x, an ARRAY of STRUCTs.
func (b *binder) pathField(x expr.Expr, name string, pos int) expr.Expr {
	x = pathFlatten(x)
	elem := *x.Type().Elem
	if elem.Kind == types.KindJSON { // each element's member, as j.name is
		return &expr.Call{Fn: "path_json_field", Args: []expr.Expr{x, &expr.Const{V: types.StringValue(name)}}, T: x.Type()}
	}
	if elem.Kind != types.KindStruct {
		b.fail(pos, "cannot access field %s on the elements of %s", name, x.Type())
	}
	i := elem.FieldIndex(name)
	if i < 0 {
		b.fail(pos, "field %s not found in %s", name, elem)
	}
	return &expr.Call{Fn: "path_field", Args: []expr.Expr{x}, Idx: i, T: types.ArrayOf(elem.Fields[i].Type)}
}

// pathIndex subscripts each inner array of a path's array of arrays.
func pathIndex(fn string, x, idx expr.Expr) expr.Expr {
	return &expr.Call{Fn: "path_" + fn, Args: []expr.Expr{x, idx}, T: *x.Type().Elem}
}

package planner

import (
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
	"strings"
)

// Names in expressions: columns, fields of range variables, a range
// variable as a value, struct members.

// ident resolves a (possibly dotted) name.
func (b *binder) ident(e *sqlparse.Ident, ctx *exprCtx) expr.Expr {
	parts := e.Parts
	if x := b.letRef(parts[0], ctx, e.At); x != nil { // bind_with.go
		return b.fields(x, parts[1:], e.At)
	}
	if ctx.sc == nil {
		b.fail(e.At, "unrecognized name %s", e.Parts[0])
	}
	// A range variable's alias takes precedence over a column of the same name.
	rv := ctx.sc.find(parts[0])
	if rv == nil && len(parts) == 1 {
		// QUALIFY and ORDER BY read select-list aliases first.
		if i := aliasIndex(ctx.aliases, parts[0]); i >= 0 {
			if it := ctx.aliases[i]; ctx.inWindow && it.ast != nil && hasAnalytic(it.ast) {
				b.fail(e.At, "analytic functions do not nest: %s is an analytic function's result", parts[0])
			}
			return b.aliasValue(ctx.aliases[i], "QUALIFY and ORDER BY expressions", e.At)
		}
	}
	if rv != nil {
		if len(parts) == 1 {
			// UNNEST elements (or offsets) merged by USING: the merged column.
			if u := ctx.sc.using.lookup(parts[0]); u != nil && rv.kind == rvElem && u.first >= ctx.sc.inner && ctx.sc.using.isHidden(rv, parts[0]) {
				return u.expr
			}
			return b.rowValue(rv, e.At)
		}
		return b.member(rv, parts[1:], e.At)
	}
	// A column merged by JOIN … USING is not ambiguous (bind_using.go).
	if u := ctx.sc.using.lookup(parts[0]); u != nil && u.first >= ctx.sc.inner {
		return b.fields(u.expr, parts[1:], e.At)
	}
	// An unqualified column of exactly one FROM item.
	var found []expr.Expr
	for _, rv := range ctx.sc.visible() {
		if x := b.columnOf(rv, parts[0]); x != nil {
			found = append(found, x)
			b.refuseTwice(rv, parts[0], e.At)
		}
	}
	switch {
	case len(found) > 1:
		b.fail(e.At, "column name %s is ambiguous", parts[0])
	case len(found) == 1:
		return b.fields(found[0], parts[1:], e.At)
	}
	// HAVING reads a select-list alias that names no column of FROM.
	if i := aliasIndex(ctx.laterAliases, parts[0]); i >= 0 && len(parts) == 1 {
		it := ctx.laterAliases[i]
		if it.ast != nil && hasAnalytic(it.ast) {
			b.fail(e.At, "HAVING cannot read %s: it is an analytic function's result (use QUALIFY)", parts[0])
		}
		return b.aliasValue(it, "HAVING", e.At)
	}
	var scans []*rangeVar // the items a field no schema lists may belong to
	for _, rv := range ctx.sc.visible() {
		if rv.fieldsUnknown() {
			scans = append(scans, rv)
		}
	}
	if b.symbolic && len(b.outer) > 0 && len(scans) > 0 {
		// Checked without schemas, a name in a subquery over a source may
		// be the source's field, which wins over an enclosing query's
		// column: the run decides.
		return unknownColumn()
	}
	if len(b.outer) > 0 { // a name the subquery's own FROM lacks
		b.refuseOuterLet(parts[0], e.At) // bind_with.go
	}
	if x := b.outerName(e); x != nil { // bind_subquery.go
		return x
	}
	if ctx.sc.outside(parts[0], func(rv *rangeVar) bool { return b.columnOf(rv, parts[0]) != nil }) {
		b.fail(e.At, "%s is not visible %s", parts[0], ctx.sc.innerWhy)
	}
	if len(scans) == 1 && !scans[0].open {
		// A field no event has yet: NULL until one does.
		return b.fields(scanField(scans[0], parts[0], types.Null, false), parts[1:], e.At)
	}
	if len(scans) == 1 || b.symbolic && (len(scans) > 1 || b.outerSchemaless()) {
		// Checked without schemas (an open derived table is only open
		// then), which source has the field, or whether a source of an
		// enclosing query does (a correlated reference), is the run's to say.
		return unknownColumn()
	}
	b.fail(e.At, "unrecognized name %s", parts[0])
	return nil
}

// refuseTwice refuses a name that two columns of a derived table have
// (SELECT 1 AS x, 2 AS x): which one it means is ambiguous, as BigQuery says.
func (b *binder) refuseTwice(rv *rangeVar, name string, pos int) {
	if rv.kind != rvPlan && rv.kind != rvConst || rv.value {
		return
	}
	n := 0
	for _, c := range rv.cols {
		if strings.EqualFold(c.Name, name) {
			n++
		}
	}
	if n > 1 {
		b.fail(pos, "column name %s is ambiguous: %s has %d columns of that name", name, map[bool]string{true: "the FROM item", false: rv.alias}[rv.alias == ""], n)
	}
}

// columnOf returns the column name of rv as an expression, or nil.
func (b *binder) columnOf(rv *rangeVar, name string) expr.Expr {
	if rv.value { // a value table's columns are its STRUCT's fields
		if t := rv.cols[0].T; t.Kind == types.KindStruct {
			if i := t.FieldIndex(name); i >= 0 {
				return &expr.Call{Fn: "field", Args: []expr.Expr{valueOf(rv)}, Idx: i, T: t.Fields[i].Type}
			}
		}
		return nil
	}
	switch rv.kind {
	case rvScan:
		if t, _, ok := fieldOf(rv, name); ok {
			return scanField(rv, name, t, false)
		}
	case rvPath:
		path := rv.prefix + "." + name
		if t, _, ok := fieldOf(rv.scanRV, path); ok {
			return scanField(rv.scanRV, path, t, false)
		}
	case rvView:
		if c := rv.viewColumn(name); c != "" {
			return viewField(rv, c)
		}
	case rvPlan:
		for i, c := range rv.cols {
			if strings.EqualFold(c.Name, name) {
				return &sym{rv: rv, idx: i, T: c.T, nm: c.Name}
			}
		}
	case rvConst:
		for i, c := range rv.cols {
			if strings.EqualFold(c.Name, name) {
				return constColumn(rv.consts[i])
			}
		}
	case rvElem:
		// A STRUCT element's fields are columns of its UNNEST, aliased or
		// not (a value table, as BigQuery reads one; Studio writes
		// `UNNEST(metadata) AS m … WHERE function_id = …`).
		if rv.cols[0].T.Kind == types.KindStruct {
			if i := rv.cols[0].T.FieldIndex(name); i >= 0 {
				return &expr.Call{Fn: "field", Args: []expr.Expr{&sym{rv: rv, idx: 0, T: rv.cols[0].T}}, Idx: i, T: rv.cols[0].T.Fields[i].Type}
			}
		}
	}
	return nil
}

// member resolves alias.rest.
func (b *binder) member(rv *rangeVar, rest []string, pos int) expr.Expr {
	if rv.value {
		return b.fields(valueOf(rv), rest, pos)
	}
	switch rv.kind {
	case rvScan, rvPath:
		srv, path := rv, rest[0]
		if rv.kind == rvPath {
			srv, path = rv.scanRV, rv.prefix+"."+rest[0]
		}
		t, _, ok := fieldOf(srv, path)
		if !ok {
			t = types.Null
		}
		return b.fields(scanField(srv, path, t, false), rest[1:], pos)
	case rvPlan, rvConst, rvView:
		x := b.columnOf(rv, rest[0])
		b.refuseTwice(rv, rest[0], pos)
		if x == nil && rv.open {
			x = unknownColumn()
		}
		if x == nil {
			b.fail(pos, "%s has no column %s", rv.alias, rest[0])
		}
		return b.fields(x, rest[1:], pos)
	}
	return b.fields(&sym{rv: rv, idx: 0, T: rv.cols[0].T, nm: rv.cols[0].Name}, rest, pos)
}

// rowValue is a range variable used as a value: its element, or a STRUCT of its row.
func (b *binder) rowValue(rv *rangeVar, pos int) expr.Expr {
	if rv.value {
		return valueOf(rv)
	}
	if rv.kind == rvElem {
		return &sym{rv: rv, idx: 0, T: rv.cols[0].T, nm: rv.cols[0].Name}
	}
	var args []expr.Expr
	var fields []types.Field
	for _, it := range b.rangeVarColumns(rv) {
		args = append(args, it.expr)
		name := it.name
		if strings.HasPrefix(name, "$col") {
			name = "" // an anonymous column is an anonymous field
		}
		fields = append(fields, types.Field{Name: name, Type: it.expr.Type()})
	}
	if len(args) == 0 && rv.kind == rvPath {
		// A path with no field known yet (at load, before any data: an
		// UNNEST of what may be an array): a field no event has, NULL.
		return scanField(rv.scanRV, rv.prefix, types.Null, false)
	}
	return b.finish(pos, &expr.Call{Fn: "make_struct", Args: args, T: types.StructOf(fields...)})
}

// fields applies struct field accesses.
func (b *binder) fields(x expr.Expr, names []string, pos int) expr.Expr {
	for _, n := range names {
		x = b.field(x, n, pos)
	}
	return x
}

func (b *binder) field(x expr.Expr, name string, pos int) expr.Expr {
	t := x.Type()
	switch t.Kind {
	case types.KindStruct:
		i := t.FieldIndex(name)
		if i < 0 {
			b.fail(pos, "field %s not found in %s", name, t)
		}
		return b.finish(pos, &expr.Call{Fn: "field", Args: []expr.Expr{x}, Idx: i, T: t.Fields[i].Type})
	case types.KindNull:
		return &expr.Const{V: types.NullOf(types.Null)}
	case types.KindJSON: // j.name is j['name'] (sqlfunc/funcs_jsontype.go)
		return b.finish(pos, &expr.Call{Fn: "json_subscript", Args: []expr.Expr{x, &expr.Const{V: types.StringValue(name)}}})
	case types.KindArray:
		if b.flatten {
			return b.pathField(x, name, pos) // bind_flatten.go
		}
		b.fail(pos, "cannot access field %s on a value of type %s; use UNNEST (or FLATTEN)", name, t)
	}
	b.fail(pos, "cannot access field %s on a value of type %s", name, t)
	return nil
}

// aliasValue is a select-list item's value read by name in another clause,
// which computes it again: refused for a volatile one (RAND() AS r), whose
// second draw would differ from the value the row shows.
func (b *binder) aliasValue(it selItem, where string, pos int) expr.Expr {
	if it.expr != nil && expr.IsVolatile(it.expr) {
		b.fail(pos, "%s cannot read %s: it calls a volatile function (RAND), which would be drawn again; filter or order by it in an enclosing query", where, it.name)
	}
	return it.expr
}

package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Merging simple CTEs into the query that reads them (view merging).
//
// A CTE that reads one log source, filters it and lists some of its
// top-level columns as they are, such as each of logs.all's nine
//
//	select t.timestamp, t.id, t.event_message, t.metadata
//	from retention, `cloudflare.logs.prod` as t where t.project = @project …
//
// (or that also unnests the source's stored nested objects, as logs.all's
// function_edge_logs filters on `m.project_ref` through
// `CROSS JOIN UNNEST(t.metadata) AS m`: a path with a presence filter, which
// adds no rows; its columns must then be qualified by the source's alias) is
// bound into the query that reads it rather than as a plan of its own:
// its source becomes a scan of that query, its WHERE joins the conditions
// of the FROM item it stands in (the query's WHERE, or the filter of a side
// an outer join pads with NULLs: bind_from.go), and the name the query gives it (rvView) shows exactly the CTE's
// columns, read from the scan. A caller's
// `CROSS JOIN UNNEST(t.metadata) AS m CROSS JOIN UNNEST(m.response) AS r`
// then binds as stored paths (metadata.response.status_code), as it does
// straight against a source, instead of materialising every row's whole
// metadata STRUCT (400 ms against 0.8 ms at 200k events). The rows are the
// same by construction: an inner or cross join with a filtered source is
// the source filtered.

// mergeableCTE returns the column names of a CTE that can be merged, and
// the name of its one source, or ok false.
func mergeableCTE(def *cteDef) (cols []string, ok bool) {
	q := def.cte.Query
	if len(q.With) > 0 || len(q.OrderBy) > 0 || q.Limit != nil || q.Offset != nil {
		return nil, false
	}
	sel, isSel := q.Body.(*sqlparse.Select)
	if !isSel || sel.Distinct || sel.As != "" || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Qualify != nil || sel.From == nil {
		return nil, false
	}
	// FROM: one source, beside CTEs (constant ones, like retention, are all
	// this accepts: checked once bound), by commas or CROSS JOIN.
	var alias string
	sources, unnests := 0, 0
	var walk func(f sqlparse.FromItem) bool
	walk = func(f sqlparse.FromItem) bool {
		switch f := f.(type) {
		case *sqlparse.TableRef:
			if def.env.lookup(f.Name) != nil {
				return true
			}
			sources++
			alias = tableAlias(f)
			return true
		case *sqlparse.Join:
			if f.Kind != sqlparse.JoinComma && f.Kind != sqlparse.JoinCross {
				return false
			}
			return walk(f.Left) && walk(f.Right)
		case *sqlparse.UnnestRef:
			// mergeCTE gives up once bound unless it is a stored object.
			unnests++
			return !f.WithOffset
		}
		return false
	}
	if !walk(sel.From) || sources != 1 {
		return nil, false
	}
	// SELECT: the source's own top-level columns, unrenamed.
	for _, it := range sel.Items {
		id, isID := it.Expr.(*sqlparse.Ident)
		if it.Star || !isID {
			return nil, false
		}
		parts := id.Parts
		if len(parts) == 2 && strings.EqualFold(parts[0], alias) {
			parts = parts[1:]
		} else if unnests > 0 {
			// Beside an UNNEST an unqualified name may be a field of the
			// unnested object (m.project_ref as project_ref), which a view
			// column, read from the source's top level, is not.
			return nil, false
		}
		if len(parts) != 1 || (it.Alias != "" && !strings.EqualFold(it.Alias, parts[0])) {
			return nil, false
		}
		for _, c := range cols {
			if strings.EqualFold(c, parts[0]) {
				return nil, false // a column listed twice
			}
		}
		cols = append(cols, parts[0])
	}
	return cols, true
}

// mergeCTE binds a mergeable CTE read as alias into sc and where, or
// returns nil when it cannot (then the caller binds it as a plan).
func (b *binder) mergeCTE(def *cteDef, cols []string, alias string, sc *scope, where *[]expr.Expr) (tree *fromTree, ok bool) {
	sel := def.cte.Query.Body.(*sqlparse.Select)
	src, caller := b.src, b.caller
	outer, collect := b.outer, b.collect
	b.src, b.caller = def.src, def.caller
	b.outer, b.collect = nil, nil
	defer func() { b.src, b.caller, b.outer, b.collect = src, caller, outer, collect }()
	// The CTE's own names (its source's alias, retention) are bound in a
	// scope of their own and never reach the reading query's.
	own := &scope{env: def.env}
	var conds []expr.Expr
	tree = b.from(sel.From, def.env, own, &conds)
	var scanRV *rangeVar
	for _, rv := range own.vars {
		switch rv.kind {
		case rvScan:
			scanRV = rv
		case rvConst, rvPath:
		default:
			return nil, false // a CTE with rows of its own: not merged
		}
	}
	if scanRV == nil || tree == nil || tree.rv != scanRV {
		return nil, false
	}
	for _, rv := range own.vars {
		if rv.kind == rvPath && rv.scanRV != scanRV {
			return nil, false
		}
	}
	if sel.Where != nil {
		conds = append(conds, expr.SplitAnd(b.boolExpr(sel.Where, &exprCtx{sc: own}, "WHERE"))...)
	}
	*where = append(*where, conds...)
	sc.vars = append(sc.vars, &rangeVar{alias: strings.ToLower(alias), kind: rvView, scanRV: scanRV, scan: scanRV.scan, table: scanRV.table, view: cols})
	return tree, true
}

// viewColumn returns the CTE column name matches, or "".
func (rv *rangeVar) viewColumn(name string) string {
	for _, c := range rv.view {
		if strings.EqualFold(c, name) {
			return c
		}
	}
	return ""
}

// viewField is a merged CTE's column: the field of its source.
func viewField(rv *rangeVar, col string) *sym {
	t, _, ok := fieldOf(rv.scanRV, col)
	if !ok {
		t = types.Null
	}
	return scanField(rv.scanRV, col, t, false)
}

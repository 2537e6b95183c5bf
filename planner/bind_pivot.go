package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// PIVOT, as BigQuery defines it: `from_item PIVOT (agg [AS a], … FOR expr
// IN (value [AS v], …))` groups the from item by its columns that neither
// an aggregate nor the FOR expression reads, and makes one column per
// value and aggregate (values outer, aggregates inner), each aggregating
// the rows whose FOR expression IS NOT DISTINCT FROM the value. It is
// bound as the query BigQuery's own rewrite makes of it:
//
//	SELECT g1, …, agg(IF(expr IS NOT DISTINCT FROM value, arg, NULL)) AS a_v, …
//	FROM from_item GROUP BY g1, …
//
// with COUNT(*) as COUNTIF(expr IS NOT DISTINCT FROM value). That holds
// for aggregates that skip NULL arguments; ARRAY_AGG needs IGNORE NULLS,
// and APPROX_TOP_COUNT/SUM (which count NULL) are refused. A column is
// named `a_v` (just `v` when the aggregate has no alias; with several
// aggregates each needs one). A value without an alias is named from its
// value, converted to the FOR expression's type (pivotColumnName).
func (b *binder) pivot(f *sqlparse.PivotRef, env *cteEnv) Node {
	star := &sqlparse.Query{At: f.At, Body: &sqlparse.Select{At: f.At,
		Items: []*sqlparse.SelectItem{{At: f.At, Star: true}}, From: f.From}}
	cols := b.query(star, env).Columns()
	// The names the aggregates and the FOR expression read, bare or
	// qualified by the from item's alias.
	alias := strings.ToLower(fromAlias(f.From))
	used := map[string]bool{}
	mark := func(n sqlparse.Node) {
		rowNames(n, func(id *sqlparse.Ident) { // a subquery's names are its own FROM's
			used[strings.ToLower(id.Parts[0])] = true
			if len(id.Parts) > 1 && strings.ToLower(id.Parts[0]) == alias {
				used[strings.ToLower(id.Parts[1])] = true
			}
		})
	}
	for _, a := range f.Aggs {
		mark(a)
	}
	mark(f.For)
	sel := &sqlparse.Select{At: f.At, From: f.From}
	for _, c := range cols {
		if !used[strings.ToLower(c.Name)] {
			g := &sqlparse.Ident{At: f.At, Parts: []string{c.Name}}
			sel.Items = append(sel.Items, &sqlparse.SelectItem{At: f.At, Expr: g, Alias: c.Name})
			sel.GroupBy = append(sel.GroupBy, g)
		}
	}
	if len(f.Aggs) > 1 {
		for i, a := range f.Aggs {
			if f.AggAs[i] == "" {
				b.fail(a.At, "PIVOT with several aggregates needs an alias for each")
			}
		}
	}
	// The FOR expression's type, to which each value converts.
	forQ := &sqlparse.Query{At: f.At, Body: &sqlparse.Select{At: f.At,
		Items: []*sqlparse.SelectItem{{At: f.At, Expr: f.For}}, From: f.From}}
	forT := b.query(forQ, env).Columns()[0].T
	for vi, v := range f.Values {
		value := b.pivotValue(v, forT)
		match := &sqlparse.IsNull{At: v.Pos(), X: f.For, Not: true, Value: "DISTINCT FROM", From: v}
		for ai, a := range f.Aggs {
			col := ""
			if f.AggAs[ai] != "" {
				col = f.AggAs[ai] + "_"
			}
			if f.As[vi] != "" {
				col += f.As[vi]
			} else {
				named, ok := pivotColumnName(col, value)
				if !ok {
					b.fail(v.Pos(), "PIVOT values of type %s need an alias (AS name)", value.T)
				}
				col = named
			}
			sel.Items = append(sel.Items, &sqlparse.SelectItem{At: a.At, Expr: b.pivotCall(a, match), Alias: col})
		}
	}
	if len(sel.GroupBy) == 0 {
		sel.GroupBy = nil // one row over the whole input
	}
	return b.query(&sqlparse.Query{At: f.At, Body: sel}, env)
}

// pivotCall is aggregate a restricted to the rows where match holds.
func (b *binder) pivotCall(a *sqlparse.Call, match sqlparse.Expr) sqlparse.Expr {
	name := strings.ToLower(a.Name)
	switch {
	case !expr.IsAggregate(name):
		b.fail(a.At, "PIVOT needs an aggregate function, not %s", strings.ToUpper(a.Name))
	case a.Having != "":
		// Its maximum would be taken over every value's rows, not the
		// pivot value's; BigQuery refuses it too.
		b.fail(a.At, "HAVING %s is not supported in a PIVOT aggregate", a.Having)
	case a.Where != nil:
		b.fail(a.Where.Pos(), "WHERE is not supported in a PIVOT aggregate")
	case a.Star:
		return &sqlparse.Call{At: a.At, Name: "COUNTIF", Args: []sqlparse.Expr{match}}
	case name == "approx_top_count" || name == "approx_top_sum":
		b.fail(a.At, "%s is not supported as a PIVOT aggregate", strings.ToUpper(a.Name))
	case name == "array_agg" && a.Nulls != "IGNORE":
		b.fail(a.At, "ARRAY_AGG as a PIVOT aggregate needs IGNORE NULLS")
	case a.Nulls == "RESPECT":
		b.fail(a.At, "RESPECT NULLS is not supported in a PIVOT aggregate")
	}
	wrap := 1 // the arguments a row's value is read from
	switch name {
	case "corr", "covar_pop", "covar_samp":
		wrap = 2
	}
	out := *a
	out.Args = append([]sqlparse.Expr(nil), a.Args...)
	for i := 0; i < wrap && i < len(out.Args); i++ {
		out.Args[i] = &sqlparse.Call{At: a.At, Name: "IF", Args: []sqlparse.Expr{match, a.Args[i], &sqlparse.Literal{At: a.At, Kind: sqlparse.LitNull, Value: "NULL"}}}
	}
	return &out
}

// pivotValue binds a PIVOT value: a constant, converted to the type of
// the FOR expression.
func (b *binder) pivotValue(v sqlparse.Expr, forT types.Type) types.Value {
	x := b.expr(v, &exprCtx{sc: &scope{}})
	if forT.Kind != types.KindNull {
		c, err := coerceLiteral(x, forT)
		if err != nil {
			b.fail(v.Pos(), "PIVOT value: %v", err)
		}
		x = c
	}
	k, ok := x.(*expr.Const)
	if !ok {
		if b.symbolic {
			return types.NullOf(forT)
		}
		b.fail(v.Pos(), "a PIVOT value must be a constant")
	}
	return k.V
}

// pivotColumnName appends to prefix (an aggregate's alias and "_", or "")
// the name BigQuery makes of a PIVOT value without an alias: NULL; an
// INT64, NUMERIC or BOOL as CAST to STRING writes it, "-" as "minus_",
// "." as "_point_", after "_" when it would start the name with a digit;
// a STRING's text ("empty_string_value" when empty); a DATE as _2024_05_01
// (its "_" only when it starts the name). ok is false for other types,
// which need an alias.
func pivotColumnName(prefix string, v types.Value) (string, bool) {
	if v.Null {
		return prefix + "NULL", true
	}
	switch v.T.Kind {
	case types.KindInt64, types.KindNumeric, types.KindBigNumeric, types.KindBool:
		s, _ := types.Cast(v, types.String)
		text := s.S
		if prefix == "" && text[0] >= '0' && text[0] <= '9' {
			prefix = "_"
		}
		return prefix + strings.NewReplacer("-", "minus_", ".", "_point_").Replace(text), true
	case types.KindString:
		if v.S == "" {
			if prefix != "" {
				prefix += "_"
			}
			return prefix + "empty_string_value", true
		}
		return prefix + v.S, true
	case types.KindDate:
		d := strings.ReplaceAll(types.FormatDate(v.I), "-", "_")
		if prefix == "" {
			prefix = "_"
		}
		return prefix + d, true
	}
	return "", false
}

// fromAlias is the name a from item's columns can be qualified with.
func fromAlias(f sqlparse.FromItem) string {
	switch f := f.(type) {
	case *sqlparse.TableRef:
		return tableAlias(f)
	case *sqlparse.SubqueryRef:
		return f.Alias
	case *sqlparse.UnnestRef:
		return f.Alias
	case *sqlparse.UnpivotRef:
		return f.Alias
	case *sqlparse.PivotRef:
		return f.Alias
	case *sqlparse.SampleRef:
		return fromAlias(f.From) // the sampled item's, which its sample keeps
	}
	return ""
}

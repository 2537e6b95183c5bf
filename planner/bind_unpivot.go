package planner

import (
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// UNPIVOT, as BigQuery defines it: `from_item UNPIVOT [INCLUDE NULLS |
// EXCLUDE NULLS] (values FOR name IN (sets))` rotates the columns of each
// set into rows. The result has the from item's other columns (in their
// order), then the values column(s), then the name column, which holds
// each set's label: the one written (all STRING or all INT64 literals; an
// INT64 label for every set), else the set's column names joined by "_".
// By default (EXCLUDE NULLS) a row whose values are all NULL is dropped.
// The columns of one position in the sets must have the same type (no
// coercion, as in BigQuery; a field never seen, of type NULL, takes the
// others' type). A column named to unpivot is resolved as a query would
// resolve it (a source's field no event has yet is a NULL column). It is
// bound as a UNION ALL of one projection of the from item per set, so the
// from item is read once per set.
func (b *binder) unpivot(f *sqlparse.UnpivotRef, env *cteEnv) Node {
	// The input is `SELECT *, c1, c2, … FROM from_item` with each column
	// to unpivot named on its own: a field of a source that no event has
	// yet is not in * but is a column (of type NULL), as in a query.
	var rotatedNames []string
	pos := map[string]int{} // lower-case rotated name → its column in the input
	for _, set := range f.Sets {
		for _, name := range set.Cols {
			if _, ok := pos[strings.ToLower(name)]; !ok {
				pos[strings.ToLower(name)] = len(rotatedNames)
				rotatedNames = append(rotatedNames, name)
			}
		}
	}
	input := func() Node {
		items := []*sqlparse.SelectItem{{At: f.At, Star: true}}
		for _, name := range rotatedNames {
			items = append(items, &sqlparse.SelectItem{At: f.At, Expr: &sqlparse.Ident{At: f.At, Parts: []string{name}}, Alias: name})
		}
		return b.query(&sqlparse.Query{At: f.At, Body: &sqlparse.Select{At: f.At, Items: items, From: f.From}}, env)
	}
	in := input()
	cols := in.Columns()
	stars := len(cols) - len(rotatedNames)
	col := func(name string) int { return stars + pos[strings.ToLower(name)] }
	seen := map[string]bool{}
	for _, c := range cols[:stars] {
		k := strings.ToLower(c.Name)
		if _, rotated := pos[k]; rotated && seen[k] {
			b.fail(f.At, "UNPIVOT: column %s is ambiguous: its input has two of that name", c.Name)
		}
		seen[k] = true
	}
	// The values and name columns' names must differ from each other and
	// from the columns unpivoted.
	outNames := map[string]bool{strings.ToLower(f.Name): true}
	for _, v := range f.Values {
		if outNames[strings.ToLower(v)] {
			b.fail(f.At, "UNPIVOT: the name %s is used twice for its new columns", v)
		}
		outNames[strings.ToLower(v)] = true
	}
	sets := make([][]int, len(f.Sets))
	labelKind := types.KindString
	if f.Sets[0].Label != nil && f.Sets[0].Label.Kind == sqlparse.LitInt {
		labelKind = types.KindInt64
	}
	for si, set := range f.Sets {
		if len(set.Cols) != len(f.Values) {
			b.fail(set.At, "UNPIVOT: this set has %d columns for %d values columns", len(set.Cols), len(f.Values))
		}
		seen := map[string]bool{}
		for _, name := range set.Cols {
			k := strings.ToLower(name)
			if seen[k] {
				b.fail(set.At, "UNPIVOT: column %s appears twice in one set", name)
			}
			if outNames[k] {
				b.fail(set.At, "UNPIVOT: %s is both a column to unpivot and a new column's name", name)
			}
			seen[k] = true
			sets[si] = append(sets[si], col(name))
		}
		switch {
		case set.Label == nil && labelKind == types.KindInt64:
			b.fail(set.At, "UNPIVOT: with INT64 labels every set needs one")
		case set.Label != nil && (set.Label.Kind == sqlparse.LitInt) != (labelKind == types.KindInt64):
			b.fail(set.At, "UNPIVOT: the labels must all be STRING or all INT64 literals")
		}
	}
	// Each values column's type: the one type of its position in the sets.
	valueTypes := make([]types.Type, len(f.Values))
	for j := range f.Values {
		t := types.Null
		for si, set := range sets {
			ct := cols[set[j]].T
			switch {
			case ct.Kind == types.KindNull:
			case t.Kind == types.KindNull:
				t = ct
			case !ct.Equal(t):
				b.fail(f.Sets[si].At, "UNPIVOT: column %s is %s but the columns it is unpivoted with are %s", cols[set[j]].Name, ct, t)
			}
		}
		valueTypes[j] = t
	}
	var outCols []Column
	var rest []int
	for i, c := range cols[:stars] {
		if _, rotated := pos[strings.ToLower(c.Name)]; !rotated {
			rest = append(rest, i)
			outCols = append(outCols, c)
		}
	}
	for j, v := range f.Values {
		outCols = append(outCols, Column{Name: v, T: valueTypes[j]})
	}
	outCols = append(outCols, Column{Name: f.Name, T: types.Type{Kind: labelKind}})
	var inputs []Node
	for si, set := range sets {
		if si > 0 {
			in = input() // plans share no nodes
		}
		p := &Project{In: in, Cols: outCols}
		for _, i := range rest {
			p.Exprs = append(p.Exprs, &expr.ColRef{Idx: i, T: cols[i].T, Name: cols[i].Name})
		}
		var allNull expr.Expr
		for j, i := range set {
			v, err := expr.CoerceTo(&expr.ColRef{Idx: i, T: cols[i].T, Name: cols[i].Name}, valueTypes[j])
			if err != nil {
				b.fail(f.Sets[si].At, "UNPIVOT: %v", err)
			}
			p.Exprs = append(p.Exprs, v)
			isNull := b.call(f.At, "is_null", []expr.Expr{&expr.ColRef{Idx: len(rest) + j, T: valueTypes[j], Name: f.Values[j]}})
			if allNull == nil {
				allNull = isNull
			} else {
				allNull = b.call(f.At, "and", []expr.Expr{allNull, isNull})
			}
		}
		label, err := unpivotLabel(f.Sets[si], labelKind)
		if err != nil {
			b.fail(f.Sets[si].At, "UNPIVOT: label %s: %v", f.Sets[si].Label.Value, err)
		}
		p.Exprs = append(p.Exprs, &expr.Const{V: label})
		var n Node = p
		if !f.IncludeNulls {
			n = &Filter{In: p, Cond: b.call(f.At, "not", []expr.Expr{allNull})}
		}
		inputs = append(inputs, n)
	}
	if len(inputs) == 1 {
		return inputs[0]
	}
	return &Union{Inputs: inputs, Cols: outCols}
}

// unpivotLabel is a set's value in the name column.
func unpivotLabel(set *sqlparse.UnpivotSet, kind types.Kind) (types.Value, error) {
	switch {
	case set.Label == nil:
		return types.StringValue(strings.Join(set.Cols, "_")), nil
	case kind == types.KindInt64:
		return types.Cast(types.StringValue(set.Label.Value), types.Int64)
	}
	return types.StringValue(set.Label.Value), nil
}

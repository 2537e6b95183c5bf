package planner

import (
	"fmt"
	"strings"

	"logq/expr"
	"logq/sqlparse"
	"logq/types"
)

// Set operations that pair columns by name (BY NAME, CORRESPONDING), as
// BigQuery defines them. A chain of one such operation is n-ary: its final
// column names come from all its inputs at once, by the mode —
//
//   - STRICT (BY NAME, STRICT CORRESPONDING): every input has the same
//     names, in any order; the first input's order;
//   - INNER (CORRESPONDING, INNER … BY NAME): the names every input has,
//     in the first input's order; at least one;
//   - LEFT: the first input's names; every other input shares one;
//   - FULL: every name, in order of first appearance;
//
// or, with ON (…)/BY (…), the list itself, which each input must hold as
// the mode says (all of it, for STRICT exactly it). Names compare without
// case and keep the spelling they are first written with. Each input is
// then projected onto the final names (NULL where it has none, which
// takes the column's type from the others) and the inputs combine by
// position, left to right.

// setOpByName binds the chain of set operations s ends, pairing columns by
// name.
func (b *binder) setOpByName(s *sqlparse.SetOp, env *cteEnv) Node {
	var items []sqlparse.SetExpr
	first := s // the chain's first operation, whose ON/BY list spells the names
	for x := s; ; {
		items = append([]sqlparse.SetExpr{x.Right}, items...)
		first = x
		l, ok := x.Left.(*sqlparse.SetOp)
		if !ok || setOpKey(l) != setOpKey(s) {
			items = append([]sqlparse.SetExpr{x.Left}, items...)
			break
		}
		x = l
	}
	inputs := make([]Node, len(items))
	for i, it := range items {
		inputs[i] = b.setExpr(it, env)
	}
	names, err := finalSetNames(s, first.Names, inputs)
	if err != nil {
		b.fail(s.At, "%v", err)
	}
	out := projectByName(inputs[0], names)
	for _, in := range inputs[1:] {
		out = b.combine(s, out, projectByName(in, names))
	}
	return out
}

// setMatchMode is the effective mode of a name-matching set operation:
// STRICT, INNER, LEFT or FULL.
func setMatchMode(s *sqlparse.SetOp) string {
	switch {
	case s.Match == "STRICT CORRESPONDING", s.Match == "BY NAME" && s.Mode == "":
		return "STRICT"
	case s.Mode == "":
		return "INNER" // CORRESPONDING
	}
	return s.Mode
}

// inputNames are an input's column names, by their lower-case spelling.
type inputNames struct {
	names []string       // as written, in order
	index map[string]int // lower case → column
	dup   map[string]bool
}

func namesOf(n Node) inputNames {
	in := inputNames{index: map[string]int{}, dup: map[string]bool{}}
	for i, c := range n.Columns() {
		k := strings.ToLower(c.Name)
		if _, seen := in.index[k]; seen {
			in.dup[k] = true
			continue
		}
		in.names = append(in.names, c.Name)
		in.index[k] = i
	}
	return in
}

func (in inputNames) has(name string) bool { _, ok := in.index[strings.ToLower(name)]; return ok }

// finalSetNames computes the output column names of the chain s ends,
// whose ON/BY list is list (as its first operation spells it).
func finalSetNames(s *sqlparse.SetOp, list []string, inputs []Node) ([]string, error) {
	mode, how := setMatchMode(s), s.Match
	all := make([]inputNames, len(inputs))
	for i, n := range inputs {
		all[i] = namesOf(n)
	}
	label := func(i int) string { return fmt.Sprintf("input %d", i+1) }
	if len(list) > 0 {
		listed := map[string]bool{}
		for _, n := range list {
			k := strings.ToLower(n)
			if listed[k] {
				return nil, fmt.Errorf("column %s appears twice in the %s list", n, how)
			}
			listed[k] = true
		}
		for i, in := range all {
			for k := range in.dup {
				if listed[k] {
					return nil, fmt.Errorf("column %s of the %s list appears more than once in %s", k, how, label(i))
				}
			}
			switch mode {
			case "INNER":
				for _, n := range list {
					if !in.has(n) {
						return nil, fmt.Errorf("column %s of the %s list is not in %s (every input must have it unless FULL or LEFT is given)", n, how, label(i))
					}
				}
			case "STRICT":
				if len(in.names) != len(list) || len(in.dup) > 0 {
					return nil, fmt.Errorf("%s must have exactly the columns of the %s list", label(i), how)
				}
				for _, n := range list {
					if !in.has(n) {
						return nil, fmt.Errorf("%s must have exactly the columns of the %s list", label(i), how)
					}
				}
			}
		}
		for _, n := range list {
			switch {
			case mode == "LEFT" && !all[0].has(n):
				return nil, fmt.Errorf("column %s of the LEFT %s list is not in input 1", n, how)
			case mode == "FULL" && !anyHas(all, n):
				return nil, fmt.Errorf("column %s of the %s list is in no input", n, how)
			}
		}
		return list, nil
	}
	for i, n := range inputs {
		for j, c := range n.Columns() {
			if strings.HasPrefix(c.Name, "$col") {
				return nil, fmt.Errorf("%s: column %d of %s has no name", how, j+1, label(i))
			}
		}
		for k := range all[i].dup {
			return nil, fmt.Errorf("%s: column %s appears more than once in %s", how, k, label(i))
		}
	}
	first := all[0]
	switch mode {
	case "STRICT":
		for i, in := range all[1:] {
			if len(in.names) != len(first.names) || !allHave(in, first.names) {
				return nil, fmt.Errorf("%s needs the same column names in every input: input 1 has %s, %s has %s",
					how, strings.Join(first.names, ", "), label(i+1), strings.Join(in.names, ", "))
			}
		}
		return first.names, nil
	case "INNER":
		var out []string
		for _, n := range first.names {
			if allInputsHave(all, n) {
				out = append(out, n)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("the inputs of %s have no column name in common", how)
		}
		return out, nil
	case "LEFT":
		for i, in := range all[1:] {
			if !anyOf(in, first.names) {
				return nil, fmt.Errorf("%s of LEFT %s shares no column name with input 1", label(i+1), how)
			}
		}
		return first.names, nil
	}
	// FULL
	var out []string
	seen := map[string]bool{}
	for _, in := range all {
		for _, n := range in.names {
			if k := strings.ToLower(n); !seen[k] {
				seen[k] = true
				out = append(out, n)
			}
		}
	}
	return out, nil
}

func anyHas(all []inputNames, n string) bool {
	for _, in := range all {
		if in.has(n) {
			return true
		}
	}
	return false
}

func allInputsHave(all []inputNames, n string) bool {
	for _, in := range all {
		if !in.has(n) {
			return false
		}
	}
	return true
}

func allHave(in inputNames, names []string) bool {
	for _, n := range names {
		if !in.has(n) {
			return false
		}
	}
	return true
}

func anyOf(in inputNames, names []string) bool {
	for _, n := range names {
		if in.has(n) {
			return true
		}
	}
	return false
}

// projectByName selects n's columns named names, in that order, with an
// untyped NULL for a name n lacks.
func projectByName(n Node, names []string) Node {
	in := namesOf(n)
	p := &Project{In: n}
	cols := n.Columns()
	// Over a projection, select its expressions themselves: a literal
	// stays one, and converts as a literal does (coerceSetColumn).
	under, _ := n.(*Project)
	if under != nil {
		p.In = under.In
	}
	for _, name := range names {
		i, ok := in.index[strings.ToLower(name)]
		switch {
		case !ok:
			p.Exprs = append(p.Exprs, &expr.Const{V: types.NullOf(types.Null)})
			p.Cols = append(p.Cols, Column{Name: name, T: types.Null})
			continue
		case under != nil:
			p.Exprs = append(p.Exprs, under.Exprs[i])
		default:
			p.Exprs = append(p.Exprs, &expr.ColRef{Idx: i, T: cols[i].T, Name: cols[i].Name})
		}
		p.Cols = append(p.Cols, Column{Name: name, T: cols[i].T})
	}
	return p
}

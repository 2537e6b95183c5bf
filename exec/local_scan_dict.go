package exec

import (
	"logq/expr"
	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// A filter conjunct that reads a single STRING field (REGEXP_CONTAINS(url,
// @project), LIKE, a comparison) gives one answer per distinct value. On a
// dictionary column the scan evaluates it once per dictionary entry and then
// keeps rows by their code, instead of once per row.

// valuePred is such a conjunct.
type valuePred struct {
	field int
	expr  expr.Expr
}

// splitValuePreds separates single-STRING-field conjuncts from the rest.
func splitValuePreds(p *planner.Scan) (preds []valuePred, rest []expr.Expr) {
	if p.Filter == nil {
		return nil, nil
	}
	for _, c := range conjuncts(p.Filter) {
		used := map[int]bool{}
		colsRead(c, used)
		if len(used) == 1 {
			for f := range used {
				if sf := p.Fields[f]; !sf.Presence && sf.T.Kind == types.KindString {
					preds = append(preds, valuePred{field: f, expr: c})
					goto next
				}
			}
		}
		rest = append(rest, c)
	next:
	}
	return preds, rest
}

func conjuncts(e expr.Expr) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn == "and" {
		return append(conjuncts(c.Args[0]), conjuncts(c.Args[1])...)
	}
	return []expr.Expr{e}
}

func andAll(es []expr.Expr) expr.Expr {
	var out expr.Expr
	for _, e := range es {
		if out == nil {
			out = e
		} else {
			out = &expr.Call{Fn: "and", Args: []expr.Expr{out, e}, T: types.Bool}
		}
	}
	return out
}

// colsRead adds the input columns e reads to used.
func colsRead(e expr.Expr, used map[int]bool) {
	if c, ok := e.(*expr.ColRef); ok {
		used[c.Idx] = true
		return
	}
	for _, c := range e.Children() {
		colsRead(c, used)
	}
}

// dictMask is a value predicate answered per dictionary entry of a segment.
type dictMask struct {
	col      *logstore.Column
	keep     []bool // by code
	keepNull bool
}

// evalOnValues evaluates pred over the given values of its field (one row
// each, NULL when null is set) and returns which rows are TRUE.
func (s *scanOp) evalOnValues(pred valuePred, vals []string, null bool) ([]bool, error) {
	n := len(vals)
	if null {
		n = 1
	}
	b := &Batch{N: n, Cols: make([]*Vector, len(s.plan.Fields))}
	v := &Vector{T: types.String, S: vals}
	if null {
		v.S = []string{""}
		v.Null = []bool{true}
	}
	b.Cols[pred.field] = v
	out, err := s.ev.eval(pred.expr, b)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = out.I[i] != 0 && !out.isNull(i)
	}
	return keep, nil
}

// prepareValuePreds decides, for one segment, which value predicates become
// dictionary masks and which stay in the row filter. It reports false when a
// predicate can match no row of the segment.
func (s *scanOp) prepareValuePreds(seg *logstore.Segment) (bool, error) {
	s.masks = s.masks[:0]
	rowPreds := s.restFilter
	for _, p := range s.valuePreds {
		col, err := seg.Column(s.plan.Fields[p.field].Path)
		if err != nil {
			return false, err
		}
		if col != nil && !col.IsDict() {
			rowPreds = append(rowPreds[:len(rowPreds):len(rowPreds)], p.expr)
			continue
		}
		// A predicate that fails on a value (a correlated scalar subquery
		// whose key has two rows, a cast that fails) may fail on a value no
		// row that reaches the filter holds (an expired row's, an entry
		// another conjunct excludes): it is left to the row filter, where
		// only the rows themselves can fail it.
		rowWise := func() {
			rowPreds = append(rowPreds[:len(rowPreds):len(rowPreds)], p.expr)
		}
		nullKeep, err := s.evalOnValues(p, nil, true)
		if err != nil {
			rowWise()
			continue
		}
		if col == nil { // every row NULL
			if !nullKeep[0] {
				return false, nil
			}
			continue
		}
		entries := make([]string, col.DictLen())
		for i := range entries {
			entries[i] = col.DictEntry(uint32(i))
		}
		keep, err := s.evalOnValues(p, entries, false)
		if err != nil {
			rowWise()
			continue
		}
		any := nullKeep[0]
		for _, k := range keep {
			any = any || k
		}
		if !any {
			return false, nil
		}
		s.masks = append(s.masks, dictMask{col: col, keep: keep, keepNull: nullKeep[0]})
	}
	s.segFilter = andAll(rowPreds)
	return true, nil
}

// applyMasks keeps the rows whose codes pass every mask.
func (s *scanOp) applyMasks(rows []int32) []int32 {
	for _, m := range s.masks {
		s.codes = grow(s.codes, len(rows))
		m.col.GatherCodes(rows, s.codes)
		nulls := m.col.HasNulls()
		kept := rows[:0]
		for k, r := range rows {
			if nulls && m.col.IsNull(int(r)) {
				if m.keepNull {
					kept = append(kept, r)
				}
				continue
			}
			if m.keep[s.codes[k]] {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	return rows
}

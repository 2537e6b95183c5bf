package exec

import (
	"strings"
	"weak"

	"logq/expr"
	"logq/logstore"
	"logq/planner"
	"logq/types"
)

// A filter conjunct that reads a single STRING field (REGEXP_CONTAINS(url,
// @project), LIKE, a comparison) gives one answer per distinct value. On a
// dictionary column the scan evaluates it once per dictionary entry and then
// keeps rows by their code, instead of once per row.
//
// Which entries: when a sealed segment's rows in the query's time range are
// at least half its dictionary, every entry at once (eager), which also
// skips a segment whose dictionary matches nothing; when fewer (a short
// window over a segment of many URLs), and in the open segment (whose rows
// are not in time order, so their number in range is not known before they
// are read), only the entries those rows hold, each once, as batches reach
// the mask (lazy): never more entries than eager. So a query pays for the rows
// it reads, not for the size of a segment's dictionary.

// valuePred is such a conjunct.
type valuePred struct {
	field int
	expr  expr.Expr
	key   string // predKey, "" when its masks are not kept across queries
}

// splitValuePreds separates single-STRING-field conjuncts from the rest.
func splitValuePreds(p *planner.Scan) (preds []valuePred, rest []expr.Expr) {
	if p.Filter == nil {
		return nil, nil
	}
	for _, c := range conjuncts(p.Filter) {
		used := map[int]bool{}
		colsRead(c, used)
		if len(used) == 1 && !expr.IsVolatile(c) { // RAND() < 0.5 OR f = 'x' is drawn per row, not per entry
			for f := range used {
				if sf := p.Fields[f]; !sf.Presence && sf.T.Kind == types.KindString {
					var key strings.Builder
					if !predKey(c, &key) {
						key.Reset()
					}
					preds = append(preds, valuePred{field: f, expr: c, key: key.String()})
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
	keep     []uint64 // a bit by code (eager)
	keepNull bool
	// lazy: state by code, entries evaluated as rows bring them.
	lazy   bool
	pred   valuePred
	state  []uint8
	failed bool // an entry failed: the row filter answers the rest
	// kept: the answers kept across queries (local_maskcache.go) under key,
	// asked before evaluating; nil when the predicate's are not kept.
	kept *maskEntry
	key  maskKey
}

// Lazy mask states by code.
const (
	codeUnknown uint8 = iota
	codeKeep
	codeDrop
	codePending // asked for in the batch being answered
)

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
	s.lazyBuf = s.lazyBuf[:0]
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
		path := s.plan.Fields[p.field].Path
		eagerKey, keptEager := keptKey(seg, path, p, maskEager)
		var keep []uint64
		if keptEager {
			// Answered for every entry before: whatever the window.
			keep = dictMasks.get(eagerKey, col.DictLen())
		}
		if est, known := rowsInRange(seg, s.plan.TimeLo, s.plan.TimeHi); keep == nil && (!known || est < col.DictLen()) {
			m := dictMask{col: col, keepNull: nullKeep[0], lazy: true, pred: p, state: s.takeState(col.DictLen())}
			kind := maskLazyOpen
			if seg.Sealed() {
				kind = maskLazySealed
			}
			if key, ok := keptKey(seg, path, p, kind); ok {
				m.kept, m.key = dictMasks.answers(key), key
			}
			s.masks = append(s.masks, m)
			continue
		}
		if keep == nil {
			entries := make([]string, col.DictLen())
			for i := range entries {
				entries[i] = col.DictEntry(uint32(i))
			}
			all, err := s.evalOnValues(p, entries, false)
			if err != nil {
				rowWise()
				continue
			}
			if keep = boolsToBits(all); keptEager {
				dictMasks.put(eagerKey, keep)
			}
		}
		any := nullKeep[0]
		for _, w := range keep {
			any = any || w != 0
		}
		if !any {
			return false, nil
		}
		s.masks = append(s.masks, dictMask{col: col, keep: keep, keepNull: nullKeep[0]})
	}
	s.segFilter = andAll(rowPreds)
	return true, nil
}

// keptKey is the key of p's answers over seg kept across queries
// (local_maskcache.go): a sealed segment's own, for every entry (maskEager)
// or those asked for (maskLazySealed); for a view of an open segment, its
// live segment's (maskLazyOpen: its codes name the same entries in every
// view). False when they are not kept: p's answer may depend on more than
// the value, or seg is neither.
func keptKey(seg *logstore.Segment, path string, p valuePred, kind uint8) (maskKey, bool) {
	switch {
	case p.key == "":
		return maskKey{}, false
	case kind != maskLazyOpen && seg.Sealed():
		return maskKey{seg: weak.Make(seg), path: path, pred: p.key, kind: kind}, true
	case kind == maskLazyOpen && !seg.Sealed() && seg.Live() != seg:
		return maskKey{seg: weak.Make(seg.Live()), path: path, pred: p.key, kind: kind}, true
	}
	return maskKey{}, false
}

// takeState gives a lazy mask n cleared states, from a buffer the scan
// reuses segment after segment.
func (s *scanOp) takeState(n int) []uint8 {
	if cap(s.lazyBuf)-len(s.lazyBuf) < n {
		s.lazyBuf = make([]uint8, 0, max(2*cap(s.lazyBuf), n)) // earlier masks keep the old one
	}
	st := s.lazyBuf[len(s.lazyBuf) : len(s.lazyBuf)+n]
	s.lazyBuf = s.lazyBuf[:len(s.lazyBuf)+n]
	clear(st)
	return st
}

// resolve evaluates a lazy mask's entries that rows (codes) hold and it has
// not answered yet. An entry that fails the predicate hands the mask to the
// row filter (as prepareValuePreds does for an eager one): it reports false.
func (s *scanOp) resolve(m *dictMask, codes []uint32, rows []int32) bool {
	var pending []uint32
	nulls := m.col.HasNulls()
	for k, c := range codes {
		if m.state[c] == codeUnknown && !(nulls && m.col.IsNull(int(rows[k]))) {
			m.state[c] = codePending
			pending = append(pending, c)
		}
	}
	if m.kept != nil && len(pending) > 0 {
		asked := len(pending)
		pending = m.kept.recall(pending, m.state)
		dictMasks.recalled.Add(int64(asked - len(pending)))
	}
	if len(pending) == 0 {
		return true
	}
	entries := make([]string, len(pending))
	for i, c := range pending {
		entries[i] = m.col.DictEntry(c)
	}
	keep, err := s.evalOnValues(m.pred, entries, false)
	if err != nil {
		m.failed = true
		s.segFilter = andAll(append(conjuncts0(s.segFilter), m.pred.expr))
		return false
	}
	for i, c := range pending {
		m.state[c] = codeDrop
		if keep[i] {
			m.state[c] = codeKeep
		}
	}
	if m.kept != nil {
		dictMasks.recharge(m.key, m.kept, m.kept.record(pending, m.state))
	}
	return true
}

// conjuncts0 is conjuncts of a filter that may be nil.
func conjuncts0(e expr.Expr) []expr.Expr {
	if e == nil {
		return nil
	}
	return conjuncts(e)
}

// applyMasks keeps the rows whose codes pass every mask.
func (s *scanOp) applyMasks(rows []int32) []int32 {
	for i := range s.masks {
		m := &s.masks[i]
		if m.failed {
			continue
		}
		s.codes = grow(s.codes, len(rows))
		m.col.GatherCodes(rows, s.codes)
		nulls := m.col.HasNulls()
		if m.lazy {
			if !s.resolve(m, s.codes[:len(rows)], rows) {
				continue
			}
		}
		codes := s.codes[:len(rows)]
		kept := rows[:0]
		switch {
		case nulls:
			for k, r := range rows {
				if m.col.IsNull(int(r)) {
					if m.keepNull {
						kept = append(kept, r)
					}
					continue
				}
				if m.lazy && m.state[codes[k]] == codeKeep || !m.lazy && bitSet(m.keep, codes[k]) {
					kept = append(kept, r)
				}
			}
		case m.lazy:
			// Without a branch per row: a third of the rows kept at random
			// (a project's URLs) mispredicts one branch in three.
			j := 0
			for k, r := range rows {
				rows[j] = r
				j += int(b2i(m.state[codes[k]] == codeKeep))
			}
			kept = rows[:j]
		default:
			j := 0
			for k, r := range rows {
				c := codes[k]
				rows[j] = r
				j += int(m.keep[c>>6] >> (c & 63) & 1)
			}
			kept = rows[:j]
		}
		rows = kept
	}
	return rows
}

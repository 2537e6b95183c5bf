package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// jsonRow is one result row: its columns in the order the JSON gives them
// (the select list's, in the API's rows) and their values, decoded with
// numbers kept as written so integers compare exactly.
type jsonRow struct {
	cols []string
	vals map[string]any
}

// decodeRow reads one JSON object as a row.
func decodeRow(data []byte) (jsonRow, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return jsonRow{}, fmt.Errorf("a row: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return jsonRow{}, errors.New("a row must be a JSON object")
	}
	r := jsonRow{vals: map[string]any{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jsonRow{}, fmt.Errorf("a row: %w", err)
		}
		k, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return jsonRow{}, fmt.Errorf("a row: %w", err)
		}
		if _, dup := r.vals[k]; !dup {
			r.cols = append(r.cols, k)
		}
		r.vals[k] = v
	}
	return r, nil
}

// decodeResult reads the rows of an API answer, {"result": [row, ...]}.
func decodeResult(body []byte) ([]jsonRow, error) {
	var out struct {
		Result []json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("the answer is not {\"result\": [...]}: %w", err)
	}
	rows := make([]jsonRow, 0, len(out.Result))
	for _, raw := range out.Result {
		r, err := decodeRow(raw)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// floatTolerance is the relative difference under which two numbers, one
// of them written with a fraction or an exponent, are equal: an average
// computed in another order differs in its last bits.
const floatTolerance = 1e-9

// equalValue compares JSON values: numbers that are both integers
// exactly, other numbers within floatTolerance, arrays in order, objects
// by their keys.
func equalValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && equalNumber(a, bn)
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equalValue(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !equalValue(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func isInteger(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

func equalNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	if isInteger(a) && isInteger(b) {
		x, okx := new(big.Int).SetString(string(a), 10)
		y, oky := new(big.Int).SetString(string(b), 10)
		return okx && oky && x.Cmp(y) == 0
	}
	x, errx := strconv.ParseFloat(string(a), 64)
	y, erry := strconv.ParseFloat(string(b), 64)
	if errx != nil || erry != nil {
		return false
	}
	return x == y || math.Abs(x-y) <= floatTolerance*math.Max(math.Abs(x), math.Abs(y))
}

// equalRow is true when both rows have the same columns with equal values
// (the columns' order does not matter: JSON objects have none).
func equalRow(w, g jsonRow) bool {
	if len(w.vals) != len(g.vals) {
		return false
	}
	for k, v := range w.vals {
		gv, ok := g.vals[k]
		if !ok || !equalValue(v, gv) {
			return false
		}
	}
	return true
}

// sameColumns counts want's columns that got has with an equal value.
func sameColumns(w, g jsonRow) int {
	n := 0
	for k, v := range w.vals {
		if gv, ok := g.vals[k]; ok && equalValue(v, gv) {
			n++
		}
	}
	return n
}

// formatValue writes a value as compact JSON (object keys sorted).
func formatValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// formatRow writes a row as a JSON object with its columns in order.
func formatRow(r jsonRow) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, c := range r.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(c)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(formatValue(r.vals[c]))
	}
	b.WriteByte('}')
	return b.String()
}

// formatCell is a value in a column difference; an integer of 16 digits,
// which is how the API sends a TIMESTAMP (microseconds since 1970, years
// 2001 to 2286), also shows as the time it is, so a reader sees which
// bucket moved.
func formatCell(v any) string {
	s := formatValue(v)
	if n, ok := v.(json.Number); ok && len(n) == 16 && isInteger(n) {
		if us, err := n.Int64(); err == nil {
			s += " (" + time.UnixMicro(us).UTC().Format(time.RFC3339Nano) + ")"
		}
	}
	return s
}

// columnDiff lists the columns in which got differs from want.
func columnDiff(w, g jsonRow) []string {
	var out []string
	for _, c := range w.cols {
		gv, ok := g.vals[c]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: want %s, got no such column", c, formatCell(w.vals[c])))
		case !equalValue(w.vals[c], gv):
			out = append(out, fmt.Sprintf("%s: want %s, got %s", c, formatCell(w.vals[c]), formatCell(gv)))
		}
	}
	for _, c := range g.cols {
		if _, ok := w.vals[c]; !ok {
			out = append(out, fmt.Sprintf("%s: not in want, got %s", c, formatCell(g.vals[c])))
		}
	}
	return out
}

// rowDiff collects the lines of a failed comparison.
type rowDiff struct{ lines []string }

func (d *rowDiff) changed(wi, gi int, w, g jsonRow) {
	d.lines = append(d.lines, fmt.Sprintf("~ want row %d, got row %d: %s", wi+1, gi+1, formatRow(w)))
	for _, l := range columnDiff(w, g) {
		d.lines = append(d.lines, "    "+l)
	}
}

func (d *rowDiff) missing(wi int, w jsonRow) {
	d.lines = append(d.lines, fmt.Sprintf("- want row %d, missing: %s", wi+1, formatRow(w)))
}

func (d *rowDiff) unexpected(gi int, g jsonRow) {
	d.lines = append(d.lines, fmt.Sprintf("+ got row %d, unexpected: %s", gi+1, formatRow(g)))
}

// compareRows compares a result with the rows wanted. It returns nil when
// they are equal, else the lines that show the difference row by row.
func compareRows(want, got []jsonRow, ord rowOrder) []string {
	if ord.ordered {
		cols := []string(nil)
		if len(got) > 0 {
			cols = got[0].cols
		}
		got = settleTies(want, got, ord.tieColumns(cols))
		if len(want) == len(got) {
			same := true
			for i := range want {
				if !equalRow(want[i], got[i]) {
					same = false
					break
				}
			}
			if same {
				return nil
			}
		}
		if sameMultiset(want, got) {
			return reorderedDiff(want, got)
		}
		return orderedDiff(want, got)
	}
	return multisetDiff(want, got)
}

// orderedDiff aligns the two lists as diff aligns lines: the longest
// common subsequence of equal rows is matched in order; each stretch of
// rows between two matched ones is shown as stretch says.
func orderedDiff(want, got []jsonRow) []string {
	n, m := len(want), len(got)
	eq := make([]bool, n*m)
	lcs := make([]int32, (n+1)*(m+1))
	at := func(i, j int) *int32 { return &lcs[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if equalRow(want[i], got[j]) {
				eq[i*m+j] = true
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	d := &rowDiff{}
	var ws, gs []int // the rows of the current stretch
	flush := func() {
		d.stretch(want, got, ws, gs)
		ws, gs = ws[:0], gs[:0]
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && eq[i*m+j] && *at(i, j) == *at(i+1, j+1)+1:
			flush()
			i, j = i+1, j+1
		case j < m && (i == n || *at(i, j+1) >= *at(i+1, j)):
			gs = append(gs, j)
			j++
		default:
			ws = append(ws, i)
			i++
		}
	}
	flush()
	return d.lines
}

// stretch shows want rows ws and got rows gs that match nothing exactly:
// each want row, in order, pairs with the got row left that has the most
// columns equal to it, when that is at least half of want's columns, and
// shows as changed (the columns that differ); a want row without a pair is
// missing, a got row without one unexpected, shown before the first want
// row paired with a later got row.
func (d *rowDiff) stretch(want, got []jsonRow, ws, gs []int) {
	pairOf := map[int]int{}
	paired := map[int]bool{}
	for _, i := range ws {
		best, bestN := -1, 0
		for _, j := range gs {
			if paired[j] {
				continue
			}
			if n := sameColumns(want[i], got[j]); n > bestN {
				best, bestN = j, n
			}
		}
		if best >= 0 && 2*bestN >= len(want[i].vals) {
			pairOf[i], paired[best] = best, true
		}
	}
	next := 0 // gs[next:] are not shown yet
	for _, i := range ws {
		j, ok := pairOf[i]
		if !ok {
			d.missing(i, want[i])
			continue
		}
		for ; next < len(gs) && gs[next] < j; next++ {
			if !paired[gs[next]] {
				d.unexpected(gs[next], got[gs[next]])
			}
		}
		d.changed(i, j, want[i], got[j])
	}
	for ; next < len(gs); next++ {
		if !paired[gs[next]] {
			d.unexpected(gs[next], got[gs[next]])
		}
	}
}

// reorderedDiff reports a result with every wanted row but in another
// order, by where each misplaced want row was found.
func reorderedDiff(want, got []jsonRow) []string {
	lines := []string{"every wanted row is there, in another order:"}
	used := make([]bool, len(got))
	for i, w := range want {
		for j, g := range got {
			if !used[j] && equalRow(w, g) {
				used[j] = true
				if i != j {
					lines = append(lines, fmt.Sprintf("~ want row %d is got row %d: %s", i+1, j+1, formatRow(w)))
				}
				break
			}
		}
	}
	return lines
}

// multisetDiff matches equal rows first, whatever their places; the rows
// left on both sides are one stretch.
func multisetDiff(want, got []jsonRow) []string {
	usedG := make([]bool, len(got))
	var ws, gs []int
	for i, w := range want {
		found := false
		for j, g := range got {
			if !usedG[j] && equalRow(w, g) {
				usedG[j], found = true, true
				break
			}
		}
		if !found {
			ws = append(ws, i)
		}
	}
	for j := range got {
		if !usedG[j] {
			gs = append(gs, j)
		}
	}
	d := &rowDiff{}
	d.stretch(want, got, ws, gs)
	return d.lines
}

package exec

import "logq/expr"

// codeMemo is a string predicate's answer per code of the dictionary a
// vector was read from (Vector.dict). A batch read from a dictionary
// column holds few distinct values among its rows (the paths of
// api-counts' COUNTIFs), so the predicate runs once per distinct value
// in a segment instead of once per row.
type codeMemo struct {
	dict  Dict
	state []uint8 // per code: 0 not yet asked, 1 false, 2 true
}

// maxMemoCodes bounds a memo's size: a dictionary larger than this is
// matched row by row.
const maxMemoCodes = 1 << 20

// matchRows writes match of each of x's first n strings into out as 0 or
// 1 (a NULL row's answer is any; the caller copies the NULL flags).
func (ev *evaluator) matchRows(c *expr.Call, x *Vector, n int, match func(string) bool, out []int64) {
	if x.dict == nil || x.dict.DictLen() > maxMemoCodes {
		for i, s := range x.S[:n] {
			out[i] = b2i(match(s))
		}
		return
	}
	m := ev.memos[c]
	if m == nil {
		m = &codeMemo{}
		ev.memos[c] = m
	}
	if m.dict != x.dict {
		m.dict = x.dict
		m.state = grow(m.state, x.dict.DictLen())
		clear(m.state)
	}
	for i, code := range x.codes[:n] {
		// A NULL row's code is any entry's and its string is "": it
		// must not answer for the entry.
		if int(code) >= len(m.state) || x.Null != nil && x.Null[i] {
			out[i] = b2i(match(x.S[i]))
			continue
		}
		st := m.state[code]
		if st == 0 {
			st = 1 + uint8(b2i(match(x.S[i])))
			m.state[code] = st
		}
		out[i] = int64(st - 1)
	}
}

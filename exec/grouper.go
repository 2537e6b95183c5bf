package exec

import (
	"logq/types"
)

// grouper numbers the distinct key tuples it is shown, 0, 1, 2, … in order
// of first appearance. GROUP BY and DISTINCT (aggOp, and the merge of its
// parallel partials) and window partitions (windowOp) use it, so a key value
// gets one number however the rows holding it arrive.
//
// Two common shapes skip the byte encoding of appendKey: one integer-like
// key (a time bucket, a status code), kept in an integer map that also
// remembers the last key since rows mostly arrive in time order, and one
// STRING key (a path, a name), whose value is itself the map key. For both,
// NULL is a group of its own. One STRING key is looked up by its value in
// the same map whether its rows come as dictionary codes, plain strings or
// late references (a UNION may mix them); a key of any other shape is
// encoded, and a query's key has one type, so a value always meets the same
// map entry.
type grouper struct {
	n     int // groups numbered so far
	bytes map[string]int32
	ints  map[int64]int32
	nullG int32 // the NULL group of a single key, -1 until seen
	lastK int64
	lastG int32 // the group of lastK, -1 until set
	buf   []byte
	// The group of each code of the dictionary column a single STRING key
	// was last read from (Vector.dict), -1 until met: a segment's rows
	// hash each distinct value once.
	dict  Dict
	dictG []int32
	small []int32  // by value, for integer keys below smallInts: the group, -1 until met
	strs  []string // late references resolved, reused
	rows  []int32  // scratch for strs
}

// smallInts bounds the integer keys grouper numbers through a table.
const smallInts = 1 << 12

func newGrouper() *grouper {
	return &grouper{bytes: map[string]int32{}, ints: map[int64]int32{}, nullG: -1, lastG: -1}
}

// assign writes the group of each of rows [0, n) of keys (at least one) into
// g, grown to n, and appends to fresh the rows that opened a new group.
func (gr *grouper) assign(keys []*Vector, n int, g, fresh []int32) ([]int32, []int32) {
	g = grow(g, n)
	if k := keys[0]; len(keys) == 1 && k.Lazy != nil && (k.T.Kind == types.KindString || k.T.Kind == types.KindBytes) {
		// Late STRING references (planner.ScanField.Late) meet plain strings
		// of the same key from elsewhere (a UNION): the value is the map key
		// either way. References into a dictionary column are grouped by
		// their codes; others are resolved a segment's run at a time.
		if k.dict != nil {
			return gr.assignCodes(k, n, g, fresh)
		}
		gr.strs, gr.rows = k.Lazy.strings(k.I[:n], gr.strs, gr.rows)
		for r, s := range gr.strs[:n] {
			if k.isNull(r) {
				g[r], fresh = gr.null(r, fresh)
				continue
			}
			g[r], fresh = gr.ofString(s, r, fresh)
		}
		return g, fresh
	}
	if len(keys) == 1 && keys[0].Lazy == nil {
		switch k := keys[0]; k.storage() {
		case inInts:
			for r, v := range k.I[:n] {
				switch {
				case k.isNull(r):
					g[r], fresh = gr.null(r, fresh)
				case v == gr.lastK && gr.lastG >= 0:
					g[r] = gr.lastG
				case uint64(v) < smallInts:
					// A small integer (a status code, an hour): a table.
					for int(v) >= len(gr.small) {
						gr.small = append(gr.small, -1)
					}
					id := gr.small[v]
					if id < 0 {
						id = gr.next()
						gr.small[v] = id
						fresh = append(fresh, int32(r))
					}
					g[r] = id
				default:
					id, ok := gr.ints[v]
					if !ok {
						id = gr.next()
						gr.ints[v] = id
						fresh = append(fresh, int32(r))
					}
					gr.lastK, gr.lastG = v, id
					g[r] = id
				}
			}
			return g, fresh
		case inStrings:
			if k.dict != nil {
				return gr.assignCodes(k, n, g, fresh)
			}
			for r, s := range k.S[:n] {
				if k.isNull(r) {
					g[r], fresh = gr.null(r, fresh)
					continue
				}
				g[r], fresh = gr.ofString(s, r, fresh)
			}
			return g, fresh
		}
	}
	for r := 0; r < n; r++ {
		gr.buf = gr.buf[:0]
		for _, v := range keys {
			gr.buf = appendKey(gr.buf, v.Value(r))
		}
		id, ok := gr.bytes[string(gr.buf)]
		if !ok {
			id = gr.next()
			gr.bytes[string(gr.buf)] = id
			fresh = append(fresh, int32(r))
		}
		g[r] = id
	}
	return g, fresh
}

// assignCodes is assign for one STRING key read from a dictionary column,
// as strings or as late references.
func (gr *grouper) assignCodes(k *Vector, n int, g, fresh []int32) ([]int32, []int32) {
	if gr.dict != k.dict {
		gr.dict, gr.dictG = k.dict, gr.dictG[:0]
	}
	for r, c := range k.codes[:n] {
		if k.isNull(r) {
			g[r], fresh = gr.null(r, fresh)
			continue
		}
		for int(c) >= len(gr.dictG) {
			gr.dictG = append(gr.dictG, -1)
		}
		id := gr.dictG[c]
		if id < 0 {
			id, fresh = gr.ofString(k.dict.DictEntry(c), r, fresh)
			gr.dictG[c] = id
		}
		g[r] = id
	}
	return g, fresh
}

// groupOf returns the group of a single key's value, if it has one: a
// STRING (s) or an integer-like (i) key, as assign numbered it.
func (gr *grouper) groupOf(s string, i int64, isString bool) (int32, bool) {
	if isString {
		g, ok := gr.bytes[s]
		return g, ok
	}
	if uint64(i) < smallInts {
		if int(i) < len(gr.small) && gr.small[i] >= 0 {
			return gr.small[i], true
		}
		return 0, false
	}
	g, ok := gr.ints[i]
	return g, ok
}

// ofString is the group of a single STRING key's value s, at row r.
func (gr *grouper) ofString(s string, r int, fresh []int32) (int32, []int32) {
	id, ok := gr.bytes[s]
	if !ok {
		id = gr.next()
		gr.bytes[s] = id
		fresh = append(fresh, int32(r))
	}
	return id, fresh
}

func (gr *grouper) next() int32 {
	gr.n++
	return int32(gr.n - 1)
}

func (gr *grouper) null(r int, fresh []int32) (int32, []int32) {
	if gr.nullG < 0 {
		gr.nullG = gr.next()
		fresh = append(fresh, int32(r))
	}
	return gr.nullG, fresh
}

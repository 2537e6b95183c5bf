package logstore

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/types"
)

// A field first seen late in an open segment stores nothing for the rows
// before it; every reader gives the values written — on the open segment, on
// the sealed one, and on the one read back from its file — for each kind and
// encoding, for a field widened after it appeared, and for rows asked for in
// any order.
func TestLateFieldReadsAsWritten(t *testing.T) {
	const late, widenAt = 2500, 4000
	type kase struct {
		name string
		json func(i int) string // the field's JSON value in row i
		want func(i int) string // its value as SQL reads it, as text
		kind types.Kind         // the field's type at the end
	}
	itoa := strconv.Itoa
	cases := []kase{
		{"int", func(i int) string { return itoa(3 * i) }, func(i int) string { return itoa(3 * i) }, types.KindInt64},
		{"bool", func(i int) string { return strconv.FormatBool(i%3 == 0) }, func(i int) string { return strconv.FormatBool(i%3 == 0) }, types.KindBool},
		{"float", func(i int) string { return itoa(i) + ".5" }, func(i int) string { return itoa(i) + ".5" }, types.KindFloat64},
		{"dictionary", func(i int) string { return fmt.Sprintf(`"v%d"`, i%7) }, func(i int) string { return fmt.Sprintf("v%d", i%7) }, types.KindString},
		{"unique strings", func(i int) string { return fmt.Sprintf(`"u%06d"`, i) }, func(i int) string { return fmt.Sprintf("u%06d", i) }, types.KindString},
		{"array", func(i int) string { return fmt.Sprintf("[%d,%d]", i, i+1) }, func(i int) string { return fmt.Sprintf("[%d, %d]", i, i+1) }, types.KindArray},
		{"int widened to float", func(i int) string {
			if i < widenAt {
				return itoa(i)
			}
			return itoa(i) + ".25"
		}, func(i int) string {
			if i < widenAt {
				return itoa(i)
			}
			return itoa(i) + ".25"
		}, types.KindFloat64},
		{"int widened to string", func(i int) string {
			if i < widenAt {
				return itoa(i)
			}
			return fmt.Sprintf(`"s%d"`, i)
		}, func(i int) string {
			if i < widenAt {
				return itoa(i)
			}
			return fmt.Sprintf("s%d", i)
		}, types.KindString},
	}
	// Row i has the field from row late on, except every 25th row (absent)
	// and the one after it (null). (Few enough gaps that unique strings
	// turn to plain bytes while the segment is open.)
	has := func(i int) bool { return i >= late && i%25 != 0 && i%25 != 1 }
	for _, c := range cases {
		for _, newestFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s newest first=%v", c.name, newestFirst), func(t *testing.T) {
				lateFieldCase(t, c.json, c.want, c.kind, c.name == "unique strings", has, newestFirst)
			})
		}
	}
}

// lateFieldCase is one case of TestLateFieldReadsAsWritten. With
// newestFirst the events arrive in descending time, so sealing reverses
// them: sealed row r is then event rowsN-1-r.
func lateFieldCase(t *testing.T, json, want func(i int) string, kind types.Kind, plainOpen bool, has func(i int) bool, newestFirst bool) {
	const rowsN, late, widenAt = 6000, 2500, 4000
	ts := func(i int) int64 {
		if newestFirst {
			return 1_700_000_000_000_000 + int64(rowsN-i)
		}
		return 1_700_000_000_000_000 + int64(i)
	}
	evs := make([][]byte, rowsN)
	for i := range evs {
		switch {
		case has(i):
			evs[i] = []byte(fmt.Sprintf(`{"timestamp":%d,"f":%s}`, ts(i), json(i)))
		case i >= late && i%25 == 1:
			evs[i] = []byte(fmt.Sprintf(`{"timestamp":%d,"f":null}`, ts(i)))
		default:
			evs[i] = []byte(fmt.Sprintf(`{"timestamp":%d}`, ts(i)))
		}
	}
	check := func(stage string, st *Store) {
		orig := func(r int) int { // the event that row r holds
			if newestFirst && stage != "open" {
				return rowsN - 1 - r
			}
			return r
		}
		hasAt := func(r int) bool { return has(orig(r)) }
		snap := st.Snapshot("s")
		f, ok := snap.Schema.Lookup("f")
		require.True(t, ok)
		require.Equal(t, kind, f.Type.Kind)
		require.Len(t, snap.Segments, 1)
		seg := snap.Segments[0]
		col := mustColumn(seg, "f")
		require.Equal(t, rowsN, col.Len(), stage)
		first, last := -1, -1
		for r := range rowsN {
			if hasAt(r) {
				if first < 0 {
					first = r
				}
				last = r
			}
		}
		require.Equal(t, first, col.lo, "%s: nothing stored before the field's first value", stage)
		if stage != "open" {
			require.Equal(t, last+1, col.hi, "%s: nothing stored after the field's last value", stage)
		}
		if stage == "open" && plainOpen {
			require.IsType(t, &plainStrings{}, col.enc)
		}
		all := make([]int32, rowsN)
		for i := range all {
			all[i] = int32(i)
		}
		reversed := slices.Clone(all)
		slices.Reverse(reversed)
		// The rows from the field's first value to its last, which every
		// stage stores: read through the encoding's own gather.
		span := all[first : last+1]
		spanDown := slices.Clone(span)
		slices.Reverse(spanDown)
		for _, rows := range [][]int32{all, reversed, {late - 1, late + 2, 3, widenAt + 3}, span, spanDown} {
			got := make([]string, len(rows))
			nulls := make([]bool, len(rows))
			require.True(t, col.GatherNulls(rows, nulls))
			switch {
			case f.Type.Kind == types.KindString:
				col.GatherStrings(rows, got)
			case f.Type.Kind == types.KindFloat64:
				fl := make([]float64, len(rows))
				col.GatherFloats(rows, fl)
				for k, v := range fl {
					got[k] = strconv.FormatFloat(v, 'f', -1, 64)
				}
			case f.Type.Kind == types.KindArray:
				for k, r := range rows {
					got[k] = col.Value(int(r), f.Type).String()
				}
			default:
				in := make([]int64, len(rows))
				col.GatherInts(rows, in)
				for k, v := range in {
					if f.Type.Kind == types.KindBool {
						got[k] = strconv.FormatBool(v != 0)
					} else {
						got[k] = strconv.FormatInt(v, 10)
					}
				}
			}
			for k, r := range rows {
				i := int(r)
				require.Equal(t, !hasAt(i), nulls[k], "%s: row %d null", stage, i)
				require.Equal(t, !hasAt(i), col.IsNull(i), "%s: row %d IsNull", stage, i)
				require.Equal(t, !hasAt(i), mustValue(seg, f, i).Null, "%s: row %d Value", stage, i)
				if hasAt(i) {
					require.Equal(t, want(orig(i)), got[k], "%s: row %d", stage, i)
				}
			}
			if col.IsDict() {
				codes := make([]uint32, len(rows))
				col.GatherCodes(rows, codes)
				for k, r := range rows {
					if hasAt(int(r)) {
						require.Equal(t, want(orig(int(r))), col.DictEntry(codes[k]), "%s: row %d code", stage, r)
					}
				}
			}
		}
		if col.IsDict() {
			var wantRows []int32
			probe := want(rowsN - 2) // an event that has the field
			for r := range rowsN {
				if hasAt(r) && want(orig(r)) == probe {
					wantRows = append(wantRows, int32(r))
				}
			}
			code, ok := col.FindCode(probe)
			require.True(t, ok)
			require.Equal(t, wantRows, col.MatchCode(0, rowsN, code, nil), stage)
			from := int(wantRows[len(wantRows)/2])
			require.Equal(t, wantRows[len(wantRows)/2:], col.MatchCode(from, rowsN, code, nil), stage)
		}
	}
	st := New(Options{})
	n, rej := st.Append("s", evs)
	require.Equal(t, rowsN, n, rej)
	check("open", st)
	require.NoError(t, st.Flush())
	st.sealer.wait()
	check("sealed", st)

	dir := t.TempDir()
	dst := openT(t, dir, Options{})
	defer func() { require.NoError(t, dst.Close()) }()
	n, rej = dst.Append("s", evs)
	require.Equal(t, rowsN, n, rej)
	require.NoError(t, dst.Flush())
	dst.sealer.wait()
	require.NotNil(t, dst.Snapshot("s").Segments[0].disk)
	check("file", dst)
}

// An event rejected after it made new columns leaves them with no rows
// stored: a snapshot then reads them as NULL, and the next events write them
// from their own rows on.
func TestRejectedEventLeavesItsNewFieldsNull(t *testing.T) {
	st := New(Options{})
	var evs [][]byte
	for i := range 10 {
		evs = append(evs, []byte(fmt.Sprintf(`{"a":%d}`, i)))
	}
	evs = append(evs, []byte(`{"g":"x","h":1e999999}`)) // h overflows FLOAT64: rejected
	n, rej := st.Append("s", evs)
	require.Equal(t, 10, n)
	require.Len(t, rej, 1)
	for _, path := range []string{"g", "h"} {
		for r := range 10 {
			v, ok := fieldValue(st, "s", path, r)
			require.False(t, ok, "%s row %d: %q", path, r, v)
		}
	}
	n, rej = st.Append("s", [][]byte{[]byte(`{"a":10}`), []byte(`{"g":"y"}`)})
	require.Equal(t, 2, n, rej)
	for r := range 12 {
		v, ok := fieldValue(st, "s", "g", r)
		require.Equal(t, r == 11, ok, "row %d", r)
		if ok {
			require.Equal(t, "y", v)
		}
	}
	require.NoError(t, st.Flush())
	v, ok := fieldValue(st, "s", "g", 11)
	require.True(t, ok)
	require.Equal(t, "y", v)
}

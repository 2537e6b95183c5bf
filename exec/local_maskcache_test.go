package exec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"logq/expr"
	"logq/logstore"
	"logq/types"
)

// A value predicate's mask over a sealed segment is kept across queries
// (local_maskcache.go): a repeated predicate is answered from it, another
// constant or another field is not, and every answer is the count made
// here from the events, before and after a new segment is sealed.
func TestMasksKeptAcrossQueries(t *testing.T) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const n = 4096
	st := logstore.New(logstore.Options{SegmentRows: n})
	var urls, refs []string
	add := func(count int) {
		var evs [][]byte
		for k := 0; k < count; k++ {
			i := len(urls)
			url := fmt.Sprintf("https://p%d.example/%d", i%7, i/7%50)
			ref := fmt.Sprintf("ref-p%d", i%5)
			urls, refs = append(urls, url), append(refs, ref)
			evs = append(evs, fmt.Appendf(nil, `{"timestamp":%q,"url":%q,"ref":%q}`, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), url, ref))
		}
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
		require.NoError(t, st.Flush())
	}
	want := func(vals []string, sub string) string {
		c := 0
		for _, v := range vals {
			if strings.Contains(v, sub) {
				c++
			}
		}
		return fmt.Sprintf("c\n%d\n", c)
	}
	count := func(field, sub string) (string, int64) {
		t.Helper()
		before := dictMasks.hits.Load()
		got, err := runGolden(st, "select count(*) as c from s where regexp_contains("+field+", @p)", map[string]string{"p": sub})
		require.NoError(t, err)
		return got, dictMasks.hits.Load() - before
	}

	add(2 * n)
	require.Len(t, st.Snapshot("s").Segments, 2)
	got, _ := count("url", "p3")
	require.Equal(t, want(urls, "p3"), got)
	got, hits := count("url", "p3")
	require.Equal(t, want(urls, "p3"), got)
	require.Equal(t, int64(2), hits, "the second call reads both segments' masks from the cache")
	got, hits = count("url", "p4")
	require.Equal(t, want(urls, "p4"), got)
	require.Zero(t, hits, "another constant is another predicate")
	got, hits = count("ref", "p3")
	require.Equal(t, want(refs, "p3"), got)
	require.Zero(t, hits, "another field")

	add(n)
	require.Len(t, st.Snapshot("s").Segments, 3)
	got, hits = count("url", "p3")
	require.Equal(t, want(urls, "p3"), got)
	require.Equal(t, int64(2), hits, "the new segment is evaluated, the two older ones are kept")
}

// predKey gives two predicates one key only when they are the same
// function of the value, and none when the answer may depend on more.
func TestPredKey(t *testing.T) {
	col := &expr.ColRef{Idx: 0, T: types.String, Name: "url"}
	str := func(s string) expr.Expr { return &expr.Const{V: types.StringValue(s)} }
	contains := func(args ...expr.Expr) expr.Expr {
		return &expr.Call{Fn: "regexp_contains", Args: args, T: types.Bool}
	}
	key := func(e expr.Expr) (string, bool) {
		var b strings.Builder
		ok := predKey(e, &b)
		return b.String(), ok
	}
	same := [][2]expr.Expr{
		{contains(col, str("/rest")), contains(col, str("/rest"))},
	}
	for _, c := range same {
		a, okA := key(c[0])
		b, okB := key(c[1])
		require.True(t, okA && okB)
		require.Equal(t, a, b)
	}
	differ := [][2]expr.Expr{
		{contains(col, str("/rest")), contains(col, str("/res"))},
		{contains(col, str("a;b")), contains(col, str("a"))},
		{&expr.Call{Fn: "=", Args: []expr.Expr{col, str("1")}, T: types.Bool}, &expr.Call{Fn: "!=", Args: []expr.Expr{col, str("1")}, T: types.Bool}},
		{&expr.Call{Fn: "=", Args: []expr.Expr{col, str("1")}, T: types.Bool}, &expr.Call{Fn: "=", Args: []expr.Expr{col, &expr.Const{V: types.NullOf(types.String)}}, T: types.Bool}},
		{&expr.Call{Fn: "=", Args: []expr.Expr{&expr.Call{Fn: "length", Args: []expr.Expr{col}, T: types.Int64}, &expr.Const{V: types.IntValue(1)}}, T: types.Bool},
			&expr.Call{Fn: "=", Args: []expr.Expr{&expr.Call{Fn: "length", Args: []expr.Expr{col}, T: types.Int64}, &expr.Const{V: types.IntValue(2)}}, T: types.Bool}},
	}
	for _, c := range differ {
		a, okA := key(c[0])
		b, okB := key(c[1])
		require.True(t, okA && okB, "%s / %s", c[0], c[1])
		require.NotEqual(t, a, b, "%s / %s", c[0], c[1])
	}
	notKept := []expr.Expr{
		&expr.Call{Fn: "<", Args: []expr.Expr{&expr.Call{Fn: "rand", T: types.Float64}, &expr.Const{V: types.FloatValue(0.5)}}, T: types.Bool},
		&expr.Call{Fn: "in_array", Args: []expr.Expr{col, &expr.Const{V: types.ArrayValue(types.String, []types.Value{types.StringValue("a")})}}, T: types.Bool},
	}
	for _, e := range notKept {
		_, ok := key(e)
		require.False(t, ok, "%s", e)
	}
}

// The cache holds at most its budget of bytes, the least recently used
// mask going first.
func TestMaskCacheBudget(t *testing.T) {
	size := (&maskEntry{bits: make([]uint64, 16)}).bytes()
	c := newMaskCache(10 * size)
	k := func(i int) maskKey { return maskKey{path: "u", pred: fmt.Sprint(i)} }
	for i := 0; i < 20; i++ {
		c.put(k(i), make([]uint64, 16))
		if i == 5 {
			require.NotNil(t, c.get(k(0), 16*64)) // 0 is now the most recently used
		}
	}
	require.LessOrEqual(t, c.bytes, c.budget)
	require.Equal(t, 10, c.lru.Len())
	require.NotNil(t, c.get(k(19), 16*64))
	require.Nil(t, c.get(k(1), 16*64), "the least recently used went first")
	require.Nil(t, c.get(k(19), 17*64), "a mask of another dictionary's size")
	c.put(k(19), make([]uint64, 16)) // the same key again counts once
	require.Equal(t, 10*size, c.bytes)
}

// A lazy mask's answers are kept too: the open segment's views share them
// (its dictionary only grows), new entries are answered as they come, and
// once the segment is sealed in place (a store in memory) its answers,
// eager and lazy, are its own. 1,500 URLs, each held by two neighbouring
// rows (so that the column stays a dictionary), named in descending order
// (so that a dictionary sealed in sorted order would number them
// otherwise). Every count is made here from the events.
func TestLazyAnswersKeptAcrossQueries(t *testing.T) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	st := logstore.New(logstore.Options{SegmentRows: 1 << 20})
	var urls []string
	add := func(count int) {
		var evs [][]byte
		for k := 0; k < count; k++ {
			i := len(urls)
			url := fmt.Sprintf("%04d.example/p%d", 9999-i/2%1500, i/2%3)
			urls = append(urls, url)
			evs = append(evs, fmt.Appendf(nil, `{"timestamp":%q,"url":%q}`, base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), url))
		}
		_, rej := st.Append("s", evs)
		require.Empty(t, rej)
	}
	// count runs the query over the rows from index from on.
	count := func(sub string, from int) (string, string, int64) {
		t.Helper()
		c := 0
		for _, u := range urls[from:] {
			if strings.Contains(u, sub) {
				c++
			}
		}
		before := dictMasks.recalled.Load()
		got, err := runGolden(st, "select count(*) as c from s where regexp_contains(url, @p) and timestamp >= timestamp(@from)",
			map[string]string{"p": sub, "from": base.Add(time.Duration(from) * time.Second).Format(time.RFC3339)})
		require.NoError(t, err)
		return fmt.Sprintf("c\n%d\n", c), got, dictMasks.recalled.Load() - before
	}

	add(1000)
	want, got, _ := count("p1", 0)
	require.Equal(t, want, got)
	want, got, recalled := count("p1", 0)
	require.Equal(t, want, got)
	require.Positive(t, recalled, "the open segment's answers are kept")
	want, got, _ = count("p2", 0)
	require.Equal(t, want, got, "another constant")

	add(2000) // new entries, and rows holding old ones
	want, got, _ = count("p1", 0)
	require.Equal(t, want, got)

	require.NoError(t, st.Flush()) // sealed in place
	require.Len(t, st.Snapshot("s").Segments, 1)
	for _, sub := range []string{"p1", "p2", "99"} {
		for _, from := range []int{2900, 0} { // lazy (one block against 1,500 entries), then eager
			want, got, _ = count(sub, from)
			require.Equal(t, want, got, "%s from %d", sub, from)
			want, got, recalled = count(sub, from)
			require.Equal(t, want, got, "%s from %d, again", sub, from)
			if from == 2900 {
				require.Positive(t, recalled, "a sealed segment's lazy answers are kept")
			}
		}
		// Answered for every entry, the predicate answers a short window
		// from those bits.
		hits := dictMasks.hits.Load()
		want, got, _ = count(sub, 2900)
		require.Equal(t, want, got, "%s from 2900, after every entry", sub)
		require.Greater(t, dictMasks.hits.Load(), hits, "the kept mask of every entry serves a short window")
	}
}

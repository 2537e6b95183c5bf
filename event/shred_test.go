package event

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/types"
)

// recorder is a Sink that keeps what one event wrote, as "path=kind:value".
type recorder struct{ got map[string]string }

func (r *recorder) set(n *Node, v string) {
	if _, dup := r.got[n.Path]; dup {
		panic("a field written twice in one event: " + n.Path)
	}
	r.got[n.Path] = v
}
func (r *recorder) Int(n *Node, v int64)     { r.set(n, fmt.Sprintf("%v:%d", n.Kind, v)) }
func (r *recorder) Float(n *Node, v float64) { r.set(n, fmt.Sprintf("%v:%g", n.Kind, v)) }
func (r *recorder) String(n *Node, b []byte) { r.set(n, fmt.Sprintf("%v:%s", n.Kind, b)) }
func (r *recorder) Array(n *Node, v types.Value) {
	elems := make([]string, len(v.L))
	for i, e := range v.L {
		elems[i] = fmt.Sprintf("%v %v", e.T, e.String())
	}
	r.set(n, fmt.Sprintf("%v:%v", *v.T.Elem, elems))
}
func (r *recorder) Present(n *Node) { r.set(n, "present") }

func shred(t *testing.T, tree *Tree, ev string) map[string]string {
	t.Helper()
	r := &recorder{got: map[string]string{}}
	o := Origin{Arrival: 42, Seed: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}}
	ts, err := tree.Shred([]byte(ev), o, r)
	require.NoError(t, err, ev)
	require.Equal(t, r.got["timestamp"], fmt.Sprintf("TIMESTAMP:%d", ts))
	return r.got
}

const seedID = "01020304-0506-4708-890a-0b0c0d0e0f10" // UUID of the seed above, index 0

// Repeated keys: the first value wins, even when it is unusable (a
// timestamp that does not parse, an empty id), and a later one changes
// nothing, not even a field's type.
func TestShredFirstKeyWins(t *testing.T) {
	for _, c := range []struct {
		ev   string
		want map[string]string
	}{
		{`{"timestamp":"yesterday","timestamp":"2026-01-01T00:00:00Z"}`,
			map[string]string{"timestamp": "TIMESTAMP:42", "id": "STRING:" + seedID}},
		{`{"id":"","id":"b"}`,
			map[string]string{"timestamp": "TIMESTAMP:42", "id": "STRING:" + seedID}},
		{`{"id":"a","id":"b","event_message":"m","event_message":"n","message":"x"}`,
			map[string]string{"timestamp": "TIMESTAMP:42", "id": "STRING:a", "event_message": "STRING:m", "message": "STRING:x"}},
		{`{"a":1,"a":"x","a-":2.5}`, // a- sanitises to a_, a field of its own
			map[string]string{"timestamp": "TIMESTAMP:42", "id": "STRING:" + seedID, "a": "INT64:1", "a_": "FLOAT64:2.5"}},
		{`{"m":{"x":1},"m":{"y":2}}`,
			map[string]string{"timestamp": "TIMESTAMP:42", "id": "STRING:" + seedID, "m": "present", "m.x": "INT64:1"}},
		{`{"x-y":1,"x_y":2}`,
			map[string]string{"timestamp": "TIMESTAMP:42", "id": "STRING:" + seedID, "x_y": "INT64:1"}},
	} {
		tree := NewTree(0)
		require.Equal(t, c.want, shred(t, tree, c.ev), c.ev)
		if n := tree.Find("a"); n != nil {
			require.Equal(t, types.KindInt64, n.Kind, "the repeated key did not widen the field")
		}
		if n := tree.Find("m"); n != nil {
			require.Nil(t, tree.Find("m.y"), "the repeated object made no field")
		}
	}
}

// Types widen, never narrow, and each value is written as the field's kind
// once widened: an integer into a FLOAT64 field as a float, anything into
// a STRING field as its JSON text.
func TestShredWidens(t *testing.T) {
	tree := NewTree(0)
	for _, c := range []struct{ ev, want string }{
		{`{"v":1}`, "INT64:1"},
		{`{"v":2.5}`, "FLOAT64:2.5"},
		{`{"v":3}`, "FLOAT64:3"},
		{`{"v":true}`, "STRING:true"},
		{`{"v":7}`, "STRING:7"},
		{`{"v":"s"}`, "STRING:s"},
		{`{"v":1e400}`, "STRING:1e400"},
	} {
		require.Equal(t, c.want, shred(t, tree, c.ev)["v"], c.ev)
	}
	tree = NewTree(0)
	require.Equal(t, "BOOL:1", shred(t, tree, `{"b":true}`)["b"])
	require.Equal(t, "BOOL:0", shred(t, tree, `{"b":false}`)["b"])
	require.Equal(t, "FLOAT64:9.223372036854776e+18", shred(t, tree, `{"big":9223372036854775808}`)["big"], "past INT64: a FLOAT64")
}

// A value of another shape than the field's is kept as JSON text beside it.
func TestShredShapeConflicts(t *testing.T) {
	tree := NewTree(0)
	shred(t, tree, `{"o":{"a":1},"s":"x","l":[1,2]}`)
	got := shred(t, tree, `{"o":5,"s":{"k":1},"l":{"z":[true]}}`)
	require.Equal(t, "STRING:5", got["o__json"])
	require.Equal(t, `STRING:{"k":1}`, got["s__json"])
	require.Equal(t, `STRING:{"z":[true]}`, got["l__json"])
	require.NotContains(t, got, "o")
	// Arrays of another element type become arrays of text.
	got = shred(t, tree, `{"l":["a"]}`)
	require.Equal(t, `STRING:[STRING a]`, got["l"])
	got = shred(t, tree, `{"l":[3]}`)
	require.Equal(t, `STRING:[STRING 3]`, got["l"])
	require.Equal(t, types.String, tree.Find("l").Elem)
}

// Past the cap, keys go to the __overflow field of their object, as JSON
// members in the order they came; existing fields keep taking values.
func TestShredFieldCap(t *testing.T) {
	tree := NewTree(5) // timestamp, id, event_message are made by the first event
	var over []string
	tree.OnOverflow = func(k []byte) { over = append(over, string(k)) }
	got := shred(t, tree, `{"event_message":"m","a":1}`) // 4 fields
	require.Equal(t, "INT64:1", got["a"])
	got = shred(t, tree, `{"b":2,"c":{"d":3},"a":4}`) // b makes 5: c is past the cap
	require.Equal(t, "INT64:2", got["b"])
	require.Equal(t, "INT64:4", got["a"])
	require.Equal(t, `STRING:{"c":{"d":3}}`, got["__overflow"])
	require.Equal(t, []string{"c"}, over)
	require.Equal(t, int64(1), tree.Overflowed)
	require.Nil(t, tree.Find("c"))
}

// Refused events: not an object, malformed, nested too deeply.
func TestShredRefuses(t *testing.T) {
	deep := ""
	for i := 0; i < MaxDepth+1; i++ {
		deep += `{"a":`
	}
	deep += "1"
	for i := 0; i < MaxDepth+1; i++ {
		deep += "}"
	}
	for _, ev := range []string{`[1]`, `"x"`, `{"a":}`, `{"a":1} x`, `{"a":tru}`, deep} {
		tree := NewTree(0)
		_, err := tree.Shred([]byte(ev), Origin{}, &recorder{got: map[string]string{}})
		require.Error(t, err, ev)
	}
}

// Merging trees widens and unions, in any order to the same tree.
func TestTreeMerge(t *testing.T) {
	a, b := NewTree(0), NewTree(0)
	shred(t, a, `{"x":1,"o":{"p":"s"},"l":[1]}`)
	shred(t, b, `{"x":1.5,"o":{"q":true},"l":["t"],"n":2}`)
	ab, ba := NewTree(0), NewTree(0)
	ab.Merge(a.Root())
	ab.Merge(b.Root())
	ba.Merge(b.Root())
	ba.Merge(a.Root())
	for _, tr := range []*Tree{ab, ba} {
		require.Equal(t, types.KindFloat64, tr.Find("x").Kind)
		require.True(t, tr.Find("o").Object)
		require.Equal(t, types.KindString, tr.Find("o.p").Kind)
		require.Equal(t, types.KindBool, tr.Find("o.q").Kind)
		require.Equal(t, types.String, tr.Find("l").Elem)
		require.Equal(t, types.KindInt64, tr.Find("n").Kind)
	}
	require.ElementsMatch(t, ab.Schema().Paths(), ba.Schema().Paths())
}

// Shredding a bool allocates nothing (it used to make a map per value).
func TestShredBoolAllocatesNothing(t *testing.T) {
	tree := NewTree(0)
	ev := []byte(`{"id":"x","timestamp":1700000000,"b":true,"c":false}`)
	sink := nopSink{}
	_, err := tree.Shred(ev, Origin{}, sink)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() { _, _ = tree.Shred(ev, Origin{}, sink) })
	require.Zero(t, allocs)
}

type nopSink struct{}

func (nopSink) Int(*Node, int64)         {}
func (nopSink) Float(*Node, float64)     {}
func (nopSink) String(*Node, []byte)     {}
func (nopSink) Array(*Node, types.Value) {}
func (nopSink) Present(*Node)            {}

package kll

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docInit is KLL_QUANTILES.INIT_INT64(x, 1000) over 1…5 as ZetaSQL's
// documentation prints it, and docMerged MERGE_PARTIAL of that sketch and
// of 6…10's.
const (
	docInit   = "\010q\020\005 \004\212\007\025\010\200 \020\350\007\032\001\001\"\001\005*\007\n\005\001\002\003\004\005"
	docMerged = "\010q\020\n \004\212\007\032\010\200 \020\350\007\032\001\001\"\001\n*\014\n\n\001\002\003\004\005\006\007\010\t\n"
)

func ints(vt ValueType, prec int64, vals ...int64) *Sketch {
	s := New(vt, prec)
	for _, v := range vals {
		if vt == Float64 {
			s.Add(FloatKey(float64(v)), 1)
		} else {
			s.Add(IntKey(v), 1)
		}
	}
	return s
}

func span(lo, hi int64) []int64 {
	var out []int64
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	return out
}

func int64s(ks []Key) []int64 {
	out := make([]int64, len(ks))
	for i, k := range ks {
		out[i] = k.Int64()
	}
	return out
}

func TestKFor(t *testing.T) {
	for _, c := range []struct {
		prec int64
		k    int
	}{{1, 4}, {10, 32}, {100, 512}, {1000, 4096}, {10000, 32768}, {100000, 524288}} {
		assert.Equal(t, c.k, KFor(c.prec), "precision %d", c.prec)
	}
}

// TestDocumentedBytes: INIT over 1…5 and MERGE_PARTIAL of 1…5's and
// 6…10's sketches write the bytes the documentation prints, and read back.
func TestDocumentedBytes(t *testing.T) {
	a := ints(Int64, 1000, 1, 2, 3, 4, 5)
	assert.Equal(t, []byte(docInit), a.Bytes())
	b := ints(Int64, 1000, 6, 7, 8, 9, 10)
	require.NoError(t, a.Merge(b))
	assert.Equal(t, []byte(docMerged), a.Bytes())
	for _, doc := range []string{docInit, docMerged} {
		s, err := Parse([]byte(doc))
		require.NoError(t, err)
		assert.Equal(t, []byte(doc), s.Bytes())
	}
	// Merged the other way round, and from the parsed sketches.
	p1, _ := Parse([]byte(docInit))
	p2, _ := Parse(ints(Int64, 1000, 6, 7, 8, 9, 10).Bytes())
	require.NoError(t, p2.Merge(p1))
	assert.Equal(t, []byte(docMerged), p2.Bytes())
}

// TestDocumentedQuantiles: every example of the documentation.
func TestDocumentedQuantiles(t *testing.T) {
	hundred := ints(Int64, 1000, span(1, 100)...)
	five := ints(Int64, 1000, 1, 2, 3, 4, 5)
	ten := ints(Int64, 1000, 1, 2, 3, 4, 5)
	require.NoError(t, ten.Merge(ints(Int64, 1000, 6, 7, 8, 9, 10)))
	weighted := New(Int64, 1000)
	for i, w := range []int64{1, 3, 1, 1, 1} {
		require.NoError(t, weighted.Add(IntKey(int64(i+1)), w))
	}
	for _, c := range []struct {
		name string
		s    *Sketch
		q    int
		want []int64
	}{
		{"halves", hundred, 2, []int64{1, 50, 100}},
		{"terciles", hundred, 3, []int64{1, 34, 67, 100}},
		{"quartiles", hundred, 4, []int64{1, 25, 50, 75, 100}},
		{"sextiles", hundred, 6, []int64{1, 17, 34, 50, 67, 84, 100}},
		{"five", five, 2, []int64{1, 3, 5}},
		{"weighted", weighted, 2, []int64{1, 2, 5}},
		{"merged", ten, 2, []int64{1, 5, 10}},
		{"one", five, 1, []int64{1, 5}},
	} {
		assert.Equal(t, c.want, int64s(c.s.Quantiles(c.q)), c.name)
	}
	for _, c := range []struct {
		s    *Sketch
		phi  float64
		want int64
	}{{five, .8, 4}, {ten, .9, 9}, {five, 0, 1}, {five, 1, 5}, {five, .5, 3}, {weighted, .5, 2}, {hundred, .01, 1}, {hundred, .011, 2}} {
		k, ok := c.s.Quantile(c.phi)
		assert.True(t, ok)
		assert.Equal(t, c.want, k.Int64(), "phi %v", c.phi)
	}
	assert.Equal(t, int64(7), weighted.Count())
	// The weights 1, 3, 1, 1, 1: level 0 holds 1…5, level 1 another 2.
	assert.Equal(t, [][]Key{{IntKey(1), IntKey(2), IntKey(3), IntKey(4), IntKey(5)}, {IntKey(2)}}, weighted.levels)
}

func TestFloatKeys(t *testing.T) {
	order := []float64{math.NaN(), math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for i, f := range order {
		k := FloatKey(f)
		if i > 0 {
			assert.Less(t, FloatKey(order[i-1]), k, "%v < %v", order[i-1], f)
		}
		back := k.Float64()
		if f != f {
			assert.True(t, math.IsNaN(back))
			assert.Equal(t, uint64(canonicalNaN), math.Float64bits(back))
		} else {
			assert.Equal(t, math.Float64bits(f), math.Float64bits(back))
		}
	}
	for _, v := range []int64{math.MinInt64, -1, 0, 1, math.MaxInt64} {
		assert.Equal(t, v, IntKey(v).Int64())
	}
	assert.Less(t, IntKey(-1), IntKey(0))
}

// TestFloatBytes: a FLOAT64 sketch writes value type 10 and 8
// little-endian bytes per value; its quantiles order NaN first.
func TestFloatBytes(t *testing.T) {
	s := New(Float64, 10)
	for _, f := range []float64{2.5, math.NaN(), -1} {
		s.Add(FloatKey(f), 1)
	}
	b := s.Bytes()
	want := "0871100320" + "0a" + "8a07" + "34" + "0820" + "100a" +
		"1a08" + "000000000000f87f" + "2208" + "0000000000000440" +
		"2a1a" + "0a18" + "000000000000f87f" + "000000000000f0bf" + "0000000000000440"
	assert.Equal(t, want, hex.EncodeToString(b))
	p, err := Parse(b)
	require.NoError(t, err)
	qs := p.Quantiles(3)
	require.Len(t, qs, 4)
	assert.True(t, math.IsNaN(qs[0].Float64()))
	assert.True(t, math.IsNaN(qs[1].Float64()))
	assert.Equal(t, []float64{-1, 2.5}, []float64{qs[2].Float64(), qs[3].Float64()})
	assert.ErrorIs(t, p.Merge(ints(Int64, 10, 1)), ErrIncompatible)
}

// TestNegativeInt64: a negative INT64 is the 10-byte varint of its two's
// complement.
func TestNegativeInt64(t *testing.T) {
	s := ints(Int64, 1, -1)
	assert.Equal(t, "0871100120048a072a0804100"+"11a0a"+"ffffffffffffffffff01"+"220a"+"ffffffffffffffffff01"+"2a0c0a0a"+"ffffffffffffffffff01", hex.EncodeToString(s.Bytes()))
}

// TestEmpty: a sketch of nothing writes k and inv_eps only, has no
// quantiles, and merges as nothing.
func TestEmpty(t *testing.T) {
	s := New(Int64, 1000)
	assert.Equal(t, "0871100020048a0706088020"+"10e807", hex.EncodeToString(s.Bytes()))
	p, err := Parse(s.Bytes())
	require.NoError(t, err)
	assert.Nil(t, p.Quantiles(2))
	_, ok := p.Quantile(.5)
	assert.False(t, ok)
	f := ints(Int64, 1000, 1, 2, 3)
	require.NoError(t, f.Merge(p))
	require.NoError(t, p.Merge(ints(Int64, 1000, 1, 2, 3)))
	assert.Equal(t, f.Bytes(), p.Bytes())
}

// build is a sketch of 0…n−1 in a shuffled order.
func build(vt ValueType, prec int64, n int, seed uint64) *Sketch {
	r := rand.New(rand.NewPCG(seed, 7))
	s := New(vt, prec)
	for _, v := range r.Perm(n) {
		if vt == Float64 {
			s.Add(FloatKey(float64(v)), 1)
		} else {
			s.Add(IntKey(int64(v)), 1)
		}
	}
	return s
}

// TestRoundTrip: what Bytes writes Parse reads back to the same bytes and
// quantiles: exact, compacted, sampled (precision 1 and 10 start the
// sampler early), weighted, and FLOAT64 sketches.
func TestRoundTrip(t *testing.T) {
	weighted := New(Int64, 10)
	for i := range 5000 {
		weighted.Add(IntKey(int64(i)), int64(i%1000+1))
	}
	for _, c := range []struct {
		name    string
		s       *Sketch
		sampler bool
	}{
		{"exact", build(Int64, 1000, 4095, 1), false},
		{"compacted", build(Int64, 1000, 50000, 2), false},
		{"sampled", build(Int64, 1, 100000, 3), true},
		{"sampled10", build(Int64, 10, 1000000, 4), true},
		{"weighted", weighted, true},
		{"float", build(Float64, 100, 20000, 5), false},
	} {
		b := c.s.Bytes()
		p, err := Parse(b)
		require.NoError(t, err, c.name)
		assert.Equal(t, b, p.Bytes(), c.name)
		assert.Equal(t, c.s.Quantiles(10), p.Quantiles(10), c.name)
		assert.Equal(t, c.sampler, p.lal > 0, c.name)
		assert.Equal(t, c.s.Count(), p.Count(), c.name)
	}
	assert.True(t, build(Int64, 1000, 4095, 1).Exact(), "4095 values at precision 1000 stay exact")
	assert.False(t, build(Int64, 1000, 4096, 1).Exact(), "the 4096th compacts")
}

// rankError is the largest distance, as a fraction of n, between the rank
// each of s's q-quantiles has among 0…n−1 and the rank ⌈i·n/q⌉ asked for.
func rankError(s *Sketch, n, q int) float64 {
	worst := 0.0
	for i, k := range s.Quantiles(q) {
		want := max((i*n+q-1)/q, 1)
		got := int(k.Int64()) + 1 // the rank of v among 0…n−1
		worst = max(worst, math.Abs(float64(got-want))/float64(n))
	}
	return worst
}

// TestRankError: over a million distinct values, every extracted quantile
// (q = 1000) is within the precision's bound, n/precision: INIT in three
// orders, and a MERGE of 16 sketches of 62500 values each. Measured
// (worst |rank error|·precision): see doc.go; the bound checked is 1.
func TestRankError(t *testing.T) {
	if testing.Short() {
		t.Skip("a million values")
	}
	const n = 1000000
	for _, prec := range []int64{100, 1000, 10000} {
		for _, order := range []string{"shuffled", "ascending", "descending", "merged"} {
			var s *Sketch
			switch order {
			case "shuffled":
				s = build(Int64, prec, n, 11)
			case "merged":
				r := rand.New(rand.NewPCG(12, 7))
				perm := r.Perm(n)
				for part := range 16 {
					p := New(Int64, prec)
					for _, v := range perm[part*n/16 : (part+1)*n/16] {
						p.Add(IntKey(int64(v)), 1)
					}
					back, err := Parse(p.Bytes())
					require.NoError(t, err)
					if s == nil {
						s = back
					} else {
						require.NoError(t, s.Merge(back))
					}
				}
			default:
				s = New(Int64, prec)
				for i := range n {
					v := i
					if order == "descending" {
						v = n - 1 - i
					}
					s.Add(IntKey(int64(v)), 1)
				}
			}
			e := rankError(s, n, 1000)
			t.Logf("precision %d, %s: worst rank error %.2e = %.3f/precision; %d items kept, %d bytes", prec, order, e, e*float64(prec), s.items, s.MemSize())
			assert.LessOrEqual(t, e, 1/float64(prec), "precision %d, %s", prec, order)
			assert.Equal(t, int64(n), s.Count())
			assert.Less(t, s.items, 3*s.k+64, "bounded memory")
		}
	}
}

// TestSampledRankError: at precision 10 (k = 32) ten million values run
// through the sampler; the ranks stay within 1/10 as well.
func TestSampledRankError(t *testing.T) {
	if testing.Short() {
		t.Skip("ten million values")
	}
	const n = 10000000
	s := New(Int64, 10)
	for i := range n {
		s.Add(IntKey(int64(i)), 1)
	}
	assert.Greater(t, s.lal, 0, "the sampler is on")
	e := rankError(s, n, 100)
	t.Logf("precision 10, %d values: worst rank error %.3f/precision, %d items", n, e*10, s.items)
	assert.LessOrEqual(t, e, 0.1)
}

// TestWeightedRankError: weights count as repeated values.
func TestWeightedRankError(t *testing.T) {
	const n = 200000
	s := New(Int64, 1000)
	total := 0
	r := rand.New(rand.NewPCG(3, 4))
	ws := make([]int, n)
	for _, v := range r.Perm(n) {
		ws[v] = v%7 + 1
		s.Add(IntKey(int64(v)), int64(ws[v]))
		total += ws[v]
	}
	assert.Equal(t, int64(total), s.Count())
	cum := make([]int, n) // the rank of the last copy of v
	for v, acc := 0, 0; v < n; v++ {
		acc += ws[v]
		cum[v] = acc
	}
	for i, k := range s.Quantiles(100) {
		want := max((i*total+99)/100, 1)
		v := k.Int64()
		lo, hi := cum[v]-ws[v]+1, cum[v]
		d := 0
		if want < lo {
			d = lo - want
		} else if want > hi {
			d = want - hi
		}
		assert.LessOrEqual(t, float64(d)/float64(total), 1/1000.0, "quantile %d", i)
	}
}

// TestMergePrecision: BigQuery's rule. An exact result keeps the higher
// precision; a compacted one takes the lower.
func TestMergePrecision(t *testing.T) {
	for _, c := range []struct {
		name  string
		a, b  *Sketch
		want  int64
		exact bool
	}{
		{"exact+exact", ints(Int64, 10, 1, 2), ints(Int64, 1000, 3, 4), 1000, true},
		{"exact+exact, reversed", ints(Int64, 1000, 3, 4), ints(Int64, 10, 1, 2), 1000, true},
		{"exact+exact past k=32", ints(Int64, 10, span(1, 30)...), ints(Int64, 1000, span(31, 60)...), 1000, true},
		{"compacted+exact", build(Int64, 1000, 5000, 1), ints(Int64, 10, 1, 2), 10, false},
		{"exact+compacted", ints(Int64, 10, 1, 2), build(Int64, 1000, 5000, 1), 10, false},
		{"compacted+compacted", build(Int64, 100, 5000, 1), build(Int64, 1000, 5000, 2), 100, false},
		{"exact overflowing", ints(Int64, 1, 1, 2, 3), ints(Int64, 1, 4, 5, 6), 1, false},
	} {
		n := c.a.Count() + c.b.Count()
		require.NoError(t, c.a.Merge(c.b), c.name)
		assert.Equal(t, c.want, c.a.Precision(), c.name)
		assert.Equal(t, KFor(c.want), c.a.K(), c.name)
		assert.Equal(t, c.exact, c.a.Exact(), c.name)
		assert.Equal(t, n, c.a.Count(), c.name)
		p, err := Parse(c.a.Bytes())
		require.NoError(t, err, c.name)
		assert.Equal(t, c.a.Quantiles(4), p.Quantiles(4), c.name)
	}
	// Two compacted sketches of 0…4999 and 5000…9999 merged: the ranks of
	// 0…9999 stay within 1/precision.
	a, b := build(Int64, 100, 5000, 1), New(Int64, 100)
	for v := range 5000 {
		b.Add(IntKey(int64(v+5000)), 1)
	}
	require.NoError(t, a.Merge(b))
	assert.LessOrEqual(t, rankError(a, 10000, 100), 1/100.0)
}

func TestAddLimits(t *testing.T) {
	s := New(Int64, 1000)
	require.NoError(t, s.Add(IntKey(1), MaxWeight))
	require.NoError(t, s.Add(IntKey(1), 0)) // nothing
	assert.Equal(t, int64(MaxWeight), s.Count())
	require.NoError(t, s.Add(IntKey(2), maxTotal-MaxWeight))
	assert.ErrorIs(t, s.Add(IntKey(3), 1), ErrTooLarge)
	assert.ErrorIs(t, s.Merge(ints(Int64, 1000, 1)), ErrTooLarge)
	k, ok := s.Quantile(.5)
	assert.True(t, ok)
	assert.Equal(t, int64(2), k.Int64())
}

// sketchBytes writes an INT64 sketch's state from its parts (hex of the
// extension's fields), for crafted sketches.
func sketchBytes(typ, n, vt int, ext string) []byte {
	e, _ := hex.DecodeString(ext)
	b := []byte{0x08, byte(typ), 0x10, byte(n), 0x20, byte(vt), 0x8a, 0x07, byte(len(e))}
	return append(b, e...)
}

// TestParseErrors: what is no sketch, or a corrupt one, is an error.
func TestParseErrors(t *testing.T) {
	const kp = "088020" + "10e807" // k 4096, inv_eps 1000
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a KLL"},
		{"junk", []byte("junk"), ""},
		{"hll", []byte("\x08p\x10\x01\x18\x02 \x0b\x82\x07\x0b\x10\x01\x18\n \x0f2\x03\x82\xe1\x01"), "not a KLL"},
		{"truncated", []byte(docInit[:len(docInit)-2]), ""},
		{"uint64", sketchBytes(113, 1, 8, kp+"1a0101"+"220101"+"2a030a0101"), "value type 8"},
		{"no k", sketchBytes(113, 0, 4, "10e807"), "k 0"},
		{"k 2", sketchBytes(113, 0, 4, "0802"+"10e807"), "k 2"},
		{"precision 0", sketchBytes(113, 0, 4, "088020"+"1000"), "inv_eps"},
		{"precision 100001", sketchBytes(113, 0, 4, "088020"+"10a18d06"), "inv_eps"},
		{"count without items", sketchBytes(113, 3, 4, kp+"1a0101"+"220103"), "num_values 3"},
		{"items without count", sketchBytes(113, 0, 4, kp+"2a030a0101"), "num_values 0"},
		{"count disagrees", sketchBytes(113, 2, 4, kp+"1a0101"+"220101"+"2a030a0101"), "kept exactly"},
		{"no min", sketchBytes(113, 1, 4, kp+"220101"+"2a030a0101"), "no min"},
		{"min above max", sketchBytes(113, 1, 4, kp+"1a0102"+"220101"+"2a030a0101"), "min above max"},
		{"value past max", sketchBytes(113, 1, 4, kp+"1a0101"+"220101"+"2a030a0102"), "outside"},
		{"two values in min", sketchBytes(113, 1, 4, kp+"1a020101"+"220101"+"2a030a0101"), "more than one"},
		{"bad varint", sketchBytes(113, 1, 4, kp+"1a0101"+"220101"+"2a030a0181"), "malformed"},
		{"float of 7 bytes", sketchBytes(113, 1, 10, kp+"1a0700000000000000"), ""},
		{"sampler full", sketchBytes(113, 1, 4, kp+"1a0101"+"220101"+"2a00"+"2a030a0101"+"3207"+"0a0101"+"1002"+"1801"), "sampled weight 2"},
		{"sampler without item", sketchBytes(113, 1, 4, kp+"1a0101"+"220101"+"2a00"+"3204"+"1001"+"1801"), "without a sampled item"},
		{"sampler too large", sketchBytes(113, 1, 4, kp+"1a0101"+"220101"+"2a030a0101"+"3202"+"1840"), "capacity"},
		{"diff-encoded float", sketchBytes(113, 1, 10, kp+"2a03120101"), "difference-encoded"},
		{"encoding version 2", append([]byte(docInit), 0x18, 0x02), "encoding version"},
	} {
		_, err := Parse(c.b)
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
}

// TestParseOtherEncodings: difference-encoded and non-packable
// compactors, fields given twice and unknown fields read as protobuf reads
// them.
func TestParseOtherEncodings(t *testing.T) {
	const kp = "088020" + "10e807"
	for _, c := range []struct {
		name string
		b    []byte
		want []int64
	}{
		{"diff-encoded", sketchBytes(113, 3, 4, kp+"1a0101"+"220105"+"2a05"+"1203010202"), []int64{1, 3, 5}},
		{"other values", sketchBytes(113, 3, 4, kp+"1a0101"+"220105"+"2a0b"+"1a09"+"0a0105"+"0a0101"+"0a0103"), []int64{1, 3, 5}},
		{"unknown fields", sketchBytes(113, 3, 4, kp+"3801"+"1a0101"+"220105"+"2a05"+"0a03010305"+"4200"), []int64{1, 3, 5}},
	} {
		s, err := Parse(c.b)
		require.NoError(t, err, c.name)
		assert.Equal(t, []int64{c.want[0], c.want[1], c.want[2]}, int64s(s.Quantiles(2)), c.name)
	}
	// The extension given twice merges: k and inv_eps from the first,
	// the rest from the second.
	b := append(sketchBytes(113, 3, 4, "088020"), sketchBytes(113, 3, 4, "10e807"+"1a0101"+"220105"+"2a05"+"0a03010305")[6:]...)
	s, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 3, 5}, int64s(s.Quantiles(2)))
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(docInit))
	f.Add([]byte(docMerged))
	f.Add(build(Int64, 1, 2000, 1).Bytes())
	f.Add(build(Int64, 10, 300, 1).Bytes())
	f.Add(build(Float64, 10, 300, 1).Bytes())
	f.Add(New(Int64, 1000).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		s.Quantiles(7)
		s.Quantile(.3)
		out := s.Bytes()
		o, err := Parse(out)
		if err != nil {
			t.Fatalf("re-reading %x: %v", out, err)
		}
		if fmt.Sprint(s.Quantiles(5)) != fmt.Sprint(o.Quantiles(5)) {
			t.Fatalf("quantiles changed on re-reading %x", out)
		}
		_ = s.Merge(o)
		_ = build(s.ValueType(), 1, 50, 1).Merge(s)
		_ = s.Merge(build(s.ValueType(), 1, 50, 1))
		s.Add(FloatKey(1), 3)
		s.Quantiles(3)
		if _, err := Parse(s.Bytes()); err != nil {
			t.Fatalf("re-reading a merge: %v", err)
		}
	})
}

package hll

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zetaSketch is a sketch from ZetaSQL's HLL_COUNT compliance cases: 10
// values counted, p = 15, sp = 25, sparse, with a reserved field 7 in the
// extension that a reader skips. It records no value type.
const zetaSketch = "\x08p\x10\n\x18\x02\x82\x07-\x10\n\x18\x0f \x192#\xea\xc8\xa9\x01\xb0\xb0T\xf3\xc3\x1f\xf6\xcd\x81\x06\xc2\xdd\n\xcb\xb7\xda\x01\xbb\xe3\xa6\x01\x86\xe2\x1d\xd0\xb0\x9a\x02\xd5\xc5\x1a8\x02"

// zetaMerged is what ZetaSQL's HLL_COUNT.MERGE_PARTIAL writes for
// zetaSketch merged with itself: 20 values, the same 10 sparse values, the
// field 7 dropped, and value type 8 (see exec's MERGE_PARTIAL).
const zetaMerged = "\x08p\x10\x14\x18\x02 \x08\x82\x07+\x10\x0a\x18\x0f \x192#\xea\xc8\xa9\x01\xb0\xb0T\xf3\xc3\x1f\xf6\xcd\x81\x06\xc2\xdd\x0a\xcb\xb7\xda\x01\xbb\xe3\xa6\x01\x86\xe2\x1d\xd0\xb0\x9a\x02\xd5\xc5\x1a"

func TestZetaSQLSketch(t *testing.T) {
	s, err := Parse([]byte(zetaSketch))
	require.NoError(t, err)
	// 10 sparse values in 2^25 buckets: 2^25·ln(2^25/(2^25−10)) = 10.0000015.
	assert.Equal(t, int64(10), s.Estimate())
	o, err := Parse([]byte(zetaSketch))
	require.NoError(t, err)
	require.NoError(t, s.Merge(o))
	assert.Equal(t, int64(10), s.Estimate())
	assert.Equal(t, []byte(zetaMerged), s.BytesAs(Integers))
}

// TestBigQueryHash checks the hash against sketches BigQuery's reference
// implementation wrote: the compliance sketch is INIT over the INT64s 0…9
// (p = 15, sp = 25), and the HLL_COUNT.INIT documentation shows the
// sketches of 'customer_id_1' and 'customer_id_2' (UA), twice
// 'customer_id_2' (CZ) and 'customer_id_3' (BR) at precision 10.
func TestBigQueryHash(t *testing.T) {
	s := &Sketch{enc: newEncoding(15, 25)}
	for i := int64(0); i < 10; i++ {
		s.AddHash(HashInt64(i))
	}
	want, err := Parse([]byte(zetaSketch))
	require.NoError(t, err)
	assert.Equal(t, want.values(), s.values())
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"customer_id_1", "customer_id_2"}, "\x08p\x10\x02\x18\x02 \x0b\x82\x07\r\x10\x02\x18\n \x0f2\x05\xf9\xe4\x01\xcd\x08"},
		{[]string{"customer_id_2", "customer_id_2"}, "\x08p\x10\x02\x18\x02 \x0b\x82\x07\x0b\x10\x01\x18\n \x0f2\x03\xf9\xe4\x01"},
		{[]string{"customer_id_3"}, "\x08p\x10\x01\x18\x02 \x0b\x82\x07\x0b\x10\x01\x18\n \x0f2\x03\x82\xe1\x01"},
	} {
		s := New(10, Bytes)
		for _, id := range c.ids {
			s.AddHash(HashBytes([]byte(id)))
		}
		assert.Equal(t, []byte(c.want), s.Bytes(), "%v", c.ids)
	}
}

// TestCraftedSketches are sketches no HLL++ writes: refused, or counted
// without a panic.
func TestCraftedSketches(t *testing.T) {
	for name, b := range map[string]string{
		// p 15, sp 20, one rho-encoded value with rhoW' 63 (at most 45).
		"rho past the bits": "\x08\x70\x10\x01\x18\x02\x20\x08\x82\x07\x0a\x18\x0f\x20\x14\x32\x04\xbf\x80\x80\x01",
		// p 15, sp 20, index 32 not rho-encoded (its low 5 bits are 0).
		"index that should be encoded": "\x08\x70\x10\x01\x18\x02\x82\x07\x07\x18\x0f\x20\x14\x32\x01\x20",
	} {
		_, err := Parse([]byte(b))
		assert.Error(t, err, name)
	}
	// p = sp = 4 with all 16 buckets set: no empty bucket to count by.
	full := &Sketch{enc: newEncoding(4, 4)}
	var vs []uint32
	for i := uint32(0); i < 16; i++ {
		vs = append(vs, full.enc.value(i, 1))
	}
	full.setSparse(vs)
	r, err := Parse(full.Bytes())
	require.NoError(t, err)
	assert.Positive(t, r.Estimate())
	// A normal sketch of precision 24 without registers is empty, and
	// stays small until a register is set.
	e, err := Parse([]byte("\x08\x70\x10\x00\x18\x02\x82\x07\x02\x18\x18"))
	require.NoError(t, err)
	assert.Equal(t, int64(0), e.Estimate())
	assert.Less(t, e.MemSize(), 1000)
}

// TestSerializeCompacts: a sparse sketch whose flushed values reach ¾·2^p
// bytes turns normal when it is serialized, as ZetaSQL's does, so its bytes
// do not depend on when the buffer was last flushed.
func TestSerializeCompacts(t *testing.T) {
	for n := 700; n < 800; n++ {
		s := build(10, 15, 0, n)
		b := s.Bytes()
		if s.normal {
			continue
		}
		assert.Less(t, s.sparseLen, 768, "n=%d", n)
		r, err := Parse(b)
		require.NoError(t, err)
		assert.False(t, r.normal)
	}
}

func TestSparseEncoding(t *testing.T) {
	e := newEncoding(15, 20)
	// 2^44: sparse index 1 (its low 5 bits are not zero, so the value is
	// the index); register 0, whose rhoW is that of the 49 bits after a
	// 15-bit index, 0…010…0 with the 1 at the 5th: 5.
	v := e.hashValue(1 << 44)
	assert.Equal(t, uint32(1), v)
	assert.Equal(t, uint32(0), e.normalIndex(v))
	assert.Equal(t, uint8(5), e.normalRho(v))
	// 2^50: sparse index 64, low 5 bits zero, so rho-encoded: the flag
	// 2^21, normal index 2, rhoW' of 44 zero bits = 45.
	v = e.hashValue(1 << 50)
	assert.Equal(t, uint32(1<<21|2<<6|45), v)
	assert.Equal(t, uint32(64), e.sparseIndex(v))
	assert.Equal(t, uint32(2), e.normalIndex(v))
	assert.Equal(t, uint8(50), e.normalRho(v)) // 49 zero bits after the index
	// Down to p = 13, sp = 18: the sparse index 64 → 16, whose low 5 bits
	// are not all zero, so the value is the index; at p = 13 that is
	// register 0 with rhoW 1 (2^50 << 13 has its top bit set).
	t13 := newEncoding(13, 18)
	d := e.downgrade(v, t13)
	assert.Equal(t, uint32(16), d)
	assert.Equal(t, uint32(0), t13.normalIndex(d))
	assert.Equal(t, uint8(1), t13.normalRho(d))
	// 2^52 at sp 18: index 64 again, rho-encoded: normal index 2 and
	// rhoW' 47 (46 zero bits after the 18-bit index).
	assert.Equal(t, uint32(1<<19|2<<6|47), t13.hashValue(1<<52))
}

func TestIncompatible(t *testing.T) {
	a, b := New(15, Integers), New(15, Bytes)
	a.AddHash(HashInt64(1))
	b.AddHash(HashBytes([]byte("x")))
	assert.ErrorIs(t, a.Merge(b), ErrIncompatible)
	// p 15 ≥ 14 but sp 20 < 25: neither is at least the other.
	c := &Sketch{vt: Integers, enc: newEncoding(14, 25)}
	c.AddHash(HashInt64(2))
	assert.ErrorIs(t, a.Merge(c), ErrIncompatible)
}

func TestParseRefuses(t *testing.T) {
	for name, b := range map[string]string{
		"empty":        "",
		"type only":    "\x08p",
		"version 1":    "\x08p\x10\x01\x82\x07\x04\x18\x0f \x14",
		"not HLL":      "\x08\x64\x10\x01\x18\x02\x82\x07\x04\x18\x0f \x14",
		"registers":    "\x08p\x10\x01\x18\x02\x82\x07\x07\x18\x0f \x14\x2a\x01\x00",
		"precision 30": "\x08p\x10\x01\x18\x02\x82\x07\x04\x18\x1e \x1e",
		"truncated":    zetaSketch[:20],
		"value type":   "\x08p\x10\x01\x18\x02 \x04\x82\x07\x04\x18\x0f \x14",
		// The extension given twice, the first cut inside a field that the
		// second would complete: each occurrence must parse on its own.
		"split extension": "\x08p\x10\x01\x18\x02\x82\x07\x01\x18\x82\x07\x03\x0f \x14",
	} {
		_, err := Parse([]byte(b))
		assert.Error(t, err, name)
	}
}

// build counts the ints lo…hi−1 in a sketch of precision p.
func build(p, sp int, lo, hi int) *Sketch {
	s := &Sketch{vt: Integers, enc: newEncoding(p, sp)}
	for i := lo; i < hi; i++ {
		s.AddHash(HashInt64(int64(i)))
	}
	return s
}

// registers is the normal form of a copy of s.
func registers(t *testing.T, s *Sketch) []uint8 {
	c, err := Parse(s.Bytes())
	require.NoError(t, err)
	if !c.normal {
		c.normalize()
	}
	return c.registers()
}

// TestMergeDowngrades checks that merging a finer sketch into a coarser one
// gives exactly the registers a sketch of the coarser precisions counting
// the same values has: HyperLogLog's registers at p are a function of those
// at any larger p, sparse or normal.
func TestMergeDowngrades(t *testing.T) {
	for _, c := range []struct{ p1, sp1, p2, sp2, n int }{
		{15, 20, 13, 18, 50},     // both sparse
		{15, 20, 13, 18, 20000},  // the finer normal
		{15, 20, 13, 18, 100000}, // both normal
		{15, 20, 15, 18, 3000},   // only sp lower
		{12, 17, 12, 17, 2500},   // the same precisions
		{24, 25, 10, 15, 700},
	} {
		fine := build(c.p1, c.sp1, 0, c.n)
		coarse := build(c.p2, c.sp2, c.n/2, c.n) // half of the values again
		direct := build(c.p2, c.sp2, 0, c.n)
		require.NoError(t, coarse.Merge(fine), "%+v", c)
		assert.Equal(t, registers(t, direct), registers(t, coarse), "%+v", c)
		assert.Equal(t, direct.Estimate(), coarse.Estimate(), "%+v", c)
		assert.Equal(t, int64(c.n+c.n-c.n/2), coarse.numValues)
		// And merged the other way round: the finer one is downgraded.
		fine = build(c.p1, c.sp1, 0, c.n)
		coarse = build(c.p2, c.sp2, c.n/2, c.n)
		require.NoError(t, fine.Merge(coarse), "%+v", c)
		assert.Equal(t, registers(t, direct), registers(t, fine), "%+v", c)
	}
}

// TestEstimateError checks the estimate against the true count: within
// four standard errors (1.04/√2^p) over the sparse, linear-counting and
// Ertl ranges. The hash is fixed, so this is deterministic.
func TestEstimateError(t *testing.T) {
	for _, c := range []struct{ p, n int }{
		{15, 100}, {15, 5000}, {15, 30000}, {15, 100000}, {15, 1000000},
		{10, 3000}, {10, 100000}, {20, 2000000},
	} {
		s := build(c.p, min(c.p+5, 25), 0, c.n)
		got := float64(s.Estimate())
		se := 1.04 / math.Sqrt(float64(int(1)<<c.p))
		assert.InDelta(t, 1, got/float64(c.n), 4*se, "p=%d n=%d estimate %v", c.p, c.n, got)
	}
	// Few values in 2^20 sparse buckets are counted exactly (no two of
	// these 100 hashes share a bucket).
	assert.Equal(t, int64(100), build(15, 20, 0, 100).Estimate())
	assert.Equal(t, int64(0), New(15, Integers).Estimate())
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{1, 40, 9000, 60000} {
		s := build(14, 19, 0, n)
		b := s.Bytes()
		r, err := Parse(b)
		require.NoError(t, err)
		assert.Equal(t, b, r.Bytes(), "n=%d", n)
		assert.Equal(t, s.Estimate(), r.Estimate(), "n=%d", n)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(zetaSketch))
	f.Add(build(10, 15, 0, 2000).Bytes())
	f.Add(build(10, 15, 0, 20).Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		s.Estimate()
		out := s.Bytes()
		o, err := Parse(out)
		if err != nil {
			t.Fatalf("re-reading %q: %v", out, err)
		}
		_ = s.Merge(o)
		_ = build(10, 15, 0, 50).Merge(s)
		s.Estimate()
	})
}

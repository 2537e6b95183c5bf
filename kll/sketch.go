package kll

import (
	"errors"
	"math"
	"math/bits"
	"slices"
)

// The precisions KLL_QUANTILES.INIT takes (1000 by default), and the largest
// weight of one input row.
const (
	MinPrecision     = 1
	MaxPrecision     = 100000
	DefaultPrecision = 1000
	MaxWeight        = math.MaxInt32
)

const (
	// invDelta is 1/δ, the failure probability BigQuery's sketches are
	// sized for (the precision's bound holds in 99.999% of cases).
	invDelta = 100000
	// shrink is c, the ratio of the capacities of adjacent levels.
	shrink = 2.0 / 3.0
	// maxTotal bounds a sketch's total weight (its num_values and the
	// weight its items stand for), so that sums and ranks never overflow.
	maxTotal = 1 << 62
	// maxLevels bounds the levels: level h weighs 2^h.
	maxLevels = 63
	// minK and maxK bound the k of a sketch read from bytes: below 4 no
	// level has room (precision 1 gives 4), above 2^22 is far past
	// precision 100000's 2^19.
	minK = 4
	maxK = 1 << 22
	// seed starts every sketch's random sequence: logq's sketches are
	// reproducible (BigQuery's are seeded at random).
	seed = 0x6b6c6c5f71756e74
)

// ValueType is what a sketch holds, as the state records it (ZetaSQL's
// DefaultOpsType ids); sketches of different types do not merge.
type ValueType int32

const (
	Int64   ValueType = 4
	Float64 ValueType = 10
)

func (t ValueType) String() string {
	switch t {
	case Int64:
		return "INT64"
	case Float64:
		return "FLOAT64"
	}
	return "unknown"
}

// ErrIncompatible is a merge of sketches of different value types.
var ErrIncompatible = errors.New("sketches of different value types")

// ErrTooLarge is a sketch whose total weight would pass 2^62.
var ErrTooLarge = errors.New("the sketch's total weight passes 2^62")

// Key is a value as the sketch orders it: an unsigned integer whose order
// is the value's (GoogleSQL's order for FLOAT64: NaN first, then −inf …
// +inf, −0 just before +0).
type Key uint64

// IntKey is the key of an INT64.
func IntKey(v int64) Key { return Key(uint64(v) ^ 1<<63) }

// Int64 is the INT64 a key stands for.
func (k Key) Int64() int64 { return int64(uint64(k) ^ 1<<63) }

// canonicalNaN is the NaN a sketch writes and returns (the quiet NaN of
// C++'s numeric_limits).
const canonicalNaN = 0x7ff8000000000000

// FloatKey is the key of a FLOAT64: every NaN is key 0, below −inf.
func FloatKey(f float64) Key {
	if f != f {
		return 0
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return Key(^b)
	}
	return Key(b | 1<<63)
}

// Float64 is the FLOAT64 a key stands for.
func (k Key) Float64() float64 {
	switch {
	case k == 0:
		return math.Float64frombits(canonicalNaN)
	case k>>63 != 0:
		return math.Float64frombits(uint64(k) &^ (1 << 63))
	}
	return math.Float64frombits(^uint64(k))
}

// KFor is the size of the top level of a sketch of precision invEps:
// 2^round(log2(invEps·√log2(1/δ))) with δ = 10^-5, as BigQuery sizes it
// (precision 1000 gives 4096).
func KFor(invEps int64) int {
	raw := float64(invEps) * math.Sqrt(math.Log2(invDelta))
	return 1 << int(math.Round(math.Log2(raw)))
}

// Sketch is one KLL quantiles sketch (Karnin, Lang and Liberty, "Optimal
// Quantile Approximation in Streams", 2016), as Google's implementation
// keeps it: a stack of compactors (levels; an item of level h stands for
// 2^h inputs), level 0 taking the inputs; a level past its capacity is
// sorted and halved (the even or the odd positions, at random, move one
// level up). The capacities shrink by 2/3 per level down from k at the top;
// levels whose capacity would be 2 or less are replaced by a sampler that
// keeps one item out of 2^lal (reservoir sampling). Min, max and the
// number of inputs are kept exactly.
type Sketch struct {
	vt       ValueType
	invEps   int64
	k        int
	n        int64 // num_values: the inputs' total weight
	min, max Key   // when n > 0
	levels   [][]Key
	items    int // in levels
	capacity int // the sum of the active levels' capacities
	// The sampler: lal is the lowest active level, log2 of the sampler's
	// capacity (0: no sampler); it holds sample, standing for sampleW
	// inputs (0: none yet).
	lal     int
	sample  Key
	sampleW int64
	rng     uint64
}

// New returns an empty sketch of values of type vt at precision
// invEps (MinPrecision … MaxPrecision).
func New(vt ValueType, invEps int64) *Sketch {
	s := &Sketch{vt: vt, invEps: invEps, k: KFor(invEps), rng: seed}
	s.levels = [][]Key{nil}
	s.capacity = s.targetCapacity(0)
	return s
}

// ValueType is what the sketch holds.
func (s *Sketch) ValueType() ValueType { return s.vt }

// Precision is the sketch's inv_eps: its ranks are within n/precision.
func (s *Sketch) Precision() int64 { return s.invEps }

// K is the capacity of the sketch's top level.
func (s *Sketch) K() int { return s.k }

// Count is the total weight of the inputs (num_values).
func (s *Sketch) Count() int64 { return s.n }

// Exact reports whether the sketch holds every input (weight 1 each,
// never compacted): its quantiles are the exact ones.
func (s *Sketch) Exact() bool {
	if s.lal != 0 || s.sampleW != 0 {
		return false
	}
	for _, l := range s.levels[1:] {
		if len(l) > 0 {
			return false
		}
	}
	return true
}

// MemSize is about how many bytes the sketch holds.
func (s *Sketch) MemSize() int {
	n := 128 + 24*cap(s.levels)
	for _, l := range s.levels {
		n += 8 * cap(l)
	}
	return n
}

// Clone returns a copy sharing nothing with s.
func (s *Sketch) Clone() *Sketch {
	c := *s
	c.levels = make([][]Key, len(s.levels))
	for i, l := range s.levels {
		c.levels[i] = slices.Clone(l)
	}
	return &c
}

// Add adds value v with weight w (1 … 2^62; w < 1 adds nothing). It fails
// only when the sketch's total weight would pass 2^62.
func (s *Sketch) Add(v Key, w int64) error {
	if w < 1 {
		return nil
	}
	if w > maxTotal-s.n {
		return ErrTooLarge
	}
	s.see(v)
	s.n += w
	if w == 1 {
		s.add1(v)
	} else {
		s.addWeighted(v, w)
	}
	return nil
}

// see updates the exact min and max with v (before n counts it).
func (s *Sketch) see(v Key) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
}

// next is splitmix64.
func (s *Sketch) next() uint64 {
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// uniform is a pseudo-random integer in [0, n) (n ≥ 1).
func (s *Sketch) uniform(n uint64) uint64 {
	hi, _ := bits.Mul64(s.next(), n)
	return hi
}

// targetCapacity is level h's capacity, ⌈(2/3)^(L−h−1)·k⌉ with L levels,
// or 0 when that is 2 or less (the sampler's levels) or h is below the
// lowest active level.
func (s *Sketch) targetCapacity(h int) int {
	if h < s.lal {
		return 0
	}
	c := math.Ceil(math.Pow(shrink, float64(len(s.levels)-h-1)) * float64(s.k))
	if c > 2 {
		return int(c)
	}
	return 0
}

// add1 adds one input of weight 1.
func (s *Sketch) add1(v Key) {
	if s.lal > 0 {
		s.samplerAdd(v)
		return
	}
	s.levels[0] = append(s.levels[0], v)
	s.items++
	if s.items >= s.capacity {
		s.compactStack()
	}
}

// addWeighted adds an item of weight w: its weight below the sampler's
// capacity goes to the sampler, the rest in binary, one item per set bit
// at that bit's level.
func (s *Sketch) addWeighted(v Key, w int64) {
	if w <= 0 {
		return
	}
	level := 0
	if lal := s.lal; lal > 0 {
		rem := w & (1<<lal - 1)
		w >>= lal
		level = lal
		if rem > 0 {
			s.samplerAddWeighted(v, rem) // may move the sampler up: the rest still goes to lal
		}
	}
	for w != 0 && level < maxLevels {
		for level >= len(s.levels) {
			s.addLevel()
		}
		if w&1 != 0 {
			s.levels[level] = append(s.levels[level], v)
			s.items++
		}
		w >>= 1
		level++
	}
	s.compactStack()
}

// samplerAdd is reservoir sampling of one input.
func (s *Sketch) samplerAdd(v Key) {
	s.sampleW++
	if s.uniform(uint64(s.sampleW)) == 0 {
		s.sample = v
	}
	if s.sampleW >= 1<<s.lal {
		s.flushSampler()
	}
}

// samplerAddWeighted samples an item of weight w: while it fills the
// sampler, the sample moves into the stack at full capacity.
func (s *Sketch) samplerAddWeighted(v Key, w int64) {
	for w > 0 {
		c := int64(1) << s.lal
		if s.sampleW+w < c {
			s.sampleW += w
			if s.uniform(uint64(s.sampleW)) < uint64(w) {
				s.sample = v
			}
			return
		}
		added := c - s.sampleW
		if s.uniform(uint64(c)) < uint64(added) {
			s.sample = v
		}
		s.sampleW = c
		s.flushSampler()
		w -= added
	}
}

// flushSampler moves the full sampler's sample into the stack.
func (s *Sketch) flushSampler() {
	v, w := s.sample, s.sampleW
	s.sample, s.sampleW = 0, 0
	s.addWeighted(v, w)
}

// addLevel adds a level on top; the levels' capacities shift, and a lowest
// active level left with none is given to the sampler.
func (s *Sketch) addLevel() {
	s.levels = append(s.levels, nil)
	c := s.targetCapacity(s.lal)
	s.capacity += c
	if c == 0 {
		s.raiseSampler()
	}
}

// raiseSampler starts the sampler, or doubles its capacity: the lowest
// active level is compacted into the next and replaced.
func (s *Sketch) raiseSampler() {
	prev := s.lal
	s.lal++
	s.compactLevel(prev)
}

// compactStack compacts the lowest levels past their capacity while the
// stack holds more items than its capacity.
func (s *Sketch) compactStack() {
	for s.items >= s.capacity {
		progressed := false
		for h := 0; h < len(s.levels); h++ {
			if n := len(s.levels[h]); n > 0 && n >= s.targetCapacity(h) {
				if !s.compactLevel(h) {
					continue
				}
				progressed = true
				if s.items < s.capacity {
					break
				}
			}
		}
		if !progressed {
			return // only past maxLevels, which no real input reaches
		}
	}
}

// compactLevel halves level h into level h+1, adding a level when h is the
// top one.
func (s *Sketch) compactLevel(h int) bool {
	if h == len(s.levels)-1 {
		if len(s.levels) >= maxLevels {
			return false
		}
		s.addLevel()
	}
	lv := s.levels[h]
	slices.Sort(lv)
	start, removed := 0, len(lv)/2 // the even positions stay
	if s.uniform(2) != 0 {
		start, removed = 1, (len(lv)+1)/2
	}
	up := s.levels[h+1]
	for i := start; i < len(lv); i += 2 {
		up = append(up, lv[i])
	}
	s.levels[h+1] = up
	s.levels[h] = lv[:0]
	if cap(lv) > 2*s.targetCapacity(h)+16 {
		s.levels[h] = nil // its capacity shrank as levels were added: let it regrow
	}
	s.items -= removed
	return true
}

// restructure makes the capacities agree with the levels, k and the
// sampler (after a sketch is read or its k lowered): the capacity is summed
// anew, a lowest active level with none goes to the sampler, and, with
// compact, levels past their capacity are compacted.
func (s *Sketch) restructure(compact bool) {
	for len(s.levels) <= s.lal {
		s.levels = append(s.levels, nil)
	}
	s.items = 0
	for _, l := range s.levels {
		s.items += len(l)
	}
	s.capacity = 0
	for h := s.lal; h < len(s.levels); h++ {
		s.capacity += s.targetCapacity(h)
	}
	for s.targetCapacity(s.lal) == 0 && len(s.levels) < maxLevels {
		s.raiseSampler()
	}
	if compact {
		s.compactStack()
	}
}

// setPrecision lowers the sketch's precision to invEps and k.
func (s *Sketch) setPrecision(invEps int64, k int) {
	if invEps >= s.invEps && k >= s.k {
		return
	}
	s.invEps, s.k = min(s.invEps, invEps), min(s.k, k)
	s.restructure(true)
}

// Merge adds sketch o's inputs to s (o is left as it was). A sketch that
// holds its inputs exactly is added input by input to the other, into the
// one of the higher precision when both are exact; a merge that is still
// exact keeps that precision, any other takes the lower of the two
// (BigQuery's rule). Two compacted sketches merge level by level, the
// sampled item added with its weight.
func (s *Sketch) Merge(o *Sketch) error {
	if s.vt != o.vt {
		return ErrIncompatible
	}
	if o.n > maxTotal-s.n || o.storedWeight() > maxTotal-s.storedWeight() {
		return ErrTooLarge
	}
	invEps, k := min(s.invEps, o.invEps), min(s.k, o.k)
	se, oe := s.Exact(), o.Exact()
	if se && (!oe || o.invEps > s.invEps) {
		// Receive into o's copy: s is exact and o is not, or o's
		// precision is the higher of two exact ones.
		in := *s
		*s = *o.Clone()
		s.rng = in.rng
		s.addAll(&in, true)
		o = &in
	} else {
		s.addAll(o, oe)
	}
	if !s.Exact() {
		s.setPrecision(invEps, k)
	}
	return nil
}

// addAll adds o's items, min, max and count to s: one by one when o is
// exact, else level by level.
func (s *Sketch) addAll(o *Sketch, exact bool) {
	switch {
	case o.n == 0:
	case s.n == 0:
		s.min, s.max = o.min, o.max
	default:
		s.min, s.max = min(s.min, o.min), max(s.max, o.max)
	}
	s.n += o.n
	if exact {
		for _, v := range o.levels[0] {
			s.add1(v)
		}
		return
	}
	for len(s.levels) < len(o.levels) {
		s.levels = append(s.levels, nil)
	}
	for h, l := range o.levels {
		s.levels[h] = append(s.levels[h], l...)
		s.items += len(l)
	}
	s.restructure(true)
	if o.sampleW > 0 {
		s.addWeighted(o.sample, o.sampleW)
	}
}

// storedWeight is the weight the items stand for (saturating at 2^63).
func (s *Sketch) storedWeight() int64 {
	var t uint64
	for h, l := range s.levels {
		t = satAdd(t, satMul(uint64(len(l)), 1<<h))
	}
	return int64(min(satAdd(t, uint64(s.sampleW)), math.MaxInt64))
}

func satAdd(a, b uint64) uint64 {
	if s, c := bits.Add64(a, b, 0); c == 0 {
		return s
	}
	return math.MaxUint64
}

func satMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}

package kll

import (
	"math"
	"math/bits"
	"slices"
)

// weighted is one stored item and the number of inputs it stands for.
type weighted struct {
	k Key
	w uint64
}

// sorted is every stored item (the sampled one too) in order, and their
// total weight W.
func (s *Sketch) sorted() ([]weighted, uint64) {
	out := make([]weighted, 0, s.items+1)
	var total uint64
	for h, l := range s.levels {
		w := uint64(1) << h
		for _, v := range l {
			out = append(out, weighted{v, w})
		}
		total = satAdd(total, satMul(uint64(len(l)), w))
	}
	if s.sampleW > 0 {
		out = append(out, weighted{s.sample, uint64(s.sampleW)})
		total = satAdd(total, uint64(s.sampleW))
	}
	slices.SortFunc(out, func(a, b weighted) int {
		switch {
		case a.k < b.k:
			return -1
		case a.k > b.k:
			return 1
		}
		return 0
	})
	return out, total
}

// at is the first item whose cumulative weight reaches rank r (from i, the
// position where the walk is, cum the weight before it).
func at(items []weighted, r uint64, i int, cum uint64) (Key, int, uint64) {
	for i < len(items)-1 && satAdd(cum, items[i].w) < r {
		cum = satAdd(cum, items[i].w)
		i++
	}
	return items[i].k, i, cum
}

// Quantiles are the sketch's q-quantiles (q ≥ 1): q+1 values, the exact
// minimum, the items of ranks ⌈i·W/q⌉ for i = 1 … q−1 in the sorted items
// weighted by the inputs they stand for (W in all), and the exact maximum.
// An empty sketch has none (nil).
func (s *Sketch) Quantiles(q int) []Key {
	if s.n == 0 || q < 1 {
		return nil
	}
	items, total := s.sorted()
	if len(items) == 0 {
		return nil
	}
	out := make([]Key, q+1)
	out[0], out[q] = s.min, s.max
	i, cum := 0, uint64(0)
	for j := 1; j < q; j++ {
		// ⌈j·W/q⌉ in 128 bits: j < q ≤ 2^31.
		hi, lo := bits.Mul64(uint64(j), total)
		lo, c := bits.Add64(lo, uint64(q-1), 0)
		r, _ := bits.Div64(hi+c, lo, uint64(q))
		out[j], i, cum = at(items, max(r, 1), i, cum)
	}
	return out
}

// Quantile is the sketch's phi-quantile (0 ≤ phi ≤ 1): the exact minimum
// for 0, the exact maximum for 1, else the item of rank ⌈phi·W⌉. An empty
// sketch has none (false).
func (s *Sketch) Quantile(phi float64) (Key, bool) {
	switch {
	case s.n == 0 || !(phi >= 0 && phi <= 1):
		return 0, false
	case phi == 0:
		return s.min, true
	case phi == 1:
		return s.max, true
	}
	items, total := s.sorted()
	if len(items) == 0 {
		return 0, false
	}
	r := math.Ceil(phi * float64(total))
	rank := uint64(1)
	if r >= float64(total) {
		rank = total
	} else if r > 1 {
		rank = uint64(r)
	}
	k, _, _ := at(items, rank, 0, 0)
	return k, true
}

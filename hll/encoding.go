package hll

import "math/bits"

// rhoBits is how many low bits of a rho-encoded sparse value hold rhoW'.
const rhoBits = 6

// encoding is the sparse encoding of a sketch's precisions p (normal) and
// sp (sparse). A sparse value is a hash's sp-bit index; but when the index's
// low sp−p bits are all zero, the normal rhoW cannot be read from them, so
// the value is instead flag | normal index << 6 | rhoW' (rhoW of the bits
// after the sparse index). The flag sits above every bit either form uses,
// so the two never interleave when sorted.
type encoding struct {
	p, sp int
	flag  uint32
}

func newEncoding(p, sp int) encoding {
	return encoding{p: p, sp: sp, flag: 1 << max(sp, p+rhoBits)}
}

// rhoW is one plus the number of leading zeros of the low n bits of h
// (n+1 when they are all zero): HyperLogLog's ρ of what follows the index.
func rhoW(h uint64, n int) uint8 {
	w := h << (64 - n)
	if w == 0 {
		return uint8(n + 1)
	}
	return uint8(bits.LeadingZeros64(w) + 1)
}

// hashValue is the sparse value of hash h.
func (e encoding) hashValue(h uint64) uint32 {
	return e.value(uint32(h>>(64-e.sp)), rhoW(h, 64-e.sp))
}

// value encodes a sparse index and its rhoW'.
func (e encoding) value(idx uint32, rho uint8) uint32 {
	if idx&(1<<(e.sp-e.p)-1) != 0 {
		return idx
	}
	return e.flag | idx>>(e.sp-e.p)<<rhoBits | uint32(rho)
}

func (e encoding) encoded(v uint32) bool { return v&e.flag != 0 }

// sparseIndex is the sp-bit index of a sparse value.
func (e encoding) sparseIndex(v uint32) uint32 {
	if !e.encoded(v) {
		return v
	}
	return (v ^ e.flag) >> rhoBits << (e.sp - e.p)
}

// sparseRho is the rhoW' a value holds, 0 when it holds none (its index
// says everything).
func (e encoding) sparseRho(v uint32) uint8 {
	if !e.encoded(v) {
		return 0
	}
	return uint8(v & (1<<rhoBits - 1))
}

// normalIndex and normalRho are the register a sparse value sets and the
// value it sets it to.
func (e encoding) normalIndex(v uint32) uint32 {
	if !e.encoded(v) {
		return v >> (e.sp - e.p)
	}
	return (v ^ e.flag) >> rhoBits
}

func (e encoding) normalRho(v uint32) uint8 {
	if !e.encoded(v) {
		return rhoW(uint64(v), e.sp-e.p)
	}
	return uint8(v&(1<<rhoBits-1)) + uint8(e.sp-e.p)
}

// downgradeRho is the rhoW at precision to of an index at precision from
// (to ≤ from) whose rhoW was rho: the bits the shorter index drops come
// first, and only when they are all zero does the old rhoW still count.
func downgradeRho(idx uint32, rho uint8, from, to int) uint8 {
	if from == to {
		return rho
	}
	suffix := idx << (32 - from + to)
	if suffix == 0 {
		return rho + uint8(from-to)
	}
	return uint8(bits.LeadingZeros32(suffix) + 1)
}

// downgrade re-encodes a value of e in the smaller encoding t.
func (e encoding) downgrade(v uint32, t encoding) uint32 {
	idx := e.sparseIndex(v)
	return t.value(idx>>(e.sp-t.sp), downgradeRho(idx, e.sparseRho(v), e.sp, t.sp))
}

// dedupe keeps, of sorted values, one per sparse index: the largest, whose
// rhoW' is the largest (values that are only an index repeat exactly).
func (e encoding) dedupe(sorted []uint32) []uint32 {
	out := sorted[:0]
	for i := 0; i < len(sorted); {
		v := sorted[i]
		j := i + 1
		if !e.encoded(v) {
			for j < len(sorted) && sorted[j] == v {
				j++
			}
		} else {
			idx := e.sparseIndex(v)
			for j < len(sorted) && e.sparseIndex(sorted[j]) == idx {
				v = sorted[j]
				j++
			}
		}
		out = append(out, v)
		i = j
	}
	return out
}

// less reports whether e is finer in neither precision than t and coarser
// in one: merging them downgrades to the smaller.
func (e encoding) less(t encoding) bool { return e.p < t.p || e.sp < t.sp }

// compatible reports whether one encoding is at least the other in both
// precisions; only then can sparse values of one be read in the other.
func (e encoding) compatible(t encoding) bool {
	return (e.p <= t.p && e.sp <= t.sp) || (e.p >= t.p && e.sp >= t.sp)
}

// valid reports whether v is a value of the encoding: an sp-bit index, or
// the flag over a p-bit normal index and a rhoW'.
func (e encoding) valid(v uint32) bool {
	if !e.encoded(v) {
		// An index whose low sp−p bits are all zero is always rho-encoded.
		return v < 1<<e.sp && v&(1<<(e.sp-e.p)-1) != 0
	}
	rho := v & (1<<rhoBits - 1)
	return v^e.flag < 1<<(e.p+rhoBits) && rho >= 1 && int(rho) <= 65-e.sp
}

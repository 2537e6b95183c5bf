package hll

import (
	"encoding/binary"
	"math/bits"
)

// fingerprint2011 is Geoff Pike's 64-bit Fingerprint2011, the hash that
// BigQuery's (and zetasketch's) HLL++ sketches count values by, written
// here from the published algorithm (Guava's Hashing.fingerprint2011).
// Inputs of up to 32 bytes go through a seeded MurmurHash2-64, up to 64
// bytes through a CityHash-style mix of both ends, longer ones through
// 64-byte rounds; the result is then mixed with the first and last 8 bytes.
func fingerprint2011(b []byte) uint64 {
	n := len(b)
	var h uint64
	switch {
	case n <= 32:
		h = murmur2Seeded(b, fpK0^fpK1^fpK2)
	case n <= 64:
		h = fpLength33To64(b)
	default:
		h = fpLong(b)
	}
	u, v := uint64(fpK0), uint64(fpK0)
	if n >= 8 {
		u = le64(b)
	}
	if n >= 9 {
		v = le64(b[n-8:])
	}
	h = fpMix128(h+v, u)
	if h == 0 || h == 1 {
		h -= 2 // the two values the algorithm reserves
	}
	return h
}

const (
	fpK0 = 0xa5b85c5e198ed849
	fpK1 = 0x8d58ac26afe12e47
	fpK2 = 0xc47b6e9e3a970ed3
	fpK3 = 0xc6a4a7935bd1e995
)

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func ror(x uint64, k int) uint64 { return bits.RotateLeft64(x, -k) }

func shiftMix(x uint64) uint64 { return x ^ x>>47 }

// fpMix128 folds 128 bits into 64 (Hash128to64).
func fpMix128(hi, lo uint64) uint64 {
	a := (lo ^ hi) * fpK3
	a ^= a >> 47
	c := (hi ^ a) * fpK3
	c ^= c >> 47
	return c * fpK3
}

// murmur2Seeded is MurmurHash2-64 with a seed; a last partial word is read
// little-endian.
func murmur2Seeded(b []byte, seed uint64) uint64 {
	h := seed ^ uint64(len(b))*fpK3
	whole := len(b) &^ 7
	for i := 0; i < whole; i += 8 {
		h ^= shiftMix(le64(b[i:])*fpK3) * fpK3
		h *= fpK3
	}
	if rest := b[whole:]; len(rest) > 0 {
		var w [8]byte
		copy(w[:], rest)
		h ^= le64(w[:])
		h *= fpK3
	}
	return shiftMix(shiftMix(h) * fpK3)
}

// fpLength33To64 hashes 33 to 64 bytes from both of their ends.
func fpLength33To64(b []byte) uint64 {
	n := len(b)
	z := le64(b[24:])
	a := le64(b) + (uint64(n)+le64(b[n-16:]))*fpK0
	c1 := ror(a+z, 52)
	c2 := ror(a, 37)
	a += le64(b[8:])
	c2 += ror(a, 7)
	a += le64(b[16:])
	vf, vs := a+z, c1+ror(a, 31)+c2
	a = le64(b[16:]) + le64(b[n-32:])
	z = le64(b[n-8:])
	c1 = ror(a+z, 52)
	c2 = ror(a, 37)
	a += le64(b[n-24:])
	c2 += ror(a, 7)
	a += le64(b[n-16:])
	wf, ws := a+z, c1+ror(a, 31)+c2
	r := shiftMix((vf+ws)*fpK2 + (wf+vs)*fpK0)
	return shiftMix(r*fpK0+vs) * fpK2
}

// fpWeak32 hashes 32 bytes with two seeds into a pair.
func fpWeak32(b []byte, a, s uint64) (uint64, uint64) {
	p1, p2, p3, p4 := le64(b), le64(b[8:]), le64(b[16:]), le64(b[24:])
	a += p1
	s = ror(s+a+p4, 51)
	c := a
	a += p2 + p3
	s += ror(a, 23)
	return a + p4, s + c
}

// fpLong hashes more than 64 bytes: the last 64 first, then each 64-byte
// chunk from the start, keeping 56 bytes of state.
func fpLong(b []byte) uint64 {
	n := len(b)
	x := le64(b)
	y := le64(b[n-16:]) ^ fpK1
	z := le64(b[n-56:]) ^ fpK0
	v0, v1 := fpWeak32(b[n-64:], uint64(n), y)
	w0, w1 := fpWeak32(b[n-32:], uint64(n)*fpK1, fpK0)
	z += shiftMix(v1) * fpK1
	x = ror(z+x, 39) * fpK1
	y = ror(y, 33) * fpK1
	for off, left := 0, (n-1)&^63; left != 0; off, left = off+64, left-64 {
		x = ror(x+y+v0+le64(b[off+16:]), 37) * fpK1
		y = ror(y+v1+le64(b[off+48:]), 42) * fpK1
		x ^= w1
		y ^= v0
		z = ror(z^w0, 33)
		v0, v1 = fpWeak32(b[off:], v1*fpK1, x+w0)
		w0, w1 = fpWeak32(b[off+32:], z+w1, y)
		z, x = x, z
	}
	return fpMix128(fpMix128(v0, w0)+shiftMix(y)*fpK1+z, fpMix128(v1, w1)+x)
}

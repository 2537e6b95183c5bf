package aead

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"errors"
)

// AES-SIV (RFC 5297): S2V, a CMAC chain (RFC 4493) over the headers and
// the plaintext, is both the synthetic IV and the tag; the plaintext is
// encrypted in CTR mode from that IV with bits 31 and 63 cleared. The key
// is two AES keys: the first half for S2V, the second for CTR.

// dbl is doubling in GF(2^128): a left shift, reduced by x^128 + x^7 + x^2
// + x + 1.
func dbl(b [16]byte) [16]byte {
	var out [16]byte
	carry := b[0] >> 7
	for i := 0; i < 15; i++ {
		out[i] = b[i]<<1 | b[i+1]>>7
	}
	out[15] = b[15] << 1
	if carry == 1 {
		out[15] ^= 0x87
	}
	return out
}

// cmac is AES-CMAC of m.
func cmac(c cipher.Block, m []byte) [16]byte {
	var l [16]byte
	c.Encrypt(l[:], l[:])
	k1 := dbl(l)
	k2 := dbl(k1)
	n := (len(m) + 15) / 16
	complete := n > 0 && len(m)%16 == 0
	if n == 0 {
		n = 1
	}
	var x [16]byte
	for i := 0; i < n-1; i++ {
		for j := range 16 {
			x[j] ^= m[16*i+j]
		}
		c.Encrypt(x[:], x[:])
	}
	var last [16]byte
	rest := m[16*(n-1):]
	copy(last[:], rest)
	k := k1
	if !complete {
		last[len(rest)] = 0x80
		k = k2
	}
	for j := range 16 {
		x[j] ^= last[j] ^ k[j]
	}
	c.Encrypt(x[:], x[:])
	return x
}

// s2v is S2V over the headers and the final string p.
func s2v(c cipher.Block, headers [][]byte, p []byte) [16]byte {
	var zero [16]byte
	d := cmac(c, zero[:])
	for _, h := range headers {
		m := cmac(c, h)
		d = dbl(d)
		for j := range 16 {
			d[j] ^= m[j]
		}
	}
	var t []byte
	if len(p) >= 16 {
		t = append([]byte(nil), p...)
		off := len(t) - 16
		for j := range 16 {
			t[off+j] ^= d[j]
		}
	} else {
		d = dbl(d)
		var pad [16]byte
		copy(pad[:], p)
		pad[len(p)] = 0x80
		for j := range 16 {
			pad[j] ^= d[j]
		}
		t = pad[:]
	}
	return cmac(c, t)
}

type siv struct{ mac, ctr cipher.Block }

func newSIV(key []byte) (*siv, error) {
	if len(key) != 64 && len(key) != 32 { // 64 in keysets (checked there); 32 for RFC 5297's AES-128 vector
		return nil, errors.New("an AES-SIV key has 64 bytes")
	}
	mac, err := aes.NewCipher(key[:len(key)/2])
	if err != nil {
		return nil, err
	}
	ctr, err := aes.NewCipher(key[len(key)/2:])
	if err != nil {
		return nil, err
	}
	return &siv{mac: mac, ctr: ctr}, nil
}

func (s *siv) xorCTR(v [16]byte, dst, src []byte) {
	v[8] &= 0x7f
	v[12] &= 0x7f
	cipher.NewCTR(s.ctr, v[:]).XORKeyStream(dst, src)
}

// seal is V || C for the plaintext p under the headers.
func (s *siv) seal(p []byte, headers ...[]byte) []byte {
	v := s2v(s.mac, headers, p)
	out := make([]byte, 16+len(p))
	copy(out, v[:])
	s.xorCTR(v, out[16:], p)
	return out
}

// open checks and decrypts V || C.
func (s *siv) open(c []byte, headers ...[]byte) ([]byte, bool) {
	if len(c) < 16 {
		return nil, false
	}
	var v [16]byte
	copy(v[:], c)
	p := make([]byte, len(c)-16)
	s.xorCTR(v, p, c[16:])
	t := s2v(s.mac, headers, p)
	return p, subtle.ConstantTimeCompare(t[:], v[:]) == 1
}

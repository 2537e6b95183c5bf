package aead

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// ErrDecrypt is a ciphertext no enabled key of the keyset opens (wrong
// key, additional data or bytes).
var ErrDecrypt = errors.New("decryption failed")

// Kind is which primitive a keyset is used as.
type Kind int

const (
	AEAD          Kind = iota // AES-GCM keys (and AES_CBC_PKCS keys, to decrypt)
	Deterministic             // AES-SIV keys
)

func (k Kind) name() string {
	if k == Deterministic {
		return "Deterministic AEAD"
	}
	return "AEAD"
}

// check is Tink's primitive creation: at least one key, an enabled primary
// among them, and every enabled key of the primitive's kind.
func (ks *Keyset) check(kind Kind) error {
	fail := func(msg string) error {
		return errors.New("Creation of " + kind.name() + " primitive failed: " + msg)
	}
	if len(ks.Keys) == 0 {
		return fail("A valid keyset must contain at least one key.")
	}
	primary := false
	for _, k := range ks.Keys {
		if k.Status != statusEnabled {
			continue
		}
		if !k.HasData || !kind.accepts(k.TypeURL) {
			return fail("the keyset holds a key of type " + k.TypeURL + ", not one of this primitive")
		}
		raw, err := k.keyBytes()
		if err != nil {
			return fail(err.Error())
		}
		if want := keySizes[k.TypeURL]; !slices.Contains(want, len(raw)) {
			return fail(fmt.Sprintf("a key of type %s has %d bytes, not %v", k.TypeURL, len(raw), want))
		}
		if k.Prefix < prefixTink || k.Prefix > prefixCrunchy {
			return fail(fmt.Sprintf("key %d has no valid output prefix type", k.ID))
		}
		primary = primary || k.ID == ks.Primary
	}
	if !primary {
		return fail("the keyset has no enabled primary key")
	}
	return nil
}

// keySizes are the raw key sizes Tink (and BigQuery) accept per key type.
var keySizes = map[string][]int{typeGCM: {16, 32}, typeSIV: {64}, typeCBC: {16, 24, 32}}

func (k Kind) accepts(url string) bool {
	if k == Deterministic {
		return url == typeSIV
	}
	return url == typeGCM || url == typeCBC
}

// prefix is the output prefix of a key: 0x01 or 0x00 and its id, or none.
func (k Key) prefix() []byte {
	switch k.Prefix {
	case prefixTink:
		return binary.BigEndian.AppendUint32([]byte{1}, k.ID)
	case prefixLegacy, prefixCrunchy:
		return binary.BigEndian.AppendUint32([]byte{0}, k.ID)
	}
	return nil
}

// Encrypt encrypts p with additional data ad under the primary key:
// AEAD.ENCRYPT (kind AEAD) or DETERMINISTIC_ENCRYPT.
func (ks *Keyset) Encrypt(kind Kind, p, ad []byte) ([]byte, error) {
	if err := ks.check(kind); err != nil {
		return nil, err
	}
	for _, k := range ks.Keys {
		if k.ID != ks.Primary || k.Status != statusEnabled {
			continue
		}
		raw, _ := k.keyBytes() // checked
		switch k.TypeURL {
		case typeSIV:
			s, err := newSIV(raw)
			if err != nil {
				return nil, err
			}
			return append(k.prefix(), s.seal(p, ad)...), nil
		case typeGCM:
			g, err := newGCM(raw)
			if err != nil {
				return nil, err
			}
			nonce := randomBytes(12)
			return g.Seal(append(k.prefix(), nonce...), nonce, p, ad), nil
		}
		return nil, errors.New("the primary key is an AES_CBC_PKCS key, which only decrypts")
	}
	return nil, errors.New("the keyset has no enabled primary key") // check saw one
}

func newGCM(raw []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// Decrypt opens c with additional data ad: the enabled keys whose prefix
// c starts with, then the RAW ones.
func (ks *Keyset) Decrypt(kind Kind, c, ad []byte) ([]byte, error) {
	if err := ks.check(kind); err != nil {
		return nil, err
	}
	cbc := false
	for _, raw := range []bool{false, true} {
		for _, k := range ks.Keys {
			pre := k.prefix()
			if k.Status != statusEnabled || (len(pre) == 0) != raw || len(c) < len(pre) || string(c[:len(pre)]) != string(pre) {
				continue
			}
			body := c[len(pre):]
			key, _ := k.keyBytes() // checked
			switch k.TypeURL {
			case typeSIV:
				if s, err := newSIV(key); err == nil {
					if p, ok := s.open(body, ad); ok {
						return p, nil
					}
				}
			case typeGCM:
				if g, err := newGCM(key); err == nil && len(body) >= 12+16 {
					if p, err := g.Open(nil, body[:12], body[12:], ad); err == nil {
						return p, nil
					}
				}
			case typeCBC:
				cbc = true
			}
		}
	}
	if cbc {
		return nil, errors.New("decryption failed (decrypting with an AES_CBC_PKCS key is not supported)")
	}
	return nil, ErrDecrypt
}

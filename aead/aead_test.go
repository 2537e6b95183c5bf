package aead

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func unhex(t *testing.T, s string) []byte {
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// TestSIVVector is RFC 5297's appendix A.1 (deterministic authenticated
// encryption with one header).
func TestSIVVector(t *testing.T) {
	s, err := newSIV(unhex(t, "fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
	require.NoError(t, err)
	ad := unhex(t, "101112131415161718191a1b1c1d1e1f2021222324252627")
	p := unhex(t, "112233445566778899aabbccddee")
	c := s.seal(p, ad)
	assert.Equal(t, "85632d07c6e8f37f950acd320a2ecc9340c02b9690c4dc04daef7f6afe5c", hex.EncodeToString(c))
	back, ok := s.open(c, ad)
	require.True(t, ok)
	assert.Equal(t, p, back)
	c[20] ^= 1
	_, ok = s.open(c, ad)
	assert.False(t, ok)
}

// A keyset from ZetaSQL's compliance cases (one AES-GCM key, TINK) and its
// JSON as ZetaSQL writes it.
const (
	zetaKeyset     = "CJmMp4UJEmQKWAowdHlwZS5nb29nbGVhcGlzLmNvbS9nb29nbGUuY3J5cHRvLnRpbmsuQWVzR2NtS2V5EiIaIP7Xj33VJoXuk9KMRwXsjkuDmo5P40WUSaVtJAzyve80GAEQARiZjKeFCSAB"
	zetaKeysetJSON = `{"key":[{"keyData":{"keyMaterialType":"SYMMETRIC","typeUrl":"type.googleapis.com/google.crypto.tink.AesGcmKey","value":"GiD+14991SaF7pPSjEcF7I5Lg5qOT+NFlEmlbSQM8r3vNA=="},"keyId":2427045401,"outputPrefixType":"TINK","status":"ENABLED"}],"primaryKeyId":2427045401}`
)

func TestKeysetForms(t *testing.T) {
	b, err := base64.StdEncoding.DecodeString(zetaKeyset)
	require.NoError(t, err)
	ks, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, uint32(2427045401), ks.Primary)
	assert.Equal(t, zetaKeysetJSON, ks.JSON())
	assert.Equal(t, b, ks.Bytes())
	back, err := FromJSON(zetaKeysetJSON)
	require.NoError(t, err)
	assert.Equal(t, b, back.Bytes())
	// A key without key data, from JSON (ZetaSQL's case): the bytes it gives.
	j := `{"key":[{"keyId":1234,"outputPrefixType":"TINK","status":"DESTROYED"}],"primaryKeyId":4321}`
	ks, err = FromJSON(j)
	require.NoError(t, err)
	assert.Equal(t, []byte("\x08\xe1!\x12\x07\x10\x03\x18\xd2\x09 \x01"), ks.Bytes())
	assert.Equal(t, j, ks.JSON())
	for _, bad := range []string{`{"key":123}`, `[`, `{"key":[{"status":"SOMETIMES"}]}`, `{"key":[{"keyData":{"value":"%%"}}]}`} {
		_, err := FromJSON(bad)
		assert.Error(t, err, bad)
	}
	_, err = Parse([]byte("\x12\x05\x0a"))
	assert.ErrorIs(t, err, ErrKeyset)
}

// TestGCMFormat builds a Tink AES-GCM ciphertext with the standard
// library (0x01, the key id, a nonce, ciphertext and tag) and opens it
// through the keyset; and the other way round.
func TestGCMFormat(t *testing.T) {
	b, _ := base64.StdEncoding.DecodeString(zetaKeyset)
	ks, err := Parse(b)
	require.NoError(t, err)
	key := b[len(b)-44 : len(b)-12] // the 32 key bytes, after "\x1a\x20"
	blk, err := aes.NewCipher(key)
	require.NoError(t, err)
	g, err := cipher.NewGCM(blk)
	require.NoError(t, err)
	nonce := []byte("0123456789ab")
	c := g.Seal(append(binary.BigEndian.AppendUint32([]byte{1}, 2427045401), nonce...), nonce, []byte("plaintext"), []byte("abc"))
	p, err := ks.Decrypt(AEAD, c, []byte("abc"))
	require.NoError(t, err)
	assert.Equal(t, "plaintext", string(p))
	_, err = ks.Decrypt(AEAD, c, []byte("abd"))
	assert.ErrorIs(t, err, ErrDecrypt)

	c, err = ks.Encrypt(AEAD, []byte("hello"), nil)
	require.NoError(t, err)
	require.Len(t, c, 5+12+5+16)
	assert.Equal(t, binary.BigEndian.AppendUint32([]byte{1}, 2427045401), c[:5])
	p, err = g.Open(nil, c[5:17], c[17:], nil)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(p))
}

func TestKeysetOperations(t *testing.T) {
	ks, err := NewKeyset("AEAD_AES_GCM_256")
	require.NoError(t, err)
	first := ks.Primary
	c1, err := ks.Encrypt(AEAD, []byte("x"), []byte("ad"))
	require.NoError(t, err)
	require.NoError(t, ks.Rotate("AEAD_AES_GCM_256"))
	assert.Len(t, ks.Keys, 2)
	assert.NotEqual(t, first, ks.Primary)
	// The old key still decrypts; new ciphertexts carry the new key's id.
	p, err := ks.Decrypt(AEAD, c1, []byte("ad"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(p))
	c2, err := ks.Encrypt(AEAD, []byte("x"), []byte("ad"))
	require.NoError(t, err)
	assert.Equal(t, ks.Primary, binary.BigEndian.Uint32(c2[1:5]))
	// A RAW AES-GCM key decrypts ciphertexts without a prefix.
	raw := []byte("0123456789abcdef")
	require.NoError(t, ks.AddRaw("AES_GCM", raw))
	assert.Equal(t, ks.Primary, binary.BigEndian.Uint32(c2[1:5]), "a raw key is not made primary")
	blk, _ := aes.NewCipher(raw)
	g, _ := cipher.NewGCM(blk)
	nonce := make([]byte, 12)
	p, err = ks.Decrypt(AEAD, g.Seal(append([]byte{}, nonce...), nonce, []byte("raw"), nil), nil)
	require.NoError(t, err)
	assert.Equal(t, "raw", string(p))
	// Errors.
	assert.ErrorContains(t, ks.AddRaw("AES_GCM", make([]byte, 17)), "Unsupported key size: 17 bytes; expected 16 or 32 bytes.")
	assert.ErrorContains(t, ks.AddRaw("AES_CBC_PKCS", make([]byte, 5)), "expected 16, 24, or 32 bytes.")
	assert.ErrorContains(t, ks.AddRaw("AEAD_AES_GCM_256", raw), "Invalid key type provided to KEYS.ADD_KEY_FROM_RAW_BYTES: AEAD_AES_GCM_256")
	_, err = (&Keyset{}).Encrypt(AEAD, nil, nil)
	assert.ErrorContains(t, err, "A valid keyset must contain at least one key.")
	_, err = ks.Decrypt(Deterministic, c1, nil)
	assert.ErrorContains(t, err, "Creation of Deterministic AEAD primitive failed")
	// A disabled key no longer decrypts.
	ks.Keys[0].Status = statusDisabled
	_, err = ks.Decrypt(AEAD, c1, []byte("ad"))
	assert.ErrorIs(t, err, ErrDecrypt)
}

func TestDeterministic(t *testing.T) {
	ks, err := NewKeyset("DETERMINISTIC_AEAD_AES_SIV_CMAC_256")
	require.NoError(t, err)
	a, err := ks.Encrypt(Deterministic, []byte("plaintext"), []byte("abc"))
	require.NoError(t, err)
	b, err := ks.Encrypt(Deterministic, []byte("plaintext"), []byte("abc"))
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Len(t, a, 5+16+9)
	c, _ := ks.Encrypt(Deterministic, []byte("plaintext"), []byte("abd"))
	assert.NotEqual(t, a, c)
	p, err := ks.Decrypt(Deterministic, a, []byte("abc"))
	require.NoError(t, err)
	assert.Equal(t, "plaintext", string(p))
	_, err = ks.Decrypt(Deterministic, a, []byte("abd"))
	assert.ErrorIs(t, err, ErrDecrypt)
	_, err = ks.Encrypt(AEAD, []byte("x"), nil)
	assert.ErrorContains(t, err, "Creation of AEAD primitive failed")
}

func FuzzParseAndDecrypt(f *testing.F) {
	b, _ := base64.StdEncoding.DecodeString(zetaKeyset)
	f.Add(b, []byte("\x01\x90\xa9\xe3\x09xx"))
	f.Fuzz(func(t *testing.T, ksb, c []byte) {
		ks, err := Parse(ksb)
		if err != nil {
			return
		}
		_, _ = FromJSON(ks.JSON())
		_, _ = ks.Decrypt(AEAD, c, nil)
		_, _ = ks.Decrypt(Deterministic, c, nil)
		_, _ = ks.Encrypt(AEAD, c, nil)
		_, _ = ks.Encrypt(Deterministic, c, nil)
	})
}

// TestKeysetChecks: keys Tink would not accept are refused before use: a
// 24-byte AES-GCM key, a key without an output prefix type.
func TestKeysetChecks(t *testing.T) {
	ks := &Keyset{Primary: 7, Keys: []Key{{TypeURL: typeGCM, Value: keyMessage(typeGCM, make([]byte, 24)), HasData: true,
		Material: materialSymmetric, Status: statusEnabled, ID: 7, Prefix: prefixTink}}}
	_, err := ks.Encrypt(AEAD, []byte("x"), nil)
	assert.ErrorContains(t, err, "has 24 bytes")
	ks.Keys[0].Value = keyMessage(typeGCM, make([]byte, 32))
	ks.Keys[0].Prefix = 0
	_, err = ks.Encrypt(AEAD, []byte("x"), nil)
	assert.ErrorContains(t, err, "no valid output prefix type")
}

// Package aead holds the keysets and ciphers of BigQuery's AEAD encryption
// functions (KEYS.*, AEAD.*, DETERMINISTIC_*): a keyset is a serialized
// google.crypto.tink.Keyset, and ciphertexts are Tink's, so keysets and
// ciphertexts move between logq and BigQuery (or any Tink program) both
// ways.
//
//   - AEAD_AES_GCM_256 keys (AesGcmKey, 32 random bytes): AEAD.ENCRYPT
//     writes the key's prefix (0x01 and the 4-byte key id for a TINK key,
//     nothing for a RAW one), a random 12-byte nonce, and the AES-GCM
//     ciphertext with its 16-byte tag; the additional data is
//     authenticated, not stored.
//   - DETERMINISTIC_AEAD_AES_SIV_CMAC_256 keys (AesSivKey, 64 bytes):
//     DETERMINISTIC_ENCRYPT writes the prefix and AES-SIV (RFC 5297) of
//     the plaintext with the additional data as its one header: the same
//     inputs, the same ciphertext.
//   - KEYS.ADD_KEY_FROM_RAW_BYTES adds a RAW key from raw bytes: 'AES_GCM'
//     (16 or 32 bytes) for AEAD, or 'AES_CBC_PKCS' (16, 24 or 32 bytes),
//     kept in the keyset; decrypting with an AES_CBC_PKCS key is not
//     supported (an error names it).
//
// Decryption tries the keys whose prefix the ciphertext starts with, then
// the RAW keys, enabled ones only, as Tink does. Randomness is crypto/rand.
package aead

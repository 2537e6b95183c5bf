package sqlfunc

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"logq/aead"
	"logq/expr"
	"logq/types"
)

// BigQuery's AEAD encryption functions over Tink keysets (package aead):
// KEYS.NEW_KEYSET, KEYS.ROTATE_KEYSET, KEYS.ADD_KEY_FROM_RAW_BYTES,
// KEYS.KEYSET_LENGTH, KEYS.KEYSET_TO_JSON, KEYS.KEYSET_FROM_JSON,
// AEAD.ENCRYPT, AEAD.DECRYPT_BYTES, AEAD.DECRYPT_STRING and the
// DETERMINISTIC_ forms. What makes a key or a nonce is volatile (a new
// value each evaluation, never folded or copied). A NULL argument gives
// NULL; failures are errors naming the function (NULL under SAFE.).

func registerAEADFuncs() {

	expr.Register("keys.new_keyset", def(1, 1, keyTypeArg(0, types.KindBytes), evalKeysNewKeyset, false)).Volatile = true
	expr.Register("keys.rotate_keyset", def(2, 2, keyTypeArg(1, types.KindBytes, types.KindBytes), evalKeysRotateKeyset, false)).Volatile = true
	expr.Register("keys.add_key_from_raw_bytes", def(3, 3, sig(types.KindBytes, types.KindString, types.KindBytes, types.KindBytes), evalKeysAddKeyFromRawBytes, false)).Volatile = true
	expr.Register("keys.keyset_length", def(1, 1, sig(types.KindBytes, types.KindInt64), evalKeysKeysetLength, false))
	expr.Register("keys.keyset_to_json", def(1, 1, sig(types.KindBytes, types.KindString), evalKeysKeysetToJson, false))
	expr.Register("keys.keyset_from_json", def(1, 1, sig(types.KindString, types.KindBytes), evalKeysKeysetFromJson, false))

	expr.Register("aead.encrypt", def(3, 3, encryptArgs, encrypt(aead.AEAD), false)).Volatile = true
	expr.Register("deterministic_encrypt", def(3, 3, encryptArgs, encrypt(aead.Deterministic), false))
	expr.Register("aead.decrypt_bytes", def(3, 3, sig(types.KindBytes, types.KindBytes, types.KindBytes, types.KindBytes), decrypt(aead.AEAD, false), false))
	expr.Register("aead.decrypt_string", def(3, 3, sig(types.KindBytes, types.KindBytes, types.KindString, types.KindString), decrypt(aead.AEAD, true), false))
	expr.Register("deterministic_decrypt_bytes", def(3, 3, sig(types.KindBytes, types.KindBytes, types.KindBytes, types.KindBytes), decrypt(aead.Deterministic, false), false))
	expr.Register("deterministic_decrypt_string", def(3, 3, sig(types.KindBytes, types.KindBytes, types.KindString, types.KindString), decrypt(aead.Deterministic, true), false))
}

func fail(fn string, err error) error {
	return expr.EvalErr("%s failed: %v", strings.ToUpper(fn), err)
}

func keyset(fn string, b string) (*aead.Keyset, error) {
	ks, err := aead.Parse([]byte(b))
	if err != nil {
		return nil, fail(fn, err)
	}
	return ks, nil
}

// withKeyset runs op over the keyset of a[0] and the bytes of a[1] and
// a[2]: a bad keyset is keyset's error, op's own is the call's.
func withKeyset(c *expr.Call, a []types.Value, op func(ks *aead.Keyset, x, y []byte) ([]byte, error)) ([]byte, error) {
	ks, err := keyset(c.Fn, a[0].S)
	if err != nil {
		return nil, err
	}
	out, err := op(ks, []byte(a[1].S), []byte(a[2].S))
	if err != nil {
		return nil, fail(c.Fn, err)
	}
	return out, nil
}

func encrypt(kind aead.Kind) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		out, err := withKeyset(c, a, func(ks *aead.Keyset, x, y []byte) ([]byte, error) { return ks.Encrypt(kind, x, y) })
		if err != nil {
			return types.Value{}, err
		}
		return types.BytesValue(string(out)), nil
	}
}

func decrypt(kind aead.Kind, toString bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		p, err := withKeyset(c, a, func(ks *aead.Keyset, x, y []byte) ([]byte, error) { return ks.Decrypt(kind, x, y) })
		if err != nil {
			return types.Value{}, err
		}
		if !toString {
			return types.BytesValue(string(p)), nil
		}
		if !utf8.Valid(p) {
			dec := "AEAD.DECRYPT_BYTES"
			if kind == aead.Deterministic {
				dec = "DETERMINISTIC_DECRYPT_BYTES"
			}
			return types.Value{}, fail(c.Fn, fmt.Errorf("Decrypted plaintext is not a valid UTF-8 string. To decrypt to BYTES, use %s", dec))
		}
		return types.StringValue(string(p)), nil
	}
}

func evalKeysNewKeyset(c *expr.Call, a []types.Value) (types.Value, error) {
	ks, err := aead.NewKeyset(a[0].S)
	if err != nil {
		return types.Value{}, fail(c.Fn, err)
	}
	return types.BytesValue(string(ks.Bytes())), nil
}

func evalKeysRotateKeyset(c *expr.Call, a []types.Value) (types.Value, error) {
	ks, err := aead.Parse([]byte(a[0].S)) // b'' is an empty keyset
	if err != nil {
		return types.Value{}, fail(c.Fn, err)
	}
	if err := ks.Rotate(a[1].S); err != nil {
		return types.Value{}, fail(c.Fn, err)
	}
	return types.BytesValue(string(ks.Bytes())), nil
}

func evalKeysAddKeyFromRawBytes(c *expr.Call, a []types.Value) (types.Value, error) {
	ks, err := aead.Parse([]byte(a[0].S))
	if err != nil {
		return types.Value{}, fail(c.Fn, err)
	}
	if err := ks.AddRaw(a[1].S, []byte(a[2].S)); err != nil {
		return types.Value{}, expr.EvalErr("%v", err) // its message names the function
	}
	return types.BytesValue(string(ks.Bytes())), nil
}

func evalKeysKeysetLength(c *expr.Call, a []types.Value) (types.Value, error) {
	ks, err := keyset(c.Fn, a[0].S)
	if err != nil {
		return types.Value{}, err
	}
	return types.IntValue(int64(len(ks.Keys))), nil
}

func evalKeysKeysetToJson(c *expr.Call, a []types.Value) (types.Value, error) {
	ks, err := keyset(c.Fn, a[0].S)
	if err != nil {
		return types.Value{}, err
	}
	return types.StringValue(ks.JSON()), nil
}

func evalKeysKeysetFromJson(c *expr.Call, a []types.Value) (types.Value, error) {
	ks, err := aead.FromJSON(a[0].S)
	if err != nil {
		return types.Value{}, fail(c.Fn, err)
	}
	return types.BytesValue(string(ks.Bytes())), nil
}

// keyTypeArg types a call whose argument i is a key type: a STRING
// constant or query parameter (a NULL one gives NULL), known to
// KEYS.NEW_KEYSET; the arguments before it are of kinds before; the
// result BYTES.
func keyTypeArg(i int, before ...types.Kind) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		up := strings.ToUpper(c.Fn)
		for j, k := range before[:i] {
			a, err := expr.CoerceTo(c.Args[j], types.Type{Kind: k})
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of %s: %w", j+1, up, err)
			}
			c.Args[j] = a
		}
		k, ok := c.Args[i].(*expr.Const)
		if !ok || k.V.T.Kind != types.KindString {
			return types.Type{}, fmt.Errorf("the key type of %s must be a STRING literal or query parameter", up)
		}
		if !k.V.Null && !aead.KeyTypeKnown(k.V.S) {
			return types.Type{}, fmt.Errorf("%s: unsupported key type %s (AEAD_AES_GCM_256 or DETERMINISTIC_AEAD_AES_SIV_CMAC_256)", up, k.V.S)
		}
		return types.Bytes, nil
	}
}

// encryptArgs types AEAD.ENCRYPT and DETERMINISTIC_ENCRYPT(keyset,
// plaintext, additional_data): the plaintext and additional data both
// STRING or both BYTES (a STRING is encrypted as its UTF-8 bytes).
func encryptArgs(c *expr.Call) (types.Type, error) {
	up := strings.ToUpper(c.Fn)
	a, err := expr.CoerceTo(c.Args[0], types.Bytes)
	if err != nil {
		return types.Type{}, fmt.Errorf("the keyset of %s: %w", up, err)
	}
	c.Args[0] = a
	k1, k2 := c.Args[1].Type().Kind, c.Args[2].Type().Kind
	kind := types.KindString
	if k1 == types.KindBytes || k2 == types.KindBytes {
		kind = types.KindBytes
	}
	for j := 1; j <= 2; j++ {
		a, err := expr.CoerceTo(c.Args[j], types.Type{Kind: kind})
		if err != nil {
			return types.Type{}, errors.New(up + ": the plaintext and the additional data are both STRING or both BYTES")
		}
		c.Args[j] = a
	}
	return types.Bytes, nil
}

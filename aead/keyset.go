package aead

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"logq/protofields"
)

// The type URLs of the keys logq makes and reads.
const (
	typeGCM = "type.googleapis.com/google.crypto.tink.AesGcmKey"
	typeSIV = "type.googleapis.com/google.crypto.tink.AesSivKey"
	typeCBC = "type.googleapis.com/google.crypto.tink.AesCbcPkcs7Key"
)

// Tink's enums, as numbers and as the JSON form names them.
const (
	statusEnabled   = 1
	statusDisabled  = 2
	statusDestroyed = 3

	prefixTink    = 1
	prefixLegacy  = 2
	prefixRaw     = 3
	prefixCrunchy = 4

	materialSymmetric = 1
)

var (
	statusNames   = []string{"UNKNOWN_STATUS", "ENABLED", "DISABLED", "DESTROYED"}
	prefixNames   = []string{"UNKNOWN_PREFIX", "TINK", "LEGACY", "RAW", "CRUNCHY"}
	materialNames = []string{"UNKNOWN_KEYMATERIAL", "SYMMETRIC", "ASYMMETRIC_PRIVATE", "ASYMMETRIC_PUBLIC", "REMOTE"}
)

// Keyset is a google.crypto.tink.Keyset.
type Keyset struct {
	Primary uint32
	Keys    []Key
}

// Key is one key of a keyset: its KeyData (type URL, the serialized key
// message, key material type), status, id and output prefix type.
type Key struct {
	TypeURL  string
	Value    []byte
	Material int32
	HasData  bool // a key without key_data (as JSON can write one)
	Status   int32
	ID       uint32
	Prefix   int32
}

// ErrKeyset is bytes that are not a keyset.
var ErrKeyset = errors.New("invalid keyset")

// Parse reads a serialized keyset.
func Parse(b []byte) (*Keyset, error) {
	ks := &Keyset{}
	err := protofields.Each(b, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
		switch {
		case num == 1 && !isBytes:
			ks.Primary = uint32(v)
		case num == 2 && isBytes:
			k, err := parseKey(raw)
			if err != nil {
				return err
			}
			ks.Keys = append(ks.Keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, ErrKeyset
	}
	return ks, nil
}

func parseKey(b []byte) (Key, error) {
	var k Key
	err := protofields.Each(b, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
		switch {
		case num == 1 && isBytes:
			k.HasData = true
			return protofields.Each(raw, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
				switch {
				case num == 1 && isBytes:
					k.TypeURL = string(raw)
				case num == 2 && isBytes:
					k.Value = append([]byte(nil), raw...)
				case num == 3 && !isBytes:
					k.Material = int32(v)
				}
				return nil
			})
		case num == 2 && !isBytes:
			k.Status = int32(v)
		case num == 3 && !isBytes:
			k.ID = uint32(v)
		case num == 4 && !isBytes:
			k.Prefix = int32(v)
		}
		return nil
	})
	return k, err
}

// Bytes serializes the keyset as protobuf does: fields in order, zero
// values left out.
func (ks *Keyset) Bytes() []byte {
	var b []byte
	if ks.Primary != 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(ks.Primary))
	}
	for _, k := range ks.Keys {
		var kb []byte
		if k.HasData {
			var d []byte
			if k.TypeURL != "" {
				d = protowire.AppendTag(d, 1, protowire.BytesType)
				d = protowire.AppendString(d, k.TypeURL)
			}
			if len(k.Value) > 0 {
				d = protowire.AppendTag(d, 2, protowire.BytesType)
				d = protowire.AppendBytes(d, k.Value)
			}
			if k.Material != 0 {
				d = protowire.AppendTag(d, 3, protowire.VarintType)
				d = protowire.AppendVarint(d, uint64(k.Material))
			}
			kb = protowire.AppendTag(kb, 1, protowire.BytesType)
			kb = protowire.AppendBytes(kb, d)
		}
		for _, f := range []struct {
			num protowire.Number
			v   uint64
		}{{2, uint64(k.Status)}, {3, uint64(k.ID)}, {4, uint64(k.Prefix)}} {
			if f.v != 0 {
				kb = protowire.AppendTag(kb, f.num, protowire.VarintType)
				kb = protowire.AppendVarint(kb, f.v)
			}
		}
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, kb)
	}
	return b
}

// keyMessage is an AesGcmKey (key_value is field 3) or AesSivKey (field
// 2) or AesCbcPkcs7Key (field 2) of version 0.
func keyMessage(typeURL string, raw []byte) []byte {
	field := protowire.Number(2)
	if typeURL == typeGCM {
		field = 3
	}
	b := protowire.AppendTag(nil, field, protowire.BytesType)
	return protowire.AppendBytes(b, raw)
}

// keyBytes reads the raw key out of a key's message.
func (k Key) keyBytes() ([]byte, error) {
	field := protowire.Number(2)
	if k.TypeURL == typeGCM {
		field = 3
	}
	var raw []byte
	err := protofields.Each(k.Value, func(num protowire.Number, v uint64, r []byte, isBytes bool) error {
		switch {
		case num == 1 && !isBytes && v != 0:
			return fmt.Errorf("key version %d is not supported", v)
		case num == field && isBytes:
			raw = r
		}
		return nil
	})
	return raw, err
}

// newID is a key id not yet in the keyset.
func (ks *Keyset) newID() uint32 {
	for {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic("aead: crypto/rand failed: " + err.Error()) // never, per crypto/rand
		}
		id := binary.BigEndian.Uint32(b[:])
		taken := id == 0
		for _, k := range ks.Keys {
			taken = taken || k.ID == id
		}
		if !taken {
			return id
		}
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("aead: crypto/rand failed: " + err.Error()) // never, per crypto/rand
	}
	return b
}

// keyTypes are the key types KEYS.NEW_KEYSET and KEYS.ROTATE_KEYSET make:
// the type URL and the key's size in bytes.
var keyTypes = map[string]struct {
	url  string
	size int
}{
	"AEAD_AES_GCM_256":                    {typeGCM, 32},
	"DETERMINISTIC_AEAD_AES_SIV_CMAC_256": {typeSIV, 64},
}

// KeyTypeKnown reports whether NEW_KEYSET and ROTATE_KEYSET make keyType.
func KeyTypeKnown(keyType string) bool { _, ok := keyTypes[keyType]; return ok }

// NewKeyset is KEYS.NEW_KEYSET: a keyset of one new random key of
// keyType, primary, TINK-prefixed.
func NewKeyset(keyType string) (*Keyset, error) {
	ks := &Keyset{}
	return ks, ks.Rotate(keyType)
}

// Rotate is KEYS.ROTATE_KEYSET: a new random key of keyType, made the
// primary.
func (ks *Keyset) Rotate(keyType string) error {
	t, ok := keyTypes[keyType]
	if !ok {
		return fmt.Errorf("unsupported key type %s (AEAD_AES_GCM_256 or DETERMINISTIC_AEAD_AES_SIV_CMAC_256)", keyType)
	}
	id := ks.newID()
	ks.Keys = append(ks.Keys, Key{TypeURL: t.url, Value: keyMessage(t.url, randomBytes(t.size)), Material: materialSymmetric,
		HasData: true, Status: statusEnabled, ID: id, Prefix: prefixTink})
	ks.Primary = id
	return nil
}

// AddRaw is KEYS.ADD_KEY_FROM_RAW_BYTES: a RAW key of keyType ('AES_GCM'
// or 'AES_CBC_PKCS') holding raw, enabled, not primary.
func (ks *Keyset) AddRaw(keyType string, raw []byte) error {
	var url string
	switch keyType {
	case "AES_GCM":
		if len(raw) != 16 && len(raw) != 32 {
			return fmt.Errorf("Failed to add a key from raw bytes: Unsupported key size: %d bytes; expected 16 or 32 bytes.", len(raw))
		}
		url = typeGCM
	case "AES_CBC_PKCS":
		if len(raw) != 16 && len(raw) != 24 && len(raw) != 32 {
			return fmt.Errorf("Failed to add a key from raw bytes: Unsupported key size: %d bytes; expected 16, 24, or 32 bytes.", len(raw))
		}
		url = typeCBC
	default:
		return fmt.Errorf("Invalid key type provided to KEYS.ADD_KEY_FROM_RAW_BYTES: %s", keyType)
	}
	ks.Keys = append(ks.Keys, Key{TypeURL: url, Value: keyMessage(url, raw), Material: materialSymmetric,
		HasData: true, Status: statusEnabled, ID: ks.newID(), Prefix: prefixRaw})
	return nil
}

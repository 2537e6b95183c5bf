package aead

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// JSON is KEYS.KEYSET_TO_JSON: Tink's JSON keyset form, compact, members in
// name order, fields with zero values left out, enums by name, the key's
// message in base64.
func (ks *Keyset) JSON() string {
	var b bytes.Buffer
	b.WriteByte('{')
	if len(ks.Keys) > 0 {
		b.WriteString(`"key":[`)
		for i, k := range ks.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			var fields []string
			if k.HasData {
				var d []string
				if k.Material != 0 {
					d = append(d, `"keyMaterialType":`+quote(enumName(materialNames, k.Material)))
				}
				if k.TypeURL != "" {
					d = append(d, `"typeUrl":`+quote(k.TypeURL))
				}
				if len(k.Value) > 0 {
					d = append(d, `"value":`+quote(base64.StdEncoding.EncodeToString(k.Value)))
				}
				fields = append(fields, `"keyData":{`+join(d)+`}`)
			}
			if k.ID != 0 {
				fields = append(fields, `"keyId":`+strconv.FormatUint(uint64(k.ID), 10))
			}
			if k.Prefix != 0 {
				fields = append(fields, `"outputPrefixType":`+quote(enumName(prefixNames, k.Prefix)))
			}
			if k.Status != 0 {
				fields = append(fields, `"status":`+quote(enumName(statusNames, k.Status)))
			}
			b.WriteString("{" + join(fields) + "}")
		}
		b.WriteString("]")
	}
	if ks.Primary != 0 {
		if len(ks.Keys) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"primaryKeyId":` + strconv.FormatUint(uint64(ks.Primary), 10))
	}
	b.WriteByte('}')
	return b.String()
}

func join(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}

func quote(s string) string {
	q, _ := json.Marshal(s) // a string always marshals
	return string(q)
}

func enumName(names []string, v int32) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return strconv.Itoa(int(v))
}

// jsonKeyset is the JSON form as read: enums as names or numbers.
type jsonKeyset struct {
	PrimaryKeyID *uint32 `json:"primaryKeyId"`
	Key          []struct {
		KeyData *struct {
			TypeURL         string          `json:"typeUrl"`
			Value           string          `json:"value"`
			KeyMaterialType json.RawMessage `json:"keyMaterialType"`
		} `json:"keyData"`
		Status           json.RawMessage `json:"status"`
		KeyID            uint32          `json:"keyId"`
		OutputPrefixType json.RawMessage `json:"outputPrefixType"`
	} `json:"key"`
}

// FromJSON is KEYS.KEYSET_FROM_JSON.
func FromJSON(s string) (*Keyset, error) {
	var j jsonKeyset
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, fmt.Errorf("invalid JSON keyset: %w", err)
	}
	ks := &Keyset{}
	if j.PrimaryKeyID != nil {
		ks.Primary = *j.PrimaryKeyID
	}
	for _, jk := range j.Key {
		k := Key{ID: jk.KeyID}
		var err error
		if k.Status, err = enumValue(statusNames, jk.Status); err != nil {
			return nil, err
		}
		if k.Prefix, err = enumValue(prefixNames, jk.OutputPrefixType); err != nil {
			return nil, err
		}
		if d := jk.KeyData; d != nil {
			k.HasData, k.TypeURL = true, d.TypeURL
			if k.Value, err = base64.StdEncoding.DecodeString(d.Value); err != nil {
				return nil, fmt.Errorf("invalid JSON keyset: the key value is not base64: %w", err)
			}
			if k.Material, err = enumValue(materialNames, d.KeyMaterialType); err != nil {
				return nil, err
			}
		}
		ks.Keys = append(ks.Keys, k)
	}
	return ks, nil
}

// enumValue reads an enum written by name or as a number.
func enumValue(names []string, raw json.RawMessage) (int32, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var name string
	if json.Unmarshal(raw, &name) == nil {
		for i, n := range names {
			if n == name {
				return int32(i), nil
			}
		}
		return 0, errors.New("invalid JSON keyset: unknown enum value " + strconv.Quote(name))
	}
	var n int32
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("invalid JSON keyset: %w", err)
	}
	return n, nil
}

package event

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"logq/types"
)

// DecodeArray turns a raw JSON array into a boxed ARRAY. Arrays are rare in
// log events and small, so this path favours simplicity over speed.
func DecodeArray(raw []byte) (types.Value, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return types.Value{}, err
	}
	vals := make([]types.Value, 0, len(elems))
	elem := types.Null
	mixed := false
	for _, e := range elems {
		v, err := decodeJSONValue(e)
		if err != nil {
			return types.Value{}, err
		}
		if v.Null {
			continue // BigQuery arrays cannot hold NULLs
		}
		switch {
		case elem.Kind == types.KindNull:
			elem = v.T
		case !elem.Equal(v.T):
			if st, ok := types.Supertype(elem, v.T); ok && st.IsNumeric() {
				elem = st
			} else {
				mixed = true
			}
		}
		vals = append(vals, v)
	}
	out := types.ArrayValue(elem, vals)
	if mixed {
		return ArrayAsStrings(out), nil
	}
	if elem.Kind == types.KindFloat64 {
		for i := range vals {
			if vals[i].T.Kind == types.KindInt64 {
				vals[i] = types.FloatValue(float64(vals[i].I))
			}
		}
	}
	return out, nil
}

func decodeJSONValue(raw json.RawMessage) (types.Value, error) {
	var x any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return types.Value{}, err
	}
	return fromJSON(x), nil
}

func fromJSON(x any) types.Value {
	switch x := x.(type) {
	case nil:
		return types.NullOf(types.Null)
	case bool:
		return types.BoolValue(x)
	case string:
		return types.StringValue(x)
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return types.IntValue(i)
		}
		f, _ := x.Float64()
		return types.FloatValue(f)
	case []any:
		b, _ := json.Marshal(x)
		v, err := DecodeArray(b)
		if err != nil {
			return types.StringValue(string(b))
		}
		return v
	case map[string]any:
		// Field order of a decoded map is lost; sort for a stable STRUCT type.
		keys := slices.Sorted(maps.Keys(x))
		fields := make([]types.Field, len(keys))
		vals := make([]types.Value, len(keys))
		for i, k := range keys {
			v := fromJSON(x[k])
			fields[i] = types.Field{Name: SanitizeKey([]byte(k)), Type: v.T}
			vals[i] = v
		}
		return types.StructValue(types.StructOf(fields...), vals)
	}
	return types.NullOf(types.Null)
}

// ArrayAsStrings renders every element of an array as its text.
func ArrayAsStrings(v types.Value) types.Value {
	out := make([]types.Value, len(v.L))
	for i, e := range v.L {
		out[i] = types.StringValue(e.String())
	}
	return types.ArrayValue(types.String, out)
}

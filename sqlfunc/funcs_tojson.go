package sqlfunc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"logq/expr"
	"logq/types"
)

// SQL values to JSON: TO_JSON, TO_JSON_STRING and the constructors
// JSON_ARRAY and JSON_OBJECT, with the encodings of types/json_encode.go.
func registerToJSONFuncs() {
	// A NULL value is JSON null; a NULL option makes the result NULL.
	expr.Register("to_json", def(1, 2, anyThenBool(types.JSON), evalToJson, true))
	expr.Register("to_json_string", def(1, 2, anyThenBool(types.String), evalToJsonString, true))

	expr.Register("json_array", def(0, -1, checkJsonArray, evalJsonArray, true))

	// JSON_OBJECT(key, value, …) or JSON_OBJECT(keys, values): the first
	// value of a key given twice is kept; a NULL key is an error.
	expr.Register("json_object", def(0, -1, checkJsonObject, evalJsonObject, true))
}

// anyThenBool types f(value[, BOOL option]).
func anyThenBool(result types.Type) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		if len(c.Args) == 2 {
			a, err := expr.CoerceTo(c.Args[1], types.Bool)
			if err != nil {
				return types.Type{}, fmt.Errorf("argument 2 of %s: %w", strings.ToUpper(c.Fn), err)
			}
			c.Args[1] = a
		}
		return result, nil
	}
}

func evalToJson(c *expr.Call, a []types.Value) (types.Value, error) {
	if len(a) == 2 && a[1].Null {
		return types.NullOf(types.JSON), nil
	}
	n, err := types.ToJSON(a[0], len(a) == 2 && a[1].Bool())
	if err != nil {
		return types.Value{}, expr.EvalErr("TO_JSON: %v", err)
	}
	return types.JSONValue(n), nil
}

func evalToJsonString(c *expr.Call, a []types.Value) (types.Value, error) {
	if len(a) == 2 && a[1].Null {
		return types.NullOf(types.String), nil
	}
	b, err := types.AppendJSONText(nil, a[0])
	if err != nil {
		return types.Value{}, expr.EvalErr("TO_JSON_STRING: %v", err)
	}
	if len(a) == 2 && a[1].Bool() {
		var out bytes.Buffer
		if json.Indent(&out, b, "", "  ") == nil {
			b = out.Bytes()
		}
	}
	return types.StringValue(string(b)), nil
}

func checkJsonArray(c *expr.Call) (types.Type, error) { return types.JSON, nil }

func evalJsonArray(c *expr.Call, a []types.Value) (types.Value, error) {
	n := types.JSONNode{Kind: types.JSONArray, Elems: make([]types.JSONNode, len(a))}
	for i, v := range a {
		e, err := types.ToJSON(v, false)
		if err != nil {
			return types.Value{}, expr.EvalErr("JSON_ARRAY: %v", err)
		}
		n.Elems[i] = e
	}
	return types.JSONValue(n), nil
}

func checkJsonObject(c *expr.Call) (types.Type, error) {
	if len(c.Args) == 2 && isArrayOrNull(c.Args[0].Type()) && isArrayOrNull(c.Args[1].Type()) {
		k, err := expr.CoerceTo(c.Args[0], types.ArrayOf(types.String))
		if err != nil {
			return types.Type{}, fmt.Errorf("JSON_OBJECT's keys: %w", err)
		}
		c.Args[0] = k
		return types.JSON, nil
	}
	if len(c.Args)%2 != 0 {
		return types.Type{}, fmt.Errorf("JSON_OBJECT takes keys and values in pairs, or an ARRAY of keys and an ARRAY of values")
	}
	for i := 0; i < len(c.Args); i += 2 {
		k, err := expr.CoerceTo(c.Args[i], types.String)
		if err != nil {
			return types.Type{}, fmt.Errorf("JSON_OBJECT's key %d: %w", i/2+1, err)
		}
		c.Args[i] = k
	}
	return types.JSON, nil
}

func evalJsonObject(c *expr.Call, a []types.Value) (types.Value, error) {
	var keys, vals []types.Value
	if len(a) == 2 && a[0].T.Kind == types.KindArray {
		switch {
		case a[0].Null:
			return types.Value{}, expr.EvalErr("JSON_OBJECT: the keys array cannot be NULL")
		case a[1].Null:
			return types.Value{}, expr.EvalErr("JSON_OBJECT: the values array cannot be NULL")
		case len(a[0].L) != len(a[1].L):
			return types.Value{}, expr.EvalErr("JSON_OBJECT: the number of keys and values must match")
		}
		keys, vals = a[0].L, a[1].L
	} else {
		for i := 0; i < len(a); i += 2 {
			keys, vals = append(keys, a[i]), append(vals, a[i+1])
		}
	}
	m := make([]types.JSONMember, len(keys))
	for i, k := range keys {
		if k.Null {
			return types.Value{}, expr.EvalErr("JSON_OBJECT: a key cannot be NULL")
		}
		v, err := types.ToJSON(vals[i], false)
		if err != nil {
			return types.Value{}, expr.EvalErr("JSON_OBJECT: %v", err)
		}
		m[i] = types.JSONMember{Key: k.S, Val: v}
	}
	return types.JSONValue(types.JSONObjectOf(m)), nil
}

func isArrayOrNull(t types.Type) bool { return t.Kind == types.KindArray || t.Kind == types.KindNull }

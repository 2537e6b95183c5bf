package sqlfunc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"logq/expr"
	"logq/types"
)

// Functions of BigQuery's JSON type (types/json.go): its subscripts,
// PARSE_JSON, JSON_TYPE, the value extractors BOOL, INT64, FLOAT64 and
// STRING and their LAX_ forms. The JSON_QUERY family over JSON values is
// in funcs_json.go beside its STRING form; TO_JSON and the constructors
// in funcs_tojson.go.
func registerJSONTypeFuncs() {
	// j['key'], j.key and j[i]: the member or element, SQL NULL when there
	// is none (j is not an object or array, the key or index is missing,
	// or NULL).
	expr.Register("json_subscript", def(2, 2, func(c *expr.Call) (types.Type, error) {
		switch c.Args[1].Type().Kind {
		case types.KindString, types.KindInt64, types.KindNull:
			return types.JSON, nil
		}
		return types.Type{}, fmt.Errorf("a JSON subscript is a STRING key or an INT64 index, not %s", c.Args[1].Type())
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		n := types.DecodeJSON(a[0])
		var out types.JSONNode
		ok := false
		if a[1].T.Kind == types.KindString {
			out, ok = n.Member(a[1].S)
		} else if n.Kind == types.JSONArray && a[1].I >= 0 && a[1].I < int64(len(n.Elems)) {
			out, ok = n.Elems[a[1].I], true
		}
		if !ok {
			return types.NullOf(types.JSON), nil
		}
		return types.JSONValue(out), nil
	}, false))

	expr.Register("parse_json", def(1, 2, sig(types.KindString, types.KindString, types.KindJSON), func(c *expr.Call, a []types.Value) (types.Value, error) {
		round, err := wideNumberMode(a, 1, false)
		if err != nil {
			return types.Value{}, err
		}
		v, err := types.ParseJSON(a[0].S, round)
		if err != nil {
			return types.Value{}, expr.EvalErr("PARSE_JSON: %v", err)
		}
		return v, nil
	}, false))

	expr.Register("json_type", def(1, 1, sig(types.KindJSON, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.StringValue(types.DecodeJSON(a[0]).Kind.String()), nil
	}, false))

	// The extractors, each also as an _ARRAY form over a JSON array: the
	// strict ones (BOOL, INT64, FLOAT64, STRING) need the JSON value to be
	// of the SQL type's kind and fail otherwise; the LAX_ ones convert what
	// they can and give NULL for the rest.
	for _, x := range jsonExtractors {
		x := x
		maxArgs := 1
		if x.name == "float64" { // FLOAT64(j, wide_number_mode => …)
			maxArgs = 2
		}
		expr.Register(x.name, def(1, maxArgs, sig(types.KindJSON, types.KindString, x.t.Kind), func(c *expr.Call, a []types.Value) (types.Value, error) {
			round, err := wideNumberMode(a, 1, true)
			if err != nil {
				return types.Value{}, err
			}
			return x.conv(types.DecodeJSON(a[0]), round)
		}, false))
		expr.Register(x.name+"_array", def(1, maxArgs, func(c *expr.Call) (types.Type, error) {
			if _, err := sig(types.KindJSON, types.KindString, types.KindString)(c); err != nil {
				return types.Type{}, err
			}
			return types.ArrayOf(x.t), nil
		}, func(c *expr.Call, a []types.Value) (types.Value, error) {
			round, err := wideNumberMode(a, 1, true)
			if err != nil {
				return types.Value{}, err
			}
			n := types.DecodeJSON(a[0])
			if n.Kind != types.JSONArray {
				if x.lax {
					return types.NullOf(c.T), nil
				}
				return types.Value{}, expr.EvalErr("%s: the JSON input is not an array", strings.ToUpper(x.name)+"_ARRAY")
			}
			out := make([]types.Value, len(n.Elems))
			for i, e := range n.Elems {
				if out[i], err = x.conv(e, round); err != nil {
					return types.Value{}, err
				}
			}
			return types.ArrayValue(x.t, out), nil
		}, false))
	}
	expr.Alias("double", "float64")
	expr.Alias("double_array", "float64_array")
}

// jsonExtractor converts one JSON value to a SQL type.
type jsonExtractor struct {
	name string
	t    types.Type
	lax  bool
	conv func(n types.JSONNode, round bool) (types.Value, error)
}

// jsonExtractors are the conversions of GoogleSQL's JSON functions table
// (LAX_ conversions as ZetaSQL's json.cc LaxConvertJsonTo*). Only FLOAT64
// takes wide_number_mode.
var jsonExtractors = []jsonExtractor{
	{"bool", types.Bool, false, func(n types.JSONNode, _ bool) (types.Value, error) {
		if n.Kind != types.JSONBool {
			return types.Value{}, expr.EvalErr("the JSON input is not a boolean")
		}
		return types.BoolValue(n.Bool), nil
	}},
	{"int64", types.Int64, false, func(n types.JSONNode, _ bool) (types.Value, error) {
		if n.Kind != types.JSONNumber {
			return types.Value{}, expr.EvalErr("the JSON input is not an integer")
		}
		i, ok := jsonInt64(n.Num)
		if !ok {
			return types.Value{}, expr.EvalErr("the JSON number %s cannot be converted to an INT64", n.Num)
		}
		return types.IntValue(i), nil
	}},
	{"float64", types.Float64, false, func(n types.JSONNode, round bool) (types.Value, error) {
		if n.Kind != types.JSONNumber {
			return types.Value{}, expr.EvalErr("the JSON input is not a number")
		}
		f, _ := strconv.ParseFloat(n.Num, 64)
		if !round && !jsonExactDouble(n.Num, f) {
			return types.Value{}, expr.EvalErr("the JSON number %s cannot be converted to FLOAT64 without loss of precision", n.Num)
		}
		return types.FloatValue(f), nil
	}},
	{"string", types.String, false, func(n types.JSONNode, _ bool) (types.Value, error) {
		if n.Kind != types.JSONString {
			return types.Value{}, expr.EvalErr("the JSON input is not a string")
		}
		return types.StringValue(n.Str), nil
	}},
	{"lax_bool", types.Bool, true, func(n types.JSONNode, _ bool) (types.Value, error) {
		switch n.Kind {
		case types.JSONBool:
			return types.BoolValue(n.Bool), nil
		case types.JSONString:
			switch strings.ToLower(n.Str) {
			case "true":
				return types.BoolValue(true), nil
			case "false":
				return types.BoolValue(false), nil
			}
		case types.JSONNumber:
			f, _ := strconv.ParseFloat(n.Num, 64)
			return types.BoolValue(f != 0), nil
		}
		return types.NullOf(types.Bool), nil
	}},
	{"lax_int64", types.Int64, true, func(n types.JSONNode, _ bool) (types.Value, error) {
		null := types.NullOf(types.Int64)
		text := n.Num
		switch n.Kind {
		case types.JSONBool:
			if n.Bool {
				return types.IntValue(1), nil
			}
			return types.IntValue(0), nil
		case types.JSONString:
			text = strings.TrimSpace(n.Str)
		case types.JSONNumber:
		default:
			return null, nil
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return types.IntValue(i), nil
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return null, nil
		}
		r := math.Round(f) // half away from zero, as CAST rounds
		if r < -9223372036854775808 || r >= 9223372036854775808 {
			return null, nil
		}
		return types.IntValue(int64(r)), nil
	}},
	{"lax_float64", types.Float64, true, func(n types.JSONNode, _ bool) (types.Value, error) {
		switch n.Kind {
		case types.JSONNumber:
			f, _ := strconv.ParseFloat(n.Num, 64)
			return types.FloatValue(f), nil
		case types.JSONString:
			if v, err := types.Cast(types.StringValue(n.Str), types.Float64); err == nil {
				return v, nil
			}
		}
		return types.NullOf(types.Float64), nil
	}},
	{"lax_string", types.String, true, func(n types.JSONNode, _ bool) (types.Value, error) {
		switch n.Kind {
		case types.JSONString:
			return types.StringValue(n.Str), nil
		case types.JSONNumber: // as CAST of the number to STRING writes it
			if strings.ContainsAny(n.Num, ".e") {
				f, _ := strconv.ParseFloat(n.Num, 64)
				return types.StringValue(types.FormatFloat(f)), nil
			}
			return types.StringValue(n.Num), nil
		case types.JSONBool:
			return types.StringValue(strconv.FormatBool(n.Bool)), nil
		}
		return types.NullOf(types.String), nil
	}},
}

// wideNumberMode reads the optional wide_number_mode argument a[i],
// 'exact' or 'round' (case matters, as in ZetaSQL); absent, it is round
// (PARSE_JSON's default is 'exact', FLOAT64's 'round').
func wideNumberMode(a []types.Value, i int, round bool) (bool, error) {
	if len(a) <= i {
		return round, nil
	}
	switch a[i].S {
	case "exact":
		return false, nil
	case "round":
		return true, nil
	}
	return false, expr.EvalErr("invalid wide_number_mode %q: it is 'exact' or 'round'", a[i].S)
}

// jsonInt64 reads a canonical JSON number as an INT64: an integer in range,
// or a double with no fraction that fits.
func jsonInt64(num string) (int64, bool) {
	if i, err := strconv.ParseInt(num, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f != math.Trunc(f) || f < -9223372036854775808 || f >= 9223372036854775808 {
		return 0, false
	}
	return int64(f), true
}

// jsonExactDouble reports whether the JSON number num is exactly the double
// f: a double is, and an integer is when it converts back unchanged.
func jsonExactDouble(num string, f float64) bool {
	if strings.ContainsAny(num, ".e") {
		return true
	}
	if i, err := strconv.ParseInt(num, 10, 64); err == nil {
		return f >= -9223372036854775808 && f < 9223372036854775808 && int64(f) == i
	}
	u, err := strconv.ParseUint(num, 10, 64)
	return err == nil && f >= 0 && f < 18446744073709551616 && uint64(f) == u
}

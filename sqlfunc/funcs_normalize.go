package sqlfunc

import (
	"fmt"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"logq/expr"
	"logq/types"
)

// NORMALIZE(s[, mode]) and NORMALIZE_AND_CASEFOLD(s[, mode]): Unicode
// normalization in the form NFC (the default), NFKC, NFD or NFKD, then,
// for the second, full case folding — BigQuery's order. The mode is a
// bare name, read as a date part is (the binder turns it into a STRING).
func registerNormalizeFuncs() {
	check := func(c *expr.Call) (types.Type, error) {
		s, err := expr.CoerceTo(c.Args[0], types.String)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 1 of %s: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[0] = s
		if len(c.Args) == 2 {
			k, ok := c.Args[1].(*expr.Const)
			if _, known := normForms[strings.ToUpper(k.V.S)]; !ok || k.V.T.Kind != types.KindString || !known {
				return types.Type{}, fmt.Errorf("%s takes the mode NFC, NFKC, NFD or NFKD", strings.ToUpper(c.Fn))
			}
		}
		return types.String, nil
	}
	normalize := func(fold bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			form := norm.NFC
			if len(a) == 2 {
				form = normForms[strings.ToUpper(a[1].S)]
			}
			s := form.String(a[0].S)
			if fold {
				s = cases.Fold().String(s)
			}
			return types.StringValue(s), nil
		}
	}
	expr.Register("normalize", def(1, 2, check, normalize(false), false))
	expr.Register("normalize_and_casefold", def(1, 2, check, normalize(true), false))
}

var normForms = map[string]norm.Form{"NFC": norm.NFC, "NFKC": norm.NFKC, "NFD": norm.NFD, "NFKD": norm.NFKD}

// foldNFKC is the form CONTAINS_SUBSTR compares in: NFKC, then case folded.
func foldNFKC(s string) string { return cases.Fold().String(norm.NFKC.String(s)) }

// CONTAINS_SUBSTR(expression, search[, json_scope => …]): whether search
// is in expression, both NFKC-normalized and case folded. A STRUCT or
// ARRAY (a row too, written as its alias) is searched field by field: TRUE
// when one field holds it, else NULL when a field is NULL, else FALSE.
// Other scalars are searched in their CAST to STRING; a JSON value in its
// string values (json_scope 'JSON_VALUES', the default), its keys
// ('JSON_KEYS') or both ('JSON_KEYS_AND_VALUES').
func registerContainsSubstr() {
	expr.Register("contains_substr", def(2, 3, func(c *expr.Call) (types.Type, error) {
		for i := 1; i < len(c.Args); i++ {
			x, err := expr.CoerceTo(c.Args[i], types.String)
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of CONTAINS_SUBSTR: %w", i+1, err)
			}
			c.Args[i] = x
		}
		return types.Bool, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[1].Null || len(a) == 3 && a[2].Null {
			return types.NullOf(types.Bool), nil
		}
		keys, values := false, true
		if len(a) == 3 {
			switch strings.ToUpper(a[2].S) {
			case "JSON_VALUES":
			case "JSON_KEYS":
				keys, values = true, false
			case "JSON_KEYS_AND_VALUES":
				keys = true
			default:
				return types.Value{}, expr.EvalErr("CONTAINS_SUBSTR: json_scope %q is not JSON_VALUES, JSON_KEYS or JSON_KEYS_AND_VALUES", a[2].S)
			}
		}
		want := foldNFKC(a[1].S)
		found, sawNull := containsSubstr(a[0], want, keys, values)
		switch {
		case found:
			return types.BoolValue(true), nil
		case sawNull:
			return types.NullOf(types.Bool), nil
		}
		return types.BoolValue(false), nil
	}, true))
}

func containsSubstr(v types.Value, want string, keys, values bool) (found, sawNull bool) {
	if v.Null {
		return false, true
	}
	switch v.T.Kind {
	case types.KindArray, types.KindStruct:
		for _, e := range v.L {
			f, n := containsSubstr(e, want, keys, values)
			if f {
				return true, false
			}
			sawNull = sawNull || n
		}
		return false, sawNull
	case types.KindJSON:
		return jsonContains(types.DecodeJSON(v), want, keys, values), false
	case types.KindString, types.KindBytes:
		return strings.Contains(foldNFKC(v.S), want), false
	}
	s, err := types.Cast(v, types.String)
	if err != nil {
		return false, false
	}
	return strings.Contains(foldNFKC(s.S), want), false
}

func jsonContains(n types.JSONNode, want string, keys, values bool) bool {
	switch n.Kind {
	case types.JSONObject:
		for _, m := range n.Members {
			if keys && strings.Contains(foldNFKC(m.Key), want) || jsonContains(m.Val, want, keys, values) {
				return true
			}
		}
	case types.JSONArray:
		for _, e := range n.Elems {
			if jsonContains(e, want, keys, values) {
				return true
			}
		}
	default:
		if values {
			if s, ok := jsonScalarText(n); ok {
				return strings.Contains(foldNFKC(s), want)
			}
		}
	}
	return false
}

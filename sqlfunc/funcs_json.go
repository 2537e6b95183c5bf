package sqlfunc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"logq/expr"
	"logq/types"
)

// JSON functions over JSON-formatted STRINGs (logq has no JSON type).
// JSON_QUERY/JSON_EXTRACT return the selected value as compact JSON text
// (keys in their original order); JSON_VALUE/JSON_EXTRACT_SCALAR return a
// scalar as STRING (a string unquoted, a number as written, true/false) and
// NULL for an object or array. A missing path, a JSON null, and input that
// is not valid JSON give NULL; an invalid JSONPath is an error (refused at
// load when constant).
func registerJSONFuncs() {
	extract := func(scalar bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			if c.Fn == "json_query" && a[0].T.Kind == types.KindJSON {
				if rest, lax, recursive, err := jsonPathModes(a[1].S); err != nil || lax {
					if err != nil {
						return types.Value{}, err
					}
					steps, err := parseJSONPath(rest)
					if err != nil {
						return types.Value{}, err
					}
					return jsonLaxQuery(a[0], steps, recursive), nil
				}
			}
			steps, err := jsonPathArg(a)
			if err != nil {
				return types.Value{}, err
			}
			if a[0].T.Kind == types.KindJSON {
				return jsonTypedExtract(a[0], steps, scalar)
			}
			raw, ok := jsonSelect([]byte(a[0].S), steps)
			if !ok || bytes.Equal(raw, []byte("null")) {
				return types.NullOf(types.String), nil
			}
			if !scalar {
				var b bytes.Buffer
				if json.Compact(&b, raw) != nil {
					return types.NullOf(types.String), nil
				}
				return types.StringValue(b.String()), nil
			}
			switch raw[0] {
			case '{', '[':
				return types.NullOf(types.String), nil
			case '"':
				var s string
				if json.Unmarshal(raw, &s) != nil {
					return types.NullOf(types.String), nil
				}
				return types.StringValue(s), nil
			}
			return types.StringValue(string(raw)), nil
		}
	}
	query, value := jsonCheck(types.String, types.JSON), jsonCheck(types.String, types.String)
	expr.Register("json_query", def(2, 2, query, extract(false), false))
	expr.Register("json_extract", def(2, 2, query, extract(false), false))
	expr.Register("json_value", def(1, 2, value, extract(true), false))
	expr.Register("json_extract_scalar", def(1, 2, value, extract(true), false))
}

type jsonStep struct {
	key   string
	index int // -1: a key
}

// parseJSONPath reads $ followed by .key, ."key", [n], ['key'] or ["key"].
// jsonCheck types a JSON function (JSON text, an optional JSONPath) that
// returns result, refusing at load a constant path that does not parse.
//
// Over a JSON value (not JSON text) the function returns onJSON instead.
func jsonCheck(result, onJSON types.Type) func(c *expr.Call) (types.Type, error) {
	return func(c *expr.Call) (types.Type, error) {
		result := result // this call's: over JSON text or a JSON value
		if c.Args[0].Type().Kind == types.KindJSON {
			result = onJSON
			if _, err := sig(types.KindJSON, types.KindString, types.KindString)(c); err != nil {
				return types.Type{}, err
			}
		} else if _, err := sig(types.KindString, types.KindString, types.KindString)(c); err != nil {
			return types.Type{}, err
		}
		if len(c.Args) == 2 {
			if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null {
				path := k.V.S
				if c.Fn == "json_query" && result.Kind == types.KindJSON {
					rest, _, _, err := jsonPathModes(path)
					if err != nil {
						return types.Type{}, err
					}
					path = rest
				}
				if _, err := parseJSONPath(path); err != nil {
					return types.Type{}, err
				}
			}
		}
		return result, nil
	}
}

// lastJSONPath remembers the last path parsed: a query's path is nearly
// always a constant, so rows after the first skip the parse.
var lastJSONPath atomic.Pointer[parsedJSONPath]

type parsedJSONPath struct {
	path  string
	steps []jsonStep
}

// jsonPathArg returns the parsed JSONPath of a call's arguments ("$" when
// there is none).
func jsonPathArg(a []types.Value) ([]jsonStep, error) {
	path := "$"
	if len(a) == 2 {
		path = a[1].S
	}
	if last := lastJSONPath.Load(); last != nil && last.path == path {
		return last.steps, nil
	}
	steps, err := parseJSONPath(path)
	if err == nil {
		lastJSONPath.Store(&parsedJSONPath{path, steps})
	}
	return steps, err
}

func parseJSONPath(p string) ([]jsonStep, error) {
	bad := func(why string) ([]jsonStep, error) {
		return nil, expr.EvalErr("invalid JSONPath %q: %s", p, why)
	}
	if !strings.HasPrefix(p, "$") {
		return bad("it must start with $")
	}
	var steps []jsonStep
	s := p[1:]
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
			if strings.HasPrefix(s, `"`) { // ."key", \" for a quote inside
				key, rest, ok := quotedKey(s, '"')
				if !ok {
					return bad("unterminated quoted key")
				}
				steps = append(steps, jsonStep{key: key, index: -1})
				s = rest
				continue
			}
			n := strings.IndexAny(s, ".[")
			if n < 0 {
				n = len(s)
			}
			if n == 0 {
				return bad("empty key")
			}
			steps = append(steps, jsonStep{key: s[:n], index: -1})
			s = s[n:]
		case '[':
			if t := strings.TrimLeft(s[1:], " "); strings.HasPrefix(t, "'") || strings.HasPrefix(t, `"`) {
				// ['key'] or ["key"], a backslash before the quote inside it
				key, rest, ok := quotedKey(t, t[0])
				rest = strings.TrimLeft(rest, " ")
				if !ok || !strings.HasPrefix(rest, "]") {
					return bad("unterminated [")
				}
				steps = append(steps, jsonStep{key: key, index: -1})
				s = rest[1:]
				continue
			}
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return bad("unterminated [")
			}
			in := s[1:end]
			s = s[end+1:]
			i, err := strconv.Atoi(in)
			switch {
			case err == nil && i >= 0:
				steps = append(steps, jsonStep{index: i})
			case in != "" && strings.Trim(in, "0123456789-+ ") != "":
				// $[key]: an unquoted key, as JSON_EXTRACT's paths allow.
				steps = append(steps, jsonStep{key: in, index: -1})
			default:
				return bad(fmt.Sprintf("%q is not an array index", in))
			}
		default:
			return bad(fmt.Sprintf("unexpected %q", s[:1]))
		}
	}
	return steps, nil
}

// jsonSelect returns the raw JSON value at steps, false when it is absent or
// the document is not valid JSON up to it. JSON text is read from the start
// and no further than the value found, as the reference says of STRING
// inputs ("stops as soon as the field to extract is found"):
// JSON_VALUE('{"hello": "world"', '$.hello') is world, the missing '}'
// never read. The value found is whole and valid.
func jsonSelect(doc []byte, steps []jsonStep) (json.RawMessage, bool) {
	raw := json.RawMessage(bytes.TrimSpace(doc))
	if len(steps) == 0 && !json.Valid(raw) {
		return nil, false
	}
	for _, st := range steps {
		var ok bool
		if raw, ok = jsonChild(raw, st); !ok {
			return nil, false
		}
	}
	return raw, len(raw) > 0
}

// jsonChild is the member of the object raw named st.key, or the element
// of the array raw at st.index, read no further than it: the first member
// when a key is repeated, as BigQuery reads it.
func jsonChild(raw json.RawMessage, st jsonStep) (json.RawMessage, bool) {
	open := byte('{')
	if st.index >= 0 {
		open = '['
	}
	if len(raw) == 0 || raw[0] != open {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // { or [
		return nil, false
	}
	for n := 0; dec.More(); n++ {
		var key any
		if open == '{' {
			k, err := dec.Token()
			if err != nil {
				return nil, false
			}
			key = k
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if open == '{' && key == st.key || open == '[' && n == st.index {
			return v, true
		}
	}
	return nil, false
}

// registerJSONArrayFuncs: the array extractors. *_ARRAY of JSON text gives
// each element's compact JSON; JSON_VALUE_ARRAY/JSON_EXTRACT_STRING_ARRAY give
// scalars as STRING, a JSON null as a NULL element, and NULL when an element
// is an object or an array. Not an array, a missing path, invalid JSON:
// NULL.
func registerJSONArrayFuncs() {
	query, value := jsonCheck(types.ArrayOf(types.String), types.ArrayOf(types.JSON)), jsonCheck(types.ArrayOf(types.String), types.ArrayOf(types.String))
	extract := func(scalar bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			null := types.NullOf(types.ArrayOf(types.String))
			steps, err := jsonPathArg(a)
			if err != nil {
				return types.Value{}, err
			}
			if a[0].T.Kind == types.KindJSON {
				return jsonTypedExtractArray(a[0], steps, scalar)
			}
			raw, ok := jsonSelect([]byte(a[0].S), steps)
			var elems []json.RawMessage
			if !ok || raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
				return null, nil
			}
			out := make([]types.Value, 0, len(elems))
			for _, e := range elems {
				e = bytes.TrimSpace(e)
				if !scalar {
					var b bytes.Buffer
					if json.Compact(&b, e) != nil {
						return null, nil
					}
					out = append(out, types.StringValue(b.String()))
					continue
				}
				switch e[0] {
				case '{', '[':
					return null, nil
				case 'n': // a JSON null is a NULL element
					out = append(out, types.NullOf(types.String))
				case '"':
					var s string
					if json.Unmarshal(e, &s) != nil {
						return null, nil
					}
					out = append(out, types.StringValue(s))
				default:
					out = append(out, types.StringValue(string(e)))
				}
			}
			return types.ArrayValue(types.String, out), nil
		}
	}
	expr.Register("json_extract_array", def(1, 2, query, extract(false), false))
	expr.Register("json_query_array", def(1, 2, query, extract(false), false))
	expr.Register("json_value_array", def(1, 2, value, extract(true), false))
	expr.Register("json_extract_string_array", def(1, 2, value, extract(true), false))
}

// jsonSelectNode follows steps from n: false when a step finds nothing.
func jsonSelectNode(n types.JSONNode, steps []jsonStep) (types.JSONNode, bool) {
	for _, st := range steps {
		var ok bool
		if st.index < 0 {
			n, ok = n.Member(st.key)
		} else if ok = n.Kind == types.JSONArray && st.index < len(n.Elems); ok {
			n = n.Elems[st.index]
		}
		if !ok {
			return n, false
		}
	}
	return n, true
}

// jsonScalarText is a JSON scalar as JSON_VALUE gives it: a string
// unquoted, a number in its canonical text, true or false; false for null,
// an object or an array.
func jsonScalarText(n types.JSONNode) (string, bool) {
	switch n.Kind {
	case types.JSONString:
		return n.Str, true
	case types.JSONNumber:
		return n.Num, true
	case types.JSONBool:
		return strconv.FormatBool(n.Bool), true
	}
	return "", false
}

// jsonTypedExtract is JSON_QUERY (a JSON value; JSON null stays JSON null)
// or JSON_VALUE (a scalar as STRING) over a JSON value.
func jsonTypedExtract(v types.Value, steps []jsonStep, scalar bool) (types.Value, error) {
	n, ok := jsonSelectNode(types.DecodeJSON(v), steps)
	if !scalar {
		if !ok {
			return types.NullOf(types.JSON), nil
		}
		return types.JSONValue(n), nil
	}
	s, ok2 := jsonScalarText(n)
	if !ok || !ok2 {
		return types.NullOf(types.String), nil
	}
	return types.StringValue(s), nil
}

// jsonTypedExtractArray is JSON_QUERY_ARRAY (ARRAY<JSON>) or
// JSON_VALUE_ARRAY (ARRAY<STRING>, NULL when an element is not a scalar)
// over a JSON value; NULL when the path finds no array.
func jsonTypedExtractArray(v types.Value, steps []jsonStep, scalar bool) (types.Value, error) {
	elem := types.JSON
	if scalar {
		elem = types.String
	}
	n, ok := jsonSelectNode(types.DecodeJSON(v), steps)
	if !ok || n.Kind != types.JSONArray {
		return types.NullOf(types.ArrayOf(elem)), nil
	}
	out := make([]types.Value, len(n.Elems))
	for i, e := range n.Elems {
		if !scalar {
			out[i] = types.JSONValue(e)
			continue
		}
		s, ok := jsonScalarText(e)
		switch {
		case e.Kind == types.JSONNull: // a JSON null is a NULL element
			out[i] = types.NullOf(types.String)
		case !ok:
			return types.NullOf(types.ArrayOf(elem)), nil
		default:
			out[i] = types.StringValue(s)
		}
	}
	return types.ArrayValue(elem, out), nil
}

// jsonPathModes reads the modifiers JSON_QUERY over a JSON value allows
// before the $ (lax, and lax with recursive, each once, in any order and
// case) and returns the path after them.
func jsonPathModes(p string) (rest string, lax, recursive bool, err error) {
	words := strings.Fields(p)
	i := 0
	for ; i < len(words) && !strings.HasPrefix(words[i], "$"); i++ {
		switch strings.ToLower(words[i]) {
		case "lax":
			if lax {
				return "", false, false, expr.EvalErr("invalid JSONPath %q: modifiers are each written once before the $", p)
			}
			lax = true
		case "recursive":
			if recursive {
				return "", false, false, expr.EvalErr("invalid JSONPath %q: modifiers are each written once before the $", p)
			}
			recursive = true
		default:
			return p, false, false, nil // not a modifier: the path's own error
		}
	}
	if recursive && !lax {
		return "", false, false, expr.EvalErr("invalid JSONPath %q: recursive needs lax", p)
	}
	if !lax {
		return p, false, false, nil
	}
	return strings.Join(words[i:], " "), true, recursive, nil
}

// jsonLaxQuery is JSON_QUERY with a lax path: a key step looks into the
// objects of an array (and of nested arrays when recursive), an index 0
// matches a value that is not an array; every match, in document order, is
// an element of the JSON array returned (empty when nothing matches).
func jsonLaxQuery(v types.Value, steps []jsonStep, recursive bool) types.Value {
	out := types.JSONNode{Kind: types.JSONArray, Elems: []types.JSONNode{}}
	var walk func(n types.JSONNode, i int)
	walk = func(n types.JSONNode, i int) {
		if i == len(steps) {
			out.Elems = append(out.Elems, n)
			return
		}
		st := steps[i]
		switch {
		case st.index >= 0 && n.Kind == types.JSONArray:
			if st.index < len(n.Elems) {
				walk(n.Elems[st.index], i+1)
			}
		case st.index >= 0:
			if st.index == 0 {
				walk(n, i+1)
			}
		case n.Kind == types.JSONObject:
			if m, ok := n.Member(st.key); ok {
				walk(m, i+1)
			}
		case n.Kind == types.JSONArray:
			for _, e := range n.Elems {
				switch {
				case e.Kind == types.JSONObject:
					if m, ok := e.Member(st.key); ok {
						walk(m, i+1)
					}
				case recursive && e.Kind == types.JSONArray:
					walk(e, i)
				}
			}
		}
	}
	walk(types.DecodeJSON(v), 0)
	return types.JSONValue(out)
}

// quotedKey reads a key quoted by q at the start of s (a backslash before q
// stands for q; other backslashes are themselves) and returns it and what
// follows.
func quotedKey(s string, q byte) (key, rest string, ok bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case s[i] == q:
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", false
}

package sqlfunc

import (
	"fmt"
	"sort"
	"strings"

	"logq/expr"
	"logq/types"
)

// Functions that make a new JSON value from another: JSON_SET,
// JSON_REMOVE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_STRIP_NULLS,
// and the readers JSON_KEYS and JSON_FLATTEN. Paths are the JSON_QUERY
// family's (funcs_json.go). Path/value pairs apply left to right, each to
// the result of the one before; a pair whose path is NULL, or does not fit
// the value's shape, changes nothing, as BigQuery documents.
func registerJSONMutateFuncs() {
	expr.Register("json_remove", def(2, -1, checkJsonRemove, evalJsonRemove, true))

	// JSON_SET(j, path, value, …[, create_if_missing => BOOL]).
	expr.Register("json_set", def(3, -1, pairsCheck, pairsEval(func(n types.JSONNode, steps []jsonStep, v types.JSONNode, create bool) types.JSONNode {
		if len(steps) == 0 {
			return v
		}
		return jsonEdit(n, steps, func(parent *types.JSONNode, last jsonStep) {
			if last.index < 0 {
				if parent.Kind == types.JSONNull && create {
					*parent = types.JSONNode{Kind: types.JSONObject}
				}
				if parent.Kind != types.JSONObject {
					return
				}
				if _, ok := parent.Member(last.key); ok || create {
					setMember(parent, last.key, v)
				}
				return
			}
			if parent.Kind == types.JSONNull && create {
				*parent = types.JSONNode{Kind: types.JSONArray}
			}
			if parent.Kind != types.JSONArray {
				return
			}
			if last.index < len(parent.Elems) {
				parent.Elems[last.index] = v
			} else if create {
				padTo(parent, last.index)
				parent.Elems = append(parent.Elems, v)
			}
		}, create)
	}), true))

	// JSON_ARRAY_APPEND(j, path, value, …[, append_each_element => BOOL]).
	expr.Register("json_array_append", def(3, -1, pairsCheck, pairsEachEval(func(n types.JSONNode, steps []jsonStep, vs []types.JSONNode) types.JSONNode {
		return jsonEditAt(n, steps, func(target *types.JSONNode) {
			switch target.Kind {
			case types.JSONNull:
				*target = types.JSONNode{Kind: types.JSONArray, Elems: append([]types.JSONNode{}, vs...)}
			case types.JSONArray:
				target.Elems = append(target.Elems, vs...)
			}
		})
	}), true))

	// JSON_ARRAY_INSERT(j, path ending in [i], value, …[,
	// insert_each_element => BOOL]): past the end, nulls pad up to i.
	expr.Register("json_array_insert", def(3, -1, pairsCheck, pairsEachEval(func(n types.JSONNode, steps []jsonStep, vs []types.JSONNode) types.JSONNode {
		if len(steps) == 0 || steps[len(steps)-1].index < 0 {
			return n // the path must end in an array index
		}
		at := steps[len(steps)-1].index
		return jsonEditAt(n, steps[:len(steps)-1], func(target *types.JSONNode) {
			switch target.Kind {
			case types.JSONNull:
				*target = types.JSONNode{Kind: types.JSONArray}
			case types.JSONArray:
			default:
				return
			}
			padTo(target, at)
			elems := append([]types.JSONNode{}, target.Elems[:at]...)
			elems = append(elems, vs...)
			target.Elems = append(elems, target.Elems[at:]...)
		})
	}), true))

	// JSON_STRIP_NULLS(j[, path][, include_arrays][, remove_empty]).
	expr.Register("json_strip_nulls", def(1, 4, sig(types.KindJSON, types.KindString, types.KindBool, types.KindBool, types.KindJSON), evalJsonStripNulls, true))

	// JSON_KEYS(j[, max_depth][, mode => 'strict' | 'lax' | 'lax recursive']):
	// the object keys, as dotted paths, sorted and each once.
	expr.Register("json_keys", def(1, 3, checkJsonKeys, evalJsonKeys, false))

	// JSON_FLATTEN(j): the values that are not arrays, in j or in arrays
	// nested in it directly, in order.
	expr.Register("json_flatten", def(1, 1, checkJsonFlatten, evalJsonFlatten, false))
}

func checkJsonRemove(c *expr.Call) (types.Type, error) {
	return jsonThenPaths(c, len(c.Args))
}

func evalJsonRemove(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Null {
		return a[0], nil
	}
	n := types.DecodeJSON(a[0])
	for _, p := range a[1:] {
		if p.Null {
			continue
		}
		steps, err := parseJSONPath(p.S)
		if err != nil {
			return types.Value{}, err
		}
		if len(steps) == 0 {
			return types.Value{}, expr.EvalErr("JSON_REMOVE cannot remove the whole value ($)")
		}
		n = jsonEdit(n, steps, func(parent *types.JSONNode, last jsonStep) { removeStep(parent, last) }, false)
	}
	return types.JSONValue(n), nil
}

func evalJsonStripNulls(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Null {
		return a[0], nil
	}
	for _, x := range a[1:] {
		if x.Null {
			return a[0], nil
		}
	}
	path := "$"
	if len(a) > 1 {
		path = a[1].S
	}
	steps, err := parseJSONPath(path)
	if err != nil {
		return types.Value{}, err
	}
	arrays := len(a) < 3 || a[2].Bool()
	empty := len(a) > 3 && a[3].Bool()
	n := jsonEditAt(types.DecodeJSON(a[0]), steps, func(target *types.JSONNode) {
		if out, keep := stripNulls(*target, arrays, empty); keep {
			*target = out
		} else {
			*target = types.JSONNode{Kind: types.JSONNull}
		}
	})
	return types.JSONValue(n), nil
}

func checkJsonKeys(c *expr.Call) (types.Type, error) {
	if _, err := sig(types.KindJSON, types.KindInt64, types.KindString, types.KindString)(c); err != nil {
		return types.Type{}, err
	}
	return types.ArrayOf(types.String), nil
}

func evalJsonKeys(c *expr.Call, a []types.Value) (types.Value, error) {
	depth := int64(1 << 62)
	if len(a) > 1 {
		if depth = a[1].I; depth <= 0 {
			return types.Value{}, expr.EvalErr("JSON_KEYS: max_depth must be positive")
		}
	}
	mode := "strict"
	if len(a) > 2 {
		mode = strings.Join(strings.Fields(strings.ToLower(a[2].S)), " ")
	}
	unwrap := 0
	switch mode {
	case "strict":
	case "lax":
		unwrap = 1
	case "lax recursive":
		unwrap = -1
	default:
		return types.Value{}, expr.EvalErr("JSON_KEYS: mode %q is not 'strict', 'lax' or 'lax recursive'", a[2].S)
	}
	seen := map[string]bool{}
	jsonKeys(types.DecodeJSON(a[0]), "", depth, unwrap, unwrap, seen)
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]types.Value, len(keys))
	for i, k := range keys {
		out[i] = types.StringValue(k)
	}
	return types.ArrayValue(types.String, out), nil
}

func checkJsonFlatten(c *expr.Call) (types.Type, error) {
	if _, err := sig(types.KindJSON, types.KindJSON)(c); err != nil {
		return types.Type{}, err
	}
	return types.ArrayOf(types.JSON), nil
}

func evalJsonFlatten(c *expr.Call, a []types.Value) (types.Value, error) {
	var out []types.Value
	var walk func(n types.JSONNode)
	walk = func(n types.JSONNode) {
		if n.Kind != types.JSONArray {
			out = append(out, types.JSONValue(n))
			return
		}
		for _, e := range n.Elems {
			walk(e)
		}
	}
	walk(types.DecodeJSON(a[0]))
	return types.ArrayValue(types.JSON, out), nil
}

// jsonThenPaths types (JSON, STRING path, …) for the first n arguments.
func jsonThenPaths(c *expr.Call, n int) (types.Type, error) {
	for i := 0; i < n; i++ {
		want := types.String
		if i == 0 {
			want = types.JSON
		}
		x, err := expr.CoerceTo(c.Args[i], want)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
		}
		c.Args[i] = x
	}
	return types.JSON, nil
}

// pairsCheck types (JSON, path, value, …[, BOOL option]): an odd count of
// arguments is pairs only, an even one ends with the named option.
func pairsCheck(c *expr.Call) (types.Type, error) {
	n := len(c.Args)
	if n%2 == 0 {
		b, err := expr.CoerceTo(c.Args[n-1], types.Bool)
		if err != nil {
			return types.Type{}, fmt.Errorf("%s takes path and value pairs, then its option as name => BOOL: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[n-1] = b
		n--
	}
	for i := 0; i < n; i++ {
		want := types.String // a path
		switch {
		case i == 0:
			want = types.JSON
		case i%2 == 0:
			continue // a value, of any type
		}
		x, err := expr.CoerceTo(c.Args[i], want)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
		}
		c.Args[i] = x
	}
	return types.JSON, nil
}

// pairs splits pairsCheck's arguments: the pairs, and the option (true when
// not given; ok false when it is NULL, which leaves the value as it is).
func pairs(a []types.Value) (ps []types.Value, option, ok bool) {
	ps = a[1:]
	option, ok = true, true
	if len(a)%2 == 0 {
		o := a[len(a)-1]
		ps = a[1 : len(a)-1]
		option, ok = o.Bool(), !o.Null
	}
	return ps, option, ok
}

// pairsEval evaluates JSON_SET-like functions: apply(n, steps, value,
// option) for each pair.
func pairsEval(apply func(n types.JSONNode, steps []jsonStep, v types.JSONNode, option bool) types.JSONNode) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		ps, option, ok := pairs(a)
		if a[0].Null || !ok {
			return a[0], nil
		}
		n := types.DecodeJSON(a[0])
		for i := 0; i < len(ps); i += 2 {
			if ps[i].Null {
				continue
			}
			steps, err := parseJSONPath(ps[i].S)
			if err != nil {
				return types.Value{}, err
			}
			v, err := types.ToJSON(ps[i+1], false)
			if err != nil {
				return types.Value{}, expr.EvalErr("%s: %v", strings.ToUpper(c.Fn), err)
			}
			n = apply(n, steps, v, option)
		}
		return types.JSONValue(n), nil
	}
}

// pairsEachEval evaluates the array appenders: an ARRAY value gives its
// elements one by one when the option is TRUE (the default).
func pairsEachEval(apply func(n types.JSONNode, steps []jsonStep, vs []types.JSONNode) types.JSONNode) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return pairsEval(func(n types.JSONNode, steps []jsonStep, v types.JSONNode, each bool) types.JSONNode {
		if each && v.Kind == types.JSONArray {
			return apply(n, steps, v.Elems)
		}
		return apply(n, steps, []types.JSONNode{v})
	})
}

// jsonEdit applies edit to the node that holds the path's last step (its
// parent), copying the nodes along the way. With create, missing members
// and elements on the way are made (an object for a key, an array, padded
// with nulls, for an index); without, a missing step leaves n unchanged.
func jsonEdit(n types.JSONNode, steps []jsonStep, edit func(parent *types.JSONNode, last jsonStep), create bool) types.JSONNode {
	out := cloneJSON(n)
	cur := &out
	for _, st := range steps[:len(steps)-1] {
		next := childOf(cur, st, create)
		if next == nil {
			return n
		}
		cur = next
	}
	edit(cur, steps[len(steps)-1])
	return out
}

// jsonEditAt applies edit to the node the whole path names, if it exists.
func jsonEditAt(n types.JSONNode, steps []jsonStep, edit func(target *types.JSONNode)) types.JSONNode {
	out := cloneJSON(n)
	cur := &out
	for _, st := range steps {
		if cur = childOf(cur, st, false); cur == nil {
			return n
		}
	}
	edit(cur)
	return out
}

// childOf returns the member or element st names in cur, making it (and
// cur's shape, when cur is null) with create; nil when there is none.
func childOf(cur *types.JSONNode, st jsonStep, create bool) *types.JSONNode {
	if st.index < 0 {
		if cur.Kind == types.JSONNull && create {
			*cur = types.JSONNode{Kind: types.JSONObject}
		}
		if cur.Kind != types.JSONObject {
			return nil
		}
		if _, ok := cur.Member(st.key); !ok {
			if !create {
				return nil
			}
			setMember(cur, st.key, types.JSONNode{Kind: types.JSONNull})
		}
		i := sort.Search(len(cur.Members), func(i int) bool { return cur.Members[i].Key >= st.key })
		return &cur.Members[i].Val
	}
	if cur.Kind == types.JSONNull && create {
		*cur = types.JSONNode{Kind: types.JSONArray}
	}
	if cur.Kind != types.JSONArray {
		return nil
	}
	if st.index >= len(cur.Elems) {
		if !create {
			return nil
		}
		padTo(cur, st.index+1)
	}
	return &cur.Elems[st.index]
}

// setMember sets key in the object o, keeping its keys sorted.
func setMember(o *types.JSONNode, key string, v types.JSONNode) {
	i := sort.Search(len(o.Members), func(i int) bool { return o.Members[i].Key >= key })
	if i < len(o.Members) && o.Members[i].Key == key {
		o.Members[i].Val = v
		return
	}
	o.Members = append(o.Members, types.JSONMember{})
	copy(o.Members[i+1:], o.Members[i:])
	o.Members[i] = types.JSONMember{Key: key, Val: v}
}

// removeStep deletes the member or element st from parent, if it is there.
func removeStep(parent *types.JSONNode, st jsonStep) {
	if st.index < 0 {
		if parent.Kind != types.JSONObject {
			return
		}
		for i, m := range parent.Members {
			if m.Key == st.key {
				parent.Members = append(parent.Members[:i:i], parent.Members[i+1:]...)
				return
			}
		}
		return
	}
	if parent.Kind == types.JSONArray && st.index < len(parent.Elems) {
		parent.Elems = append(parent.Elems[:st.index:st.index], parent.Elems[st.index+1:]...)
	}
}

// padTo extends an array with nulls to at least n elements.
func padTo(a *types.JSONNode, n int) {
	for len(a.Elems) < n {
		a.Elems = append(a.Elems, types.JSONNode{Kind: types.JSONNull})
	}
}

// cloneJSON copies a node deeply, so an edit leaves the original alone.
func cloneJSON(n types.JSONNode) types.JSONNode {
	switch n.Kind {
	case types.JSONArray:
		e := make([]types.JSONNode, len(n.Elems))
		for i, x := range n.Elems {
			e[i] = cloneJSON(x)
		}
		n.Elems = e
	case types.JSONObject:
		m := make([]types.JSONMember, len(n.Members))
		for i, x := range n.Members {
			m[i] = types.JSONMember{Key: x.Key, Val: cloneJSON(x.Val)}
		}
		n.Members = m
	}
	return n
}

// stripNulls removes JSON nulls from objects (and arrays, with arrays) and,
// with empty, the objects (and arrays) left empty; keep is false when n
// itself goes.
func stripNulls(n types.JSONNode, arrays, empty bool) (out types.JSONNode, keep bool) {
	switch n.Kind {
	case types.JSONNull:
		return n, false
	case types.JSONObject:
		m := []types.JSONMember{}
		for _, x := range n.Members {
			if v, ok := stripNulls(x.Val, arrays, empty); ok {
				m = append(m, types.JSONMember{Key: x.Key, Val: v})
			}
		}
		n.Members = m
		return n, !(empty && len(m) == 0)
	case types.JSONArray:
		if !arrays {
			return n, true
		}
		e := []types.JSONNode{}
		for _, x := range n.Elems {
			if v, ok := stripNulls(x, arrays, empty); ok {
				e = append(e, v)
			}
		}
		n.Elems = e
		return n, !(empty && len(e) == 0)
	}
	return n, true
}

// jsonKeys collects the keys under n as dotted paths (a key that is not a
// plain name quoted), down to depth levels of objects; arrays are looked
// into unwrap levels deep (-1: any depth; 0: not at all), the budget
// restored below each object.
func jsonKeys(n types.JSONNode, prefix string, depth int64, unwrap, budget int, seen map[string]bool) {
	switch n.Kind {
	case types.JSONObject:
		if depth <= 0 {
			return
		}
		for _, m := range n.Members {
			k := prefix + quoteJSONKey(m.Key)
			seen[k] = true
			jsonKeys(m.Val, k+".", depth-1, unwrap, unwrap, seen)
		}
	case types.JSONArray:
		if budget == 0 {
			return
		}
		for _, e := range n.Elems {
			jsonKeys(e, prefix, depth, unwrap, budget-1, seen)
		}
	}
}

// quoteJSONKey writes a key as a JSONPath member: bare when it is letters,
// digits and underscores, else in double quotes.
func quoteJSONKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return `"` + strings.ReplaceAll(k, `"`, `\"`) + `"`
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

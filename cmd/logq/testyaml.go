package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"gopkg.in/yaml.v3"
)

// A test file writes events and expected rows in YAML, but ingest takes
// JSON and the API answers JSON; yamlJSON turns one YAML value into the
// JSON text of the same value, so both sides of a comparison, and every
// event, are JSON as the server sees it. Working on nodes, not on a decoded
// map, keeps keys in the order written (events are ingested as the user
// wrote them) and every error at its line and column.

// Aliases let a short document describe a huge value ("billion laughs":
// each of ten aliases names a list of ten of the previous one), and
// yaml.v3 guards against that only when decoding into Go values, not for
// a walk over nodes. One event or row written in YAML is therefore
// bounded: its nesting, the values it expands to, and its JSON's size
// (larger inputs belong in an events file). An alias inside the value it
// names is refused outright.
const (
	maxYAMLDepth  = 200
	maxYAMLValues = 100_000
	maxYAMLBytes  = 1 << 20
)

type yamlJSONWriter struct {
	at     func(*yaml.Node) string // "file:line:col" of a node
	buf    []byte
	values int                       // nodes written so far
	open   map[*yaml.Node]bool       // aliased nodes being written, merged mappings being listed
	memo   map[*yaml.Node][]yamlPair // merged mappings listed
}

// yamlJSON returns the JSON text of n. at names a node's position in
// errors.
func yamlJSON(n *yaml.Node, at func(*yaml.Node) string) ([]byte, error) {
	w := &yamlJSONWriter{at: at}
	if err := w.value(n, 0); err != nil {
		return nil, err
	}
	return w.buf, nil
}

func (w *yamlJSONWriter) value(n *yaml.Node, depth int) error {
	if depth > maxYAMLDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", w.at(n), maxYAMLDepth)
	}
	if w.values++; w.values > maxYAMLValues || len(w.buf) > maxYAMLBytes {
		return fmt.Errorf("%s: the value is larger than %d values or %d bytes of JSON; put large events in an events file", w.at(n), maxYAMLValues, maxYAMLBytes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			w.buf = append(w.buf, "null"...)
			return nil
		}
		return w.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return fmt.Errorf("%s: unknown alias", w.at(n))
		}
		if w.open[n.Alias] {
			return fmt.Errorf("%s: alias *%s is inside the value it names", w.at(n), n.Value)
		}
		w.mark(n.Alias, true)
		defer w.mark(n.Alias, false)
		return w.value(n.Alias, depth+1)
	case yaml.ScalarNode:
		return w.scalar(n)
	case yaml.SequenceNode:
		w.buf = append(w.buf, '[')
		for i, c := range n.Content {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if err := w.value(c, depth+1); err != nil {
				return err
			}
		}
		w.buf = append(w.buf, ']')
		return nil
	case yaml.MappingNode:
		return w.mapping(n, depth)
	}
	return fmt.Errorf("%s: unsupported YAML node", w.at(n))
}

// scalar writes a scalar by its resolved tag: YAML's own types map onto
// JSON's; a timestamp stays the text written (ingest parses it, and a
// TIMESTAMP in a result is an integer anyway).
func (w *yamlJSONWriter) scalar(n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!str", "!!timestamp":
		b, err := json.Marshal(n.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", w.at(n), err)
		}
		w.buf = append(w.buf, b...)
	case "!!null":
		w.buf = append(w.buf, "null"...)
	case "!!bool":
		var v bool
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", w.at(n), err)
		}
		w.buf = strconv.AppendBool(w.buf, v)
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			w.buf = strconv.AppendInt(w.buf, i, 10)
			return nil
		}
		var u uint64
		if err := n.Decode(&u); err != nil {
			return fmt.Errorf("%s: integer %s is out of range", w.at(n), n.Value)
		}
		w.buf = strconv.AppendUint(w.buf, u, 10)
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return fmt.Errorf("%s: %w", w.at(n), err)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf(`%s: JSON has no %s; the API sends NaN and infinities as the strings "NaN", "Infinity" and "-Infinity"`, w.at(n), n.Value)
		}
		w.buf = strconv.AppendFloat(w.buf, f, 'g', -1, 64)
	default:
		return fmt.Errorf("%s: a value tagged %s has no JSON form", w.at(n), n.Tag)
	}
	return nil
}

// mapping writes an object. A key repeated is an error (JSON readers
// disagree on which one wins); a YAML merge key (<<: *base) brings in the
// keys of base that the mapping does not set itself, where the merge key
// stands, so events can share a template.
func (w *yamlJSONWriter) mapping(n *yaml.Node, depth int) error {
	pairs, err := w.pairs(n, depth)
	if err != nil {
		return err
	}
	w.buf = append(w.buf, '{')
	for i, p := range pairs {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		kb, err := json.Marshal(p.key)
		if err != nil {
			return fmt.Errorf("%s: %w", w.at(p.val), err)
		}
		w.buf = append(append(w.buf, kb...), ':')
		if err := w.value(p.val, depth+1); err != nil {
			return err
		}
	}
	w.buf = append(w.buf, '}')
	return nil
}

type yamlPair struct {
	key     string
	keyNode *yaml.Node
	val     *yaml.Node
}

// pairs lists a mapping's keys and values with merge keys applied: the
// mapping's own keys win, then the merged mappings' in the order given
// (YAML's rule). Each mapping's list is made once (memo), so a document
// that merges the same base many times costs its size, not a power of it.
func (w *yamlJSONWriter) pairs(n *yaml.Node, depth int) ([]yamlPair, error) {
	if p, ok := w.memo[n]; ok {
		return p, nil
	}
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("%s: nested deeper than %d levels", w.at(n), maxYAMLDepth)
	}
	if w.open[n] {
		return nil, fmt.Errorf("%s: a merge key (<<) names the mapping that holds it", w.at(n))
	}
	w.mark(n, true)
	defer w.mark(n, false)
	own := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.ShortTag() == "!!merge" {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: a key must be a plain value", w.at(k))
		}
		if own[k.Value] {
			return nil, fmt.Errorf("%s: key %q is repeated", w.at(k), k.Value)
		}
		own[k.Value] = true
	}
	var out []yamlPair
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.ShortTag() != "!!merge" {
			out = append(out, yamlPair{k.Value, k, v})
			seen[k.Value] = true
			continue
		}
		bases, err := w.mergeBases(v)
		if err != nil {
			return nil, err
		}
		for _, b := range bases {
			bp, err := w.pairs(b, depth+1)
			if err != nil {
				return nil, err
			}
			for _, p := range bp {
				if !own[p.key] && !seen[p.key] {
					out = append(out, p)
					seen[p.key] = true
				}
			}
		}
	}
	if w.memo == nil {
		w.memo = map[*yaml.Node][]yamlPair{}
	}
	w.memo[n] = out
	return out, nil
}

// mergeBases returns the mappings a merge key's value names: one mapping,
// or a sequence of them.
func (w *yamlJSONWriter) mergeBases(v *yaml.Node) ([]*yaml.Node, error) {
	deref := func(n *yaml.Node) *yaml.Node {
		for d := 0; n != nil && n.Kind == yaml.AliasNode && d < maxYAMLDepth; d++ {
			n = n.Alias
		}
		return n
	}
	at := v
	v = deref(v)
	var out []*yaml.Node
	switch {
	case v != nil && v.Kind == yaml.MappingNode:
		out = append(out, v)
	case v != nil && v.Kind == yaml.SequenceNode:
		for _, c := range v.Content {
			if c = deref(c); c == nil || c.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("%s: a merge key (<<) takes mappings", w.at(at))
			}
			out = append(out, c)
		}
	default:
		return nil, fmt.Errorf("%s: a merge key (<<) takes a mapping or a list of mappings", w.at(at))
	}
	return out, nil
}

// mark notes that n is being written (or listed), or no longer is.
func (w *yamlJSONWriter) mark(n *yaml.Node, on bool) {
	if w.open == nil {
		w.open = map[*yaml.Node]bool{}
	}
	if on {
		w.open[n] = true
	} else {
		delete(w.open, n)
	}
}

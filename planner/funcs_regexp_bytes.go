package planner

import (
	"strings"

	"logq/types"
)

// The REGEXP_ functions over BYTES (BigQuery's): the value, pattern and
// replacement are BYTES, and the pattern matches bytes, not characters (.
// is one byte, positions count bytes). Each BYTES argument is read as
// Latin-1 text, one character per byte (bytes_to_latin1), the STRING
// function runs on that, and a text result becomes BYTES again
// (latin1_to_bytes); a position or a BOOL is the same either way.

var regexpFns = map[string]bool{"regexp_contains": true, "regexp_extract": true, "regexp_extract_all": true, "regexp_replace": true, "regexp_instr": true}

// bytesRegexp reports whether fn is a REGEXP_ function called with BYTES.
func bytesRegexp(fn string, args []Expr) bool {
	if !regexpFns[fn] {
		return false
	}
	for _, a := range args {
		if a.Type().Kind == types.KindBytes {
			return true
		}
	}
	return false
}

// regexpOfBytes binds c, a REGEXP_ call of BYTES, over their Latin-1 text.
func (b *binder) regexpOfBytes(pos int, c *Call) Expr {
	texts := 2 // value, pattern (and REGEXP_REPLACE's replacement)
	if c.Fn == "regexp_replace" {
		texts = 3
	}
	for i := 0; i < texts && i < len(c.Args); i++ {
		c.Args[i] = b.latin1(pos, c.Fn, c.Args[i])
	}
	x := b.finish(pos, c)
	switch t := x.Type(); {
	case t.Kind == types.KindString:
		return b.finish(pos, &Call{Fn: "latin1_to_bytes", Args: []Expr{x}, T: types.Bytes})
	case t.Kind == types.KindArray && t.Elem.Kind == types.KindString:
		return b.finish(pos, &Call{Fn: "latin1_to_bytes", Args: []Expr{x}, T: types.ArrayOf(types.Bytes)})
	}
	return x
}

// likeOfBytes makes the operands of LIKE of BYTES (BigQuery's: '_' is one
// byte) their Latin-1 text, as the REGEXP_ functions' are; STRING operands
// are returned as they are.
func (b *binder) likeOfBytes(pos int, args []Expr) []Expr {
	if args[0].Type().Kind != types.KindBytes && args[1].Type().Kind != types.KindBytes {
		return args
	}
	return []Expr{b.latin1(pos, "like", args[0]), b.latin1(pos, "like", args[1])}
}

// latin1 is a BYTES (or NULL) argument of fn read as Latin-1 text, one
// character per byte; a constant is folded, so a constant pattern stays
// one for the kernels that cache it. Another type beside BYTES is refused.
func (b *binder) latin1(pos int, fn string, x Expr) Expr {
	switch x.Type().Kind {
	case types.KindBytes:
	case types.KindNull:
		x = &Const{V: types.NullOf(types.Bytes)}
	default:
		b.fail(pos, "%s needs all STRING or all BYTES arguments, not %s beside BYTES", strings.ToUpper(fn), x.Type())
	}
	return b.finish(pos, &Call{Fn: "bytes_to_latin1", Args: []Expr{x}, T: types.String})
}

func registerRegexpBytes() {
	register("bytes_to_latin1", def(1, 1, nil, func(c *Call, a []types.Value) (types.Value, error) {
		return types.StringValue(string(byteRunes(a[0].S))), nil // funcs_codes.go
	}, false)) // internal (funcs.go)
	register("latin1_to_bytes", def(1, 1, nil, func(c *Call, a []types.Value) (types.Value, error) {
		back := func(s string) (types.Value, error) {
			out := make([]byte, 0, len(s))
			for _, r := range s {
				if r >= 256 { // U+FFFD, an invalid sequence's, is past 255 too
					return types.Value{}, evalErr("a BYTES regular expression made a character past one byte: %q", r)
				}
				out = append(out, byte(r))
			}
			return types.Value{T: types.Bytes, S: string(out)}, nil
		}
		if c.T.Kind != types.KindArray {
			return back(a[0].S)
		}
		out := make([]types.Value, len(a[0].L))
		for i, v := range a[0].L {
			if v.Null {
				out[i] = types.NullOf(types.Bytes)
				continue
			}
			x, err := back(v.S)
			if err != nil {
				return types.Value{}, err
			}
			out[i] = x
		}
		return types.ArrayValue(types.Bytes, out), nil
	}, false)) // internal (funcs.go)
}

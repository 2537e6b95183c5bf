package sqlfunc

import (
	"logq/expr"
	"logq/types"
)

// The REGEXP_ functions over BYTES (BigQuery's): the value, pattern and
// replacement are BYTES, and the pattern matches bytes, not characters (.
// is one byte, positions count bytes). Each BYTES argument is read as
// Latin-1 text, one character per byte (bytes_to_latin1), the STRING
// function runs on that, and a text result becomes BYTES again
// (latin1_to_bytes); a position or a BOOL is the same either way.

func registerRegexpBytes() {
	expr.Register("bytes_to_latin1", def(1, 1, nil, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.StringValue(string(byteRunes(a[0].S))), nil // funcs_codes.go
	}, false)) // internal (funcs.go)
	expr.Register("latin1_to_bytes", def(1, 1, nil, func(c *expr.Call, a []types.Value) (types.Value, error) {
		back := func(s string) (types.Value, error) {
			out := make([]byte, 0, len(s))
			for _, r := range s {
				if r >= 256 { // U+FFFD, an invalid sequence's, is past 255 too
					return types.Value{}, expr.EvalErr("a BYTES regular expression made a character past one byte: %q", r)
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

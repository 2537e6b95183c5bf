package sqlfunc

import (
	"fmt"

	"logq/expr"
	"logq/types"
)

// The bitwise operators ~, &, |, ^, << and >> over INT64 and BYTES. The
// result has the type (and, for BYTES, the length) of the first operand;
// BYTES operands of & | ^ must be of one length; a shift is logical (no
// sign extension), by at most the operand's width, and never negative.
func registerBitwiseOps() {
	expr.Register("bitnot", def(1, 1, checkBitnot, evalBitnot, false))
	for op, f := range map[string]func(x, y int64) int64{
		"&": func(x, y int64) int64 { return x & y },
		"|": func(x, y int64) int64 { return x | y },
		"^": func(x, y int64) int64 { return x ^ y },
	} {
		expr.Register(op, def(2, 2, pair, func(c *expr.Call, a []types.Value) (types.Value, error) {
			if a[0].T.Kind == types.KindInt64 {
				return types.IntValue(f(a[0].I, a[1].I)), nil
			}
			x, y := a[0].S, a[1].S
			if len(x) != len(y) {
				return types.Value{}, expr.EvalErr("operator %s needs BYTES of one length, got %d and %d bytes", op, len(x), len(y))
			}
			b := make([]byte, len(x))
			for i := range b {
				b[i] = byte(f(int64(x[i]), int64(y[i])))
			}
			return types.Value{T: types.Bytes, S: string(b)}, nil
		}, false))
	}
	for _, op := range []string{"<<", ">>"} {
		left := op == "<<"
		expr.Register(op, def(2, 2, shift, func(c *expr.Call, a []types.Value) (types.Value, error) {
			n := a[1].I
			if n < 0 {
				return types.Value{}, expr.EvalErr("operator %s cannot shift by a negative count (%d)", op, n)
			}
			if a[0].T.Kind == types.KindInt64 {
				u := uint64(a[0].I)
				switch {
				case n >= 64:
					u = 0
				case left:
					u <<= uint(n)
				default:
					u >>= uint(n)
				}
				return types.IntValue(int64(u)), nil
			}
			return types.Value{T: types.Bytes, S: string(shiftBytes([]byte(a[0].S), n, left))}, nil
		}, false))
	}
}

func intOrBytes(c *expr.Call, e expr.Expr) (expr.Expr, error) {
	switch e.Type().Kind {
	case types.KindInt64, types.KindBytes:
		return e, nil
	case types.KindNull:
		return expr.CoerceTo(e, types.Int64)
	}
	return nil, fmt.Errorf("operator %s needs INT64 or BYTES, not %s", opName(c.Fn), e.Type())
}

// & | ^: both INT64 (a literal of another number type is not coerced) or both BYTES.
func pair(c *expr.Call) (types.Type, error) {
	t := types.Null
	for _, a := range c.Args {
		if k := a.Type().Kind; k != types.KindNull {
			t = a.Type()
		}
	}
	if t.Kind == types.KindNull {
		t = types.Int64
	}
	for i, a := range c.Args {
		a, err := intOrBytes(c, a)
		if err == nil && a.Type().Kind != t.Kind && a.Type().Kind != types.KindNull {
			err = fmt.Errorf("operator %s cannot combine %s and %s", opName(c.Fn), c.Args[0].Type(), c.Args[1].Type())
		}
		if err != nil {
			return types.Type{}, err
		}
		if c.Args[i], err = expr.CoerceTo(a, t); err != nil {
			return types.Type{}, err
		}
	}
	return t, nil
}

func shift(c *expr.Call) (types.Type, error) {
	x, err := intOrBytes(c, c.Args[0])
	if err != nil {
		return types.Type{}, err
	}
	c.Args[0] = x
	if c.Args[1], err = expr.CoerceTo(c.Args[1], types.Int64); err != nil {
		return types.Type{}, fmt.Errorf("the shift of operator %s: %w", opName(c.Fn), err)
	}
	return x.Type(), nil
}

func checkBitnot(c *expr.Call) (types.Type, error) {
	x, err := intOrBytes(c, c.Args[0])
	c.Args[0] = x
	if err != nil {
		return types.Type{}, err
	}
	return x.Type(), nil
}

func evalBitnot(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].T.Kind == types.KindInt64 {
		return types.IntValue(^a[0].I), nil
	}
	b := []byte(a[0].S)
	for i := range b {
		b[i] = ^b[i]
	}
	return types.Value{T: types.Bytes, S: string(b)}, nil
}

// shiftBytes shifts b, read as one big-endian bit string, by n bits,
// filling with zeros and keeping its length.
func shiftBytes(b []byte, n int64, left bool) []byte {
	out := make([]byte, len(b))
	if n >= int64(len(b))*8 {
		return out
	}
	whole, bits := int(n/8), uint(n%8)
	for i := range out {
		var hi, lo byte // the source bytes that feed byte i
		if left {
			if j := i + whole; j < len(b) {
				hi = b[j]
			}
			if j := i + whole + 1; j < len(b) {
				lo = b[j]
			}
			out[i] = hi<<bits | byte(uint16(lo)>>(8-bits))
		} else {
			if j := i - whole; j >= 0 {
				lo = b[j]
			}
			if j := i - whole - 1; j >= 0 {
				hi = b[j]
			}
			out[i] = lo>>bits | byte(uint16(hi)<<(8-bits))
		}
	}
	return out
}

// opName is how an operator is written in an error message.
func opName(fn string) string {
	if fn == "bitnot" {
		return "~"
	}
	return fn
}

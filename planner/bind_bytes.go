package planner

import (
	"logq/expr"
	"logq/types"
	"strings"
)

// regexpOfBytes binds c, a REGEXP_ call of BYTES, over their Latin-1 text.
func (b *binder) regexpOfBytes(pos int, c *expr.Call) expr.Expr {
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
		return b.finish(pos, &expr.Call{Fn: "latin1_to_bytes", Args: []expr.Expr{x}, T: types.Bytes})
	case t.Kind == types.KindArray && t.Elem.Kind == types.KindString:
		return b.finish(pos, &expr.Call{Fn: "latin1_to_bytes", Args: []expr.Expr{x}, T: types.ArrayOf(types.Bytes)})
	}
	return x
}

// likeOfBytes makes the operands of LIKE of BYTES (BigQuery's: '_' is one
// byte) their Latin-1 text, as the REGEXP_ functions' are; STRING operands
// are returned as they are.
func (b *binder) likeOfBytes(pos int, args []expr.Expr) []expr.Expr {
	if args[0].Type().Kind != types.KindBytes && args[1].Type().Kind != types.KindBytes {
		return args
	}
	return []expr.Expr{b.latin1(pos, "like", args[0]), b.latin1(pos, "like", args[1])}
}

// latin1 is a BYTES (or NULL) argument of fn read as Latin-1 text, one
// character per byte; a constant is folded, so a constant pattern stays
// one for the kernels that cache it. Another type beside BYTES is refused.
func (b *binder) latin1(pos int, fn string, x expr.Expr) expr.Expr {
	switch x.Type().Kind {
	case types.KindBytes:
	case types.KindNull:
		x = &expr.Const{V: types.NullOf(types.Bytes)}
	default:
		b.fail(pos, "%s needs all STRING or all BYTES arguments, not %s beside BYTES", strings.ToUpper(fn), x.Type())
	}
	return b.finish(pos, &expr.Call{Fn: "bytes_to_latin1", Args: []expr.Expr{x}, T: types.String})
}

var regexpFns = map[string]bool{"regexp_contains": true, "regexp_extract": true, "regexp_extract_all": true, "regexp_replace": true, "regexp_instr": true}

// bytesRegexp reports whether fn is a REGEXP_ function called with BYTES.
func bytesRegexp(fn string, args []expr.Expr) bool {
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

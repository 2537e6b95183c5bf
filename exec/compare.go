package exec

import (
	"cmp"
	"strings"

	"logq/expr"
	"logq/types"
)

// compare evaluates a comparison. Both sides have one type after binding
// (numbers may still mix INT64 and FLOAT64, compared as FLOAT64).
func (ev *evaluator) compare(c *expr.Call, b *Batch) (*Vector, bool, error) {
	l, r, err := ev.eval2(c, b)
	if err != nil {
		return nil, true, err
	}
	out := ev.out(c, types.Bool, b.N)
	ls, rs := l.storage(), r.storage()
	switch {
	case l.Lazy != nil || r.Lazy != nil || ls == inValues || rs == inValues:
		return nil, false, nil
	case ls == inInts && rs == inInts:
		cmpLoop(c.Fn, l.I[:b.N], r.I[:b.N], out.I)
	case ls == inStrings && rs == inStrings:
		stringCmp(c.Fn, l.S[:b.N], r.S[:b.N], out.I)
	case ls == inFloats || rs == inFloats:
		cmpLoop(c.Fn, floats(l, b.N), floats(r, b.N), out.I)
	default:
		return nil, false, nil
	}
	if l.Null != nil || r.Null != nil {
		nulls := out.freshNulls(b.N)
		for i := 0; i < b.N; i++ {
			nulls[i] = l.isNull(i) || r.isNull(i)
		}
	}
	return out, true, nil
}

func floats(v *Vector, n int) []float64 {
	if v.storage() == inFloats {
		return v.F[:n]
	}
	out := make([]float64, n)
	for i, x := range v.I[:n] {
		out[i] = float64(x)
	}
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmpLoop[T cmp.Ordered](op string, l, r []T, out []int64) {
	switch op {
	case "=":
		for i := range l {
			out[i] = b2i(l[i] == r[i])
		}
	case "!=":
		for i := range l {
			out[i] = b2i(l[i] != r[i])
		}
	case "<":
		for i := range l {
			out[i] = b2i(l[i] < r[i])
		}
	case "<=":
		for i := range l {
			out[i] = b2i(l[i] <= r[i])
		}
	case ">":
		for i := range l {
			out[i] = b2i(l[i] > r[i])
		}
	case ">=":
		for i := range l {
			out[i] = b2i(l[i] >= r[i])
		}
	}
}

func stringCmp(op string, l, r []string, out []int64) {
	if op == "=" || op == "!=" {
		cmpLoop(op, l, r, out)
		return
	}
	for i := range l {
		c := strings.Compare(l[i], r[i])
		var ok bool
		switch op {
		case "<":
			ok = c < 0
		case "<=":
			ok = c <= 0
		case ">":
			ok = c > 0
		case ">=":
			ok = c >= 0
		}
		out[i] = b2i(ok)
	}
}

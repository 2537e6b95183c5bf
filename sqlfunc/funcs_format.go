package sqlfunc

import (
	"fmt"
	"strconv"
	"strings"

	"logq/expr"
	"logq/types"
)

// FORMAT(format, args…) with %d/%i (INT64), %s (STRING), %f/%e/%g (FLOAT64 or
// INT64), %t (any value as CAST to STRING would print it) and %T (the same,
// a STRING, decimal, date, time or interval as a literal), with flags - + space 0 #, a width and a
// precision; %% is a percent sign. A NULL value prints NULL; a NULL format
// gives NULL. A wrong type or count is an error (at load when the format is
// constant).
func registerFormatFunc() {
	expr.Register("format", def(1, -1, func(c *expr.Call) (types.Type, error) {
		f, err := expr.CoerceTo(c.Args[0], types.String)
		if err != nil {
			return types.Type{}, fmt.Errorf("the format of FORMAT: %w", err)
		}
		c.Args[0] = f
		if k, ok := f.(*expr.Const); ok && !k.V.Null {
			kinds := make([]types.Kind, len(c.Args)-1)
			for i, a := range c.Args[1:] {
				kinds[i] = a.Type().Kind
			}
			if _, err := formatSQL(k.V.S, nil, kinds); err != nil {
				return types.Type{}, err
			}
		}
		return types.String, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[0].Null {
			return types.NullOf(types.String), nil
		}
		kinds := make([]types.Kind, len(a)-1)
		for i, v := range a[1:] {
			kinds[i] = v.T.Kind
		}
		s, err := formatSQL(a[0].S, a[1:], kinds)
		if err != nil {
			return types.Value{}, err
		}
		return types.StringValue(s), nil
	}, true))
}

// formatSQL formats args by f; with args nil it only checks f against the
// argument kinds (KindNull is accepted anywhere).
func formatSQL(f string, args []types.Value, kinds []types.Kind) (string, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ 0#", f[j]) >= 0 {
			j++
		}
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j < len(f) && f[j] == '.' {
			j++
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
		}
		if j == len(f) {
			return "", expr.EvalErr("FORMAT: the format %q ends inside a specifier", f)
		}
		spec, verb := f[i+1:j], f[j]
		i = j
		if verb == '%' {
			b.WriteByte('%')
			continue
		}
		if strings.IndexByte("disfeEgGtT", verb) < 0 {
			return "", expr.EvalErr("FORMAT: unsupported specifier %%%s%c", spec, verb)
		}
		if next >= len(kinds) {
			return "", expr.EvalErr("FORMAT: the format %q needs more arguments than the %d given", f, len(kinds))
		}
		k := kinds[next]
		ok := k == types.KindNull
		switch verb {
		case 'd', 'i':
			ok = ok || k == types.KindInt64
		case 's':
			ok = ok || k == types.KindString
		case 'f', 'e', 'E', 'g', 'G':
			ok = ok || k == types.KindFloat64 || k == types.KindInt64
		case 't', 'T':
			ok = true
		}
		if !ok {
			return "", expr.EvalErr("FORMAT: %%%c cannot format argument %d of type %s", verb, next+2, types.Type{Kind: k})
		}
		if args == nil {
			next++
			continue
		}
		v := args[next]
		next++
		if v.Null {
			b.WriteString(fmt.Sprintf("%"+strings.TrimRight(spec, "0123456789.")+widthOf(spec)+"s", "NULL"))
			continue
		}
		switch verb {
		case 'd', 'i':
			b.WriteString(fmt.Sprintf("%"+spec+"d", v.I))
		case 's':
			b.WriteString(fmt.Sprintf("%"+spec+"s", v.S))
		case 'f', 'e', 'E', 'g', 'G':
			x := v.F
			if v.T.Kind == types.KindInt64 {
				x = float64(v.I)
			}
			b.WriteString(fmt.Sprintf("%"+spec+string(verb), x))
		case 't', 'T':
			s := v.String()
			switch {
			case verb == 'T' && v.T.Kind == types.KindString:
				s = strconv.Quote(v.S)
			case verb == 'T' && v.T.IsDecimal(): // a literal: NUMERIC "1.5"
				s = v.T.String() + " " + strconv.Quote(s)
			case verb == 'T' && v.T.Kind == types.KindDate:
				s = `DATE "` + s + `"`
			case verb == 'T' && (v.T.Kind == types.KindTimestamp || v.T.Kind == types.KindDatetime || v.T.Kind == types.KindTime):
				s = v.T.String() + ` "` + types.CastTimeText(v) + `"`
			case verb == 'T' && v.T.Kind == types.KindInterval:
				s = `INTERVAL "` + s + `" YEAR TO SECOND`
			}
			b.WriteString(fmt.Sprintf("%"+spec+"s", s))
		}
	}
	if next < len(kinds) {
		return "", expr.EvalErr("FORMAT: the format %q uses %d of the %d arguments given", f, next, len(kinds))
	}
	return b.String(), nil
}

// widthOf returns the width digits of a specifier's flags-width-precision.
func widthOf(spec string) string {
	spec = strings.TrimLeft(spec, "-+ 0#")
	if i := strings.IndexByte(spec, '.'); i >= 0 {
		spec = spec[:i]
	}
	return spec
}

package sqlfunc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"logq/expr"
	"logq/types"
)

// FORMAT(format, args…), as GoogleSQL's string_functions reference gives it:
//
//	%d %i       INT64, in decimal; the ' flag groups thousands with commas
//	%o %x %X    INT64 in octal or hexadecimal (a negative value is an error);
//	            # prefixes 0 / 0x / 0X, ' groups four digits (',' / ':')
//	%f %F %e %E %g %G
//	            FLOAT64, NUMERIC, BIGNUMERIC (and INT64); non-finite values
//	            print inf, -inf, nan (uppercase for F, E, G); a decimal's %f
//	            is exact
//	%s          STRING
//	%t %T       any value: %t readable (close to CAST AS STRING; a FLOAT64
//	            always with ".0"), %T a SQL literal (a non-finite FLOAT64 as
//	            CAST("inf" AS FLOAT64))
//	%p %P       JSON on one line, or indented on several
//	%%          a percent sign
//
// with flags - + space 0 # ', a width and a precision, either of which may
// be * (taken from an INT64 argument before the value). A NULL format gives
// NULL; a NULL argument gives NULL, except that %t and %T print it as NULL.
// A wrong type or count is an error (at load when the format is constant).
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
			if _, _, err := formatSQL(k.V.S, nil, kinds); err != nil {
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
		s, null, err := formatSQL(a[0].S, a[1:], kinds)
		if err != nil || null {
			return types.NullOf(types.String), err
		}
		return types.StringValue(s), nil
	}, true))
}

// formatSpec is one % directive: its flags, width and precision (-1 when
// absent; a '*' one is read from the arguments) and verb.
type formatSpec struct {
	flags     string
	width     int
	precision int
	verb      byte
}

func (p formatSpec) has(flag byte) bool { return strings.IndexByte(p.flags, flag) >= 0 }

// goSpec is the directive for package fmt, with verb, without ' (which fmt
// does not know).
func (p formatSpec) goSpec(verb byte) string {
	s := "%" + strings.ReplaceAll(p.flags, "'", "")
	if p.width >= 0 {
		s += strconv.Itoa(p.width)
	}
	if p.precision >= 0 {
		s += "." + strconv.Itoa(p.precision)
	}
	return s + string(verb)
}

// formatSQL formats args by f; with args nil it only checks f against the
// argument kinds (KindNull is accepted anywhere). null reports a NULL
// argument of a specifier that makes the whole result NULL.
func formatSQL(f string, args []types.Value, kinds []types.Kind) (out string, null bool, err error) {
	var b strings.Builder
	next := 0
	// take checks the next argument's kind and returns it (a zero Value when
	// only checking).
	take := func(verb byte, ok func(types.Kind) bool) (types.Value, error) {
		if next >= len(kinds) {
			return types.Value{}, expr.EvalErr("FORMAT: the format %q needs more arguments than the %d given", f, len(kinds))
		}
		k := kinds[next]
		if k != types.KindNull && !ok(k) {
			return types.Value{}, expr.EvalErr("FORMAT: %%%c cannot format argument %d of type %s", verb, next+2, types.Type{Kind: k})
		}
		next++
		if args == nil {
			return types.Value{}, nil
		}
		return args[next-1], nil
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		p := formatSpec{width: -1, precision: -1}
		j := i + 1
		for j < len(f) && strings.IndexByte("-+ 0#'", f[j]) >= 0 {
			j++
		}
		p.flags = f[i+1 : j]
		// star reads a '*' width or precision from the arguments.
		star := func(dst *int) error {
			v, err := take('*', func(k types.Kind) bool { return k == types.KindInt64 })
			if err != nil || args == nil {
				return err
			}
			if v.Null {
				null = true
				return nil
			}
			if v.I < -1<<20 || v.I > 1<<20 {
				return expr.EvalErr("FORMAT: a width or precision of %d is out of range", v.I)
			}
			*dst = int(v.I)
			return nil
		}
		digits := func() int {
			n := 0
			for j < len(f) && f[j] >= '0' && f[j] <= '9' && n < 1<<20 {
				n = n*10 + int(f[j]-'0')
				j++
			}
			return n
		}
		switch {
		case j < len(f) && f[j] == '*':
			j++
			if err := star(&p.width); err != nil {
				return "", false, err
			}
			if p.width < 0 { // C's rule: a negative * width left-justifies
				p.flags, p.width = p.flags+"-", -p.width
			}
		case j < len(f) && f[j] >= '0' && f[j] <= '9':
			p.width = digits()
		}
		if j < len(f) && f[j] == '.' {
			j++
			if j < len(f) && f[j] == '*' {
				j++
				if err := star(&p.precision); err != nil {
					return "", false, err
				}
				if p.precision < 0 {
					p.precision = -1 // C's rule: as if none were given
				}
			} else {
				p.precision = digits()
			}
		}
		if j == len(f) {
			return "", false, expr.EvalErr("FORMAT: the format %q ends inside a specifier", f)
		}
		p.verb = f[j]
		i = j
		if p.verb == '%' {
			b.WriteByte('%')
			continue
		}
		var ok func(types.Kind) bool
		switch p.verb {
		case 'd', 'i', 'o', 'x', 'X':
			ok = func(k types.Kind) bool { return k == types.KindInt64 }
		case 'f', 'F', 'e', 'E', 'g', 'G':
			ok = func(k types.Kind) bool {
				return k == types.KindFloat64 || k == types.KindInt64 || k == types.KindNumeric || k == types.KindBigNumeric
			}
		case 's':
			ok = func(k types.Kind) bool { return k == types.KindString }
		case 'p', 'P':
			ok = func(k types.Kind) bool { return k == types.KindJSON }
		case 't', 'T':
			ok = func(types.Kind) bool { return true }
		default:
			return "", false, expr.EvalErr("FORMAT: unsupported specifier %%%s%c", p.flags, p.verb)
		}
		v, err := take(p.verb, ok)
		if err != nil {
			return "", false, err
		}
		if args == nil {
			continue
		}
		if v.Null {
			if p.verb != 't' && p.verb != 'T' {
				null = true // the result is NULL; the rest is still checked
				continue
			}
			b.WriteString(fmt.Sprintf(p.textSpec(), "NULL"))
			continue
		}
		s, err := formatOne(p, v)
		if err != nil {
			return "", false, err
		}
		b.WriteString(s)
	}
	if next < len(kinds) {
		return "", false, expr.EvalErr("FORMAT: the format %q uses %d of the %d arguments given", f, next, len(kinds))
	}
	return b.String(), null, nil
}

// textSpec is the directive that pads (and, with a precision, cuts) a text
// for %s, %t, %T and %p.
func (p formatSpec) textSpec() string {
	s := "%"
	if p.has('-') {
		s += "-"
	}
	if p.width >= 0 {
		s += strconv.Itoa(p.width)
	}
	if p.precision >= 0 {
		s += "." + strconv.Itoa(p.precision)
	}
	return s + "s"
}

// formatOne formats one non-NULL value by its directive.
func formatOne(p formatSpec, v types.Value) (string, error) {
	switch p.verb {
	case 'd', 'i':
		if p.has('\'') {
			return padNumber(p, groupDigits(zeroPad(strconv.FormatInt(v.I, 10), p.precision), 3, ','), v.I < 0), nil
		}
		return fmt.Sprintf(p.goSpec('d'), v.I), nil
	case 'o', 'x', 'X':
		if v.I < 0 {
			return "", expr.EvalErr("FORMAT: %%%c cannot format the negative value %d", p.verb, v.I)
		}
		if p.has('\'') {
			base, sep := 16, byte(':')
			if p.verb == 'o' {
				base, sep = 8, ','
			}
			s := groupDigits(zeroPad(strconv.FormatInt(v.I, base), p.precision), 4, sep)
			if p.verb == 'X' {
				s = strings.ToUpper(s)
			}
			if p.has('#') && v.I != 0 {
				s = map[byte]string{'o': "0", 'x': "0x", 'X': "0X"}[p.verb] + s
			}
			return padNumber(p, s, false), nil
		}
		if v.I == 0 { // C's # prefixes only a value other than zero
			p.flags = strings.ReplaceAll(p.flags, "#", "")
		}
		return fmt.Sprintf(p.goSpec(p.verb), v.I), nil
	case 'f', 'F', 'e', 'E', 'g', 'G':
		return formatFloating(p, v)
	case 's':
		return fmt.Sprintf(p.textSpec(), v.S), nil
	case 'p', 'P':
		s := v.S
		if p.verb == 'P' {
			var ind bytes.Buffer
			if json.Indent(&ind, []byte(v.S), "", "  ") == nil {
				s = ind.String()
			}
		}
		return fmt.Sprintf(p.textSpec(), s), nil
	default: // 't', 'T'
		return fmt.Sprintf(p.textSpec(), formatText(v, p.verb == 'T')), nil
	}
}

// formatFloating formats a FLOAT64, an INT64 or a decimal by %f %F %e %E %g
// %G. A decimal's %f/%F is exact (rounded half away from zero); its other
// forms go through FLOAT64.
func formatFloating(p formatSpec, v types.Value) (string, error) {
	upper := p.verb == 'F' || p.verb == 'E' || p.verb == 'G'
	if v.T.IsDecimal() && (p.verb == 'f' || p.verb == 'F') {
		r, ok := new(big.Rat).SetString(types.FormatDecimal(v))
		if !ok {
			return "", expr.EvalErr("FORMAT: cannot read %s %s", v.T, types.FormatDecimal(v))
		}
		prec := p.precision
		if prec < 0 {
			prec = 6
		}
		s := r.FloatString(prec)
		if p.has('#') && prec == 0 {
			s += "."
		}
		return padNumber(p, s, r.Sign() < 0), nil
	}
	var x float64
	switch {
	case v.T.Kind == types.KindInt64:
		x = float64(v.I)
	case v.T.IsDecimal():
		x, _ = strconv.ParseFloat(types.FormatDecimal(v), 64)
	default:
		x = v.F
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		s := types.FormatFloat(x) // inf, -inf, nan
		if upper {
			s = strings.ToUpper(s)
		}
		if !math.Signbit(x) && !math.IsNaN(x) { // + or space before +inf, as C's
			if p.has('+') {
				s = "+" + s
			} else if p.has(' ') {
				s = " " + s
			}
		}
		return fmt.Sprintf(p.textSpec(), s), nil
	}
	verb := p.verb
	if verb == 'F' {
		verb = 'f'
	}
	if (verb == 'g' || verb == 'G') && p.precision < 0 {
		p.precision = 6 // C's default; fmt's %g would print the shortest text instead
	}
	if (verb == 'g' || verb == 'G') && p.precision == 0 {
		p.precision = 1
	}
	return fmt.Sprintf(p.goSpec(verb), x), nil
}

// padNumber applies a directive's sign flags, width, 0 and - to the digits
// s of a number (with its '-' when neg) that fmt did not format.
func padNumber(p formatSpec, s string, neg bool) string {
	sign := ""
	if neg {
		sign, s = "-", strings.TrimPrefix(s, "-")
	} else if p.has('+') {
		sign = "+"
	} else if p.has(' ') {
		sign = " "
	}
	if pad := p.width - len(sign) - len(s); pad > 0 {
		switch {
		case p.has('-'):
			s += strings.Repeat(" ", pad)
		case p.has('0'):
			s = strings.Repeat("0", pad) + s
		default:
			sign = strings.Repeat(" ", pad) + sign
		}
	}
	return sign + s
}

// zeroPad writes the digits s (after a sign) with at least prec of them, as
// an integer's precision asks.
func zeroPad(s string, prec int) string {
	sign, digits := "", s
	if strings.HasPrefix(s, "-") {
		sign, digits = "-", s[1:]
	}
	if n := prec - len(digits); n > 0 {
		digits = strings.Repeat("0", n) + digits
	}
	return sign + digits
}

// groupDigits puts sep between groups of n digits of s (after a sign),
// counted from the right.
func groupDigits(s string, n int, sep byte) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%n == 0 {
			b.WriteByte(sep)
		}
		b.WriteByte(s[i])
	}
	return sign + b.String()
}

// formatText is a value as %t (lit false: readable) or %T (lit true: a SQL
// literal) print it, elements and fields in the same form.
func formatText(v types.Value, lit bool) string {
	if v.Null {
		return "NULL"
	}
	switch k := v.T.Kind; {
	case k == types.KindFloat64:
		s := types.FormatFloat(v.F)
		switch {
		case math.IsInf(v.F, 0) || math.IsNaN(v.F):
			if lit {
				s = `CAST("` + s + `" AS FLOAT64)`
			}
		case !strings.ContainsAny(s, ".e"):
			s += ".0" // 1.0 stays a FLOAT64's text, not an INT64's
		}
		return s
	case k == types.KindString:
		if lit {
			return strconv.Quote(v.S)
		}
		return v.S
	case k == types.KindBytes:
		s := escapeBytes(v.S, lit)
		if lit {
			return `b"` + s + `"`
		}
		return s
	case k == types.KindJSON:
		if lit {
			return "JSON '" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v.S) + "'"
		}
		return v.S
	case k == types.KindDate:
		if lit {
			return `DATE "` + v.String() + `"`
		}
		return v.String()
	case k == types.KindTimestamp || k == types.KindDatetime || k == types.KindTime:
		if lit {
			return v.T.String() + ` "` + types.CastTimeText(v) + `"`
		}
		return types.CastTimeText(v)
	case v.T.IsDecimal():
		if lit { // NUMERIC "1.5"
			return v.T.String() + " " + strconv.Quote(v.String())
		}
		return v.String()
	case k == types.KindInterval:
		if lit {
			return `INTERVAL "` + v.String() + `" YEAR TO SECOND`
		}
		return v.String()
	case k == types.KindRange:
		if lit {
			return v.T.String() + ` "` + v.String() + `"`
		}
		return v.String()
	case k == types.KindArray || k == types.KindStruct:
		parts := make([]string, len(v.L))
		for i, e := range v.L {
			parts[i] = formatText(e, lit)
		}
		inner := strings.Join(parts, ", ")
		switch {
		case k == types.KindArray:
			return "[" + inner + "]"
		case lit && len(v.L) < 2: // (x) would read as a parenthesised value
			return "STRUCT(" + inner + ")"
		}
		return "(" + inner + ")"
	}
	return v.String()
}

// escapeBytes writes BYTES as a bytes literal's body: printable ASCII as
// is, \\ (and \" in a literal), \n \r \t, any other byte as \xNN.
func escapeBytes(s string, lit bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"' && lit:
			b.WriteString(`\"`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

package sqlfunc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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
//	            print inf, -inf, nan (uppercase for F, E, G); -0 prints as
//	            0; a decimal's digits are exact (formatFloating); ' groups
//	            the integer digits of %f and %g
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
// A wrong type or count is an error (at load when the format is constant),
// as is a width, precision or result past ZetaSQL's limits (formatLimits).
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
		// star reads a '*' width or precision from the arguments; a NULL
		// one makes the result NULL, a negative precision is none (C's
		// rule), and a negative width left-justifies.
		star := func() (n int64, isNull bool, err error) {
			v, err := take('*', func(k types.Kind) bool { return k == types.KindInt64 })
			if err != nil || args == nil {
				return 0, false, err
			}
			if v.Null {
				null = true
				return 0, true, nil
			}
			return v.I, false, nil
		}
		// digits reads a written width or precision, saturating at
		// writtenMax (a value past the limits below is refused or capped,
		// not wrapped).
		digits := func() int64 {
			var n int64
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				n = min(n*10+int64(f[j]-'0'), writtenMax)
				j++
			}
			return n
		}
		var width, precision int64 = -1, -1
		switch {
		case j < len(f) && f[j] == '*':
			j++
			n, isNull, err := star()
			if err != nil {
				return "", false, err
			}
			if !isNull && args != nil {
				if n < 0 { // C's rule: a negative * width left-justifies
					p.flags, n = p.flags+"-", -n
				}
				if n > maxStringResult {
					return "", false, errFormatTooLong
				}
				width = n
			}
		case j < len(f) && f[j] >= '0' && f[j] <= '9':
			if width = digits(); width > maxStringResult {
				return "", false, expr.EvalErr("FORMAT: a width of %s is more than FORMAT's limit of %d", writtenNumber(width), maxStringResult)
			}
		}
		if j < len(f) && f[j] == '.' {
			j++
			if j < len(f) && f[j] == '*' {
				j++
				n, isNull, err := star()
				if err != nil {
					return "", false, err
				}
				if !isNull && n >= 0 { // C's rule: a negative one is none
					precision = n
				}
			} else {
				precision = digits()
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
		var err error
		if p.width, p.precision, err = formatLimits(p.verb, width, precision); err != nil {
			return "", false, err
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
		if b.Len()+len(s) > maxStringResult {
			return "", false, errFormatTooLong
		}
		b.WriteString(s)
	}
	if next < len(kinds) {
		return "", false, expr.EvalErr("FORMAT: the format %q uses %d of the %d arguments given", f, next, len(kinds))
	}
	if b.Len() > maxStringResult { // literal text and NULLs count too
		return "", false, errFormatTooLong
	}
	return b.String(), null, nil
}

// FORMAT's result, a written width and most precisions are bounded by the
// string functions' 1 MiB, as ZetaSQL's default is.
var errFormatTooLong = expr.EvalErr("FORMAT: the result would be longer than FORMAT's limit of %d bytes", maxStringResult)

// maxFloatPrecision is the most digits after the point %e and %f print (the
// exact value of the smallest FLOAT64 needs 1074); a larger %g precision is
// taken as this one, which prints the same digits.
const maxFloatPrecision = 1074

// writtenMax is where a written width or precision saturates.
const writtenMax = 1 << 59

// writtenNumber is a written width or precision for an error message.
func writtenNumber(n int64) string {
	if n >= writtenMax {
		return fmt.Sprintf("%d or more", int64(writtenMax))
	}
	return strconv.FormatInt(n, 10)
}

// formatLimits checks a directive's width and precision (-1: none) against
// FORMAT's limits, as ZetaSQL's: a precision past 1074 is refused for %e
// and %f, for %g one past INT32's range is refused and one past 1074 taken
// as 1074; any other past 1 MiB is refused.
func formatLimits(verb byte, width, precision int64) (int, int, error) {
	limit := int64(maxStringResult)
	switch verb {
	case 'e', 'E', 'f', 'F':
		limit = maxFloatPrecision
	case 'g', 'G':
		limit = math.MaxInt32
	}
	if precision > limit {
		return 0, 0, expr.EvalErr("FORMAT: a precision of %s for %%%c is more than the limit of %d", writtenNumber(precision), verb, limit)
	}
	if verb == 'g' || verb == 'G' {
		precision = min(precision, maxFloatPrecision)
	}
	return int(width), int(precision), nil
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
// %G as C's printf does, with ZetaSQL's differences: -0 prints as 0, the '
// flag groups the integer digits in threes, and a decimal is formatted
// exactly from its digits, rounded half away from zero.
func formatFloating(p formatSpec, v types.Value) (string, error) {
	upper := p.verb == 'F' || p.verb == 'E' || p.verb == 'G'
	verb := p.verb | 0x20 // f, e or g
	prec := p.precision
	switch {
	case prec < 0:
		prec = 6
	case prec == 0 && verb == 'g':
		prec = 1
	}
	var s string
	var neg bool
	if v.T.IsDecimal() {
		d := types.SigDigitsOf(types.FormatDecimal(v))
		s, neg = d.Format(verb, prec, p.has('#')), d.Neg
	} else {
		x := v.F
		if v.T.Kind == types.KindInt64 {
			x = float64(v.I)
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
			p.precision = -1 // a width pads it; a precision does not cut it
			return fmt.Sprintf(p.textSpec(), s), nil
		}
		spec := "%."
		if p.has('#') {
			spec = "%#."
		}
		neg = x < 0 // not -0, which prints as 0
		s = fmt.Sprintf(spec+strconv.Itoa(prec)+string(verb), math.Abs(x))
	}
	if p.has('\'') {
		end := strings.IndexAny(s, ".e")
		if end < 0 {
			end = len(s)
		}
		s = groupDigits(s[:end], 3, ',') + s[end:]
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return padNumber(p, s, neg), nil
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

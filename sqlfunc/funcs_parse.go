package sqlfunc

import (
	"strconv"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// PARSE_TIMESTAMP(format, string[, tz]) reads the elements FORMAT_TIMESTAMP
// writes (a subset of BigQuery's); a space in the format matches any run of
// white space; the whole string must be consumed. Unset fields default to
// 1970-01-01 00:00:00 in tz (UTC by default); an offset (%z, %Ez) wins over tz.
func registerParseFuncs() {
	expr.Register("parse_timestamp", def(2, 3, func(c *expr.Call) (types.Type, error) {
		if _, err := sig(types.KindString, types.KindString)(c); err != nil {
			return types.Type{}, err
		}
		if k, ok := c.Args[0].(*expr.Const); ok && !k.V.Null {
			if err := checkParseFormat(k.V.S); err != nil {
				return types.Type{}, err
			}
		}
		return types.Timestamp, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		loc := time.UTC
		if len(a) == 3 {
			l, err := types.LoadLocation(a[2].S)
			if err != nil {
				return types.Value{}, expr.EvalErr("%v", err)
			}
			loc = l
		}
		us, err := parseTime("PARSE_TIMESTAMP", a[0].S, a[1].S, loc)
		if err != nil {
			return types.Value{}, err
		}
		return expr.InRange(types.TimestampValue(us)) // year 0 reads, and is refused here
	}, false))
	expr.Register("parse_datetime", parseCivilFunc("PARSE_DATETIME", types.Datetime, func(us int64) types.Value { return types.Value{T: types.Datetime, I: us} }))
	expr.Register("parse_date", parseCivilFunc("PARSE_DATE", types.Date, func(us int64) types.Value {
		return types.DateValue(floorDiv(us, types.Day))
	}))
}

// parseCivilFunc is PARSE_DATETIME, PARSE_DATE or PARSE_TIME: the same
// formats as civil time, the fields as written, no time zone (unset fields
// default as PARSE_TIMESTAMP's do); make turns the µs read into the result.
// name is the function's, for its errors.
func parseCivilFunc(name string, ret types.Type, make func(us int64) types.Value) *expr.Func {
	return def(2, 2, func(c *expr.Call) (types.Type, error) {
		if _, err := sig(types.KindString, types.KindString)(c); err != nil {
			return types.Type{}, err
		}
		if k, ok := c.Args[0].(*expr.Const); ok && !k.V.Null {
			if err := checkParseFormat(k.V.S); err != nil {
				return types.Type{}, err
			}
		}
		return ret, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		us, err := parseTime(name, a[0].S, a[1].S, time.UTC)
		if err != nil {
			return types.Value{}, err
		}
		return expr.InRange(make(us))
	}, false)
}

const parseElements = "YmdeHkMSFTDRybhBpIzjsnt%AauwCxcX"

func checkParseFormat(f string) error {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		switch {
		case i == len(f):
			return expr.EvalErr("format string %q ends with a lone %%", f)
		case f[i] == 'E':
			if !strings.HasPrefix(f[i:], "Ez") && secondsDigits(f[i:]) < 0 {
				return expr.EvalErr("format element %%%s is not supported", f[i:min(i+3, len(f))])
			}
		case strings.IndexByte(parseElements, f[i]) < 0:
			return expr.EvalErr("format element %%%c is not supported", f[i])
		}
	}
	return nil
}

// The names PARSE_ reads: months and weekdays, long and short (made once,
// not per row).
var longMonths, shortMonths, longDays, shortDays = func() (lm, sm, ld, sd []string) {
	for m := time.January; m <= time.December; m++ {
		lm, sm = append(lm, m.String()), append(sm, m.String()[:3])
	}
	for d := time.Sunday; d <= time.Saturday; d++ {
		ld, sd = append(ld, d.String()), append(sd, d.String()[:3])
	}
	return
}()

// expandParseFormat writes PARSE_'s composite elements as their parts:
// %c (%a %b %e %H:%M:%S %Y), %x (%m/%d/%y) and %X (%H:%M:%S).
func expandParseFormat(f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'c':
			b.WriteString("%a %b %e %H:%M:%S %Y")
		case 'x':
			b.WriteString("%m/%d/%y")
		case 'X':
			b.WriteString("%H:%M:%S")
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// parseTime reads s by the format f (fn names the function for errors).
// White space around s is allowed whatever the format, as the reference
// says of every PARSE_ function.
func parseTime(fn, f, s string, loc *time.Location) (int64, error) {
	if err := checkParseFormat(f); err != nil {
		return 0, err
	}
	year, month, day, hour, min_, sec, nanos := 1970, 1, 1, 0, 0, 0, 0
	pm, twelve := -1, false
	offset, hasOffset := 0, false
	var epoch *int64
	in, written := s, f // as the caller wrote them, for errors
	s = strings.Trim(s, " \t\n\r\v\f")
	fail := func() (int64, error) {
		return 0, expr.EvalErr("%s: %q does not match the format %q", fn, in, written)
	}
	num := func(maxDigits int, signed bool) (int, bool) {
		j := 0
		neg := false
		if signed && j < len(s) && (s[j] == '-' || s[j] == '+') {
			neg = s[j] == '-'
			j++
		}
		start := j
		for j < len(s) && j-start < maxDigits && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == start {
			return 0, false
		}
		v, _ := strconv.Atoi(s[start:j])
		s = s[j:]
		if neg {
			v = -v
		}
		return v, true
	}
	word := func(names []string) (int, bool) {
		for i, n := range names {
			if len(s) >= len(n) && strings.EqualFold(s[:len(n)], n) {
				s = s[len(n):]
				return i, true
			}
		}
		return 0, false
	}
	var ok bool
	if strings.Contains(f, "%c") || strings.Contains(f, "%x") || strings.Contains(f, "%X") {
		f = expandParseFormat(f) // per row otherwise: most formats have none
	}
	century, twoDigitYear := -1, false
	for i := 0; i < len(f); i++ {
		ch := f[i]
		if ch == ' ' || ch == '\t' || ch == '\n' {
			s = strings.TrimLeft(s, " \t\n\r")
			continue
		}
		if ch != '%' {
			if s == "" || s[0] != ch {
				return fail()
			}
			s = s[1:]
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			year, ok = num(4, true)
		case 'y':
			twoDigitYear = true
			year, ok = num(2, false)
			if year < 69 {
				year += 2000
			} else {
				year += 1900
			}
		case 'm':
			month, ok = num(2, false)
		case 'd', 'e':
			s = strings.TrimLeft(s, " ")
			day, ok = num(2, false)
		case 'H', 'k':
			s = strings.TrimLeft(s, " ")
			hour, ok = num(2, false)
		case 'I':
			hour, ok = num(2, false)
			twelve = true
		case 'p':
			pm, ok = word([]string{"AM", "PM"})
		case 'M':
			min_, ok = num(2, false)
		case 'S':
			sec, ok = num(2, false)
		case 'j':
			var yd int
			yd, ok = num(3, false)
			month, day = 1, yd
		case 'F':
			if year, ok = num(4, true); ok && strings.HasPrefix(s, "-") {
				s = s[1:]
				if month, ok = num(2, false); ok && strings.HasPrefix(s, "-") {
					s = s[1:]
					day, ok = num(2, false)
				} else {
					ok = false
				}
			} else {
				ok = false
			}
		case 'T', 'R':
			if hour, ok = num(2, false); ok && strings.HasPrefix(s, ":") {
				s = s[1:]
				min_, ok = num(2, false)
				if ok && f[i] == 'T' {
					if ok = strings.HasPrefix(s, ":"); ok {
						s = s[1:]
						sec, ok = num(2, false)
					}
				}
			} else {
				ok = false
			}
		case 'D':
			if month, ok = num(2, false); ok && strings.HasPrefix(s, "/") {
				s = s[1:]
				if day, ok = num(2, false); ok && strings.HasPrefix(s, "/") {
					s = s[1:]
					year, ok = num(2, false)
					year += 2000
					if year >= 2069 {
						year -= 100
					}
				} else {
					ok = false
				}
			} else {
				ok = false
			}
		case 'b', 'h':
			var m int
			m, ok = word(shortMonths)
			month = m + 1
		case 'A', 'a': // a weekday's name, long or short: read, not checked against the date
			if _, ok = word(longDays); !ok {
				_, ok = word(shortDays)
			}
		case 'u', 'w': // a weekday's number (1-7 from Monday, 0-6 from Sunday): read only
			var d int
			d, ok = num(1, false)
			ok = ok && (f[i] == 'u' && d >= 1 && d <= 7 || f[i] == 'w' && d <= 6)
		case 'C':
			century, ok = num(2, false)
		case 'B':
			var m int
			if m, ok = word(longMonths); !ok {
				m, ok = word(shortMonths)
			}
			month = m + 1
		case 's':
			var v int
			v, ok = num(19, true)
			e := int64(v)
			epoch = &e
		case 'z':
			offset, ok = parseOffset(&s, false)
			hasOffset = true
		case 'n', 't':
			s = strings.TrimLeft(s, " \t\n\r")
			ok = true
		case '%':
			ok = strings.HasPrefix(s, "%")
			if ok {
				s = s[1:]
			}
		case 'E':
			switch {
			case strings.HasPrefix(f[i:], "Ez"):
				i++
				offset, ok = parseOffset(&s, true)
				hasOffset = true
			default: // E<n>S, E*S: seconds, and at most n digits of a fraction
				most := secondsDigits(f[i:])
				i += 2
				if sec, ok = num(2, false); ok && most > 0 && strings.HasPrefix(s, ".") {
					s = s[1:]
					j := 0
					for j < len(s) && j < most && s[j] >= '0' && s[j] <= '9' {
						j++
					}
					frac := s[:j] + strings.Repeat("0", 9-j)
					nanos, _ = strconv.Atoi(frac)
					s = s[j:]
					ok = j > 0
				}
			}
		}
		if !ok {
			return fail()
		}
	}
	if s != "" {
		return fail()
	}
	if century >= 0 { // %C with %y: that year of the century; alone, its first
		yy := 0
		if twoDigitYear {
			yy = year % 100
		}
		year = century*100 + yy
	}
	if epoch != nil {
		return *epoch * types.Second, nil
	}
	if twelve {
		if hour < 1 || hour > 12 {
			return fail()
		}
		hour %= 12
	}
	if pm == 1 {
		hour += 12
	}
	if month < 1 || month > 12 || day < 1 || hour > 23 || min_ > 59 || sec > 60 {
		return fail()
	}
	if sec == 60 {
		nanos = 0 // a leap second is the next minute's first, its fraction dropped (ZetaSQL's parser)
	}
	z := loc
	if hasOffset {
		z = time.FixedZone("", offset)
	}
	t := time.Date(year, time.Month(month), day, hour, min_, sec, nanos, z)
	if f != "" && !strings.Contains(f, "%j") && t.Day() != day {
		return fail() // e.g. February 30
	}
	return t.UnixMicro(), nil
}

// parseOffset reads +hhmm (or +hh:mm with colon) into seconds.
func parseOffset(s *string, colon bool) (int, bool) {
	v := *s
	if len(v) < 3 || (v[0] != '+' && v[0] != '-') {
		return 0, false
	}
	sign := 1
	if v[0] == '-' {
		sign = -1
	}
	v = v[1:]
	h, err := strconv.Atoi(v[:2])
	if err != nil {
		return 0, false
	}
	v = v[2:]
	if colon {
		if !strings.HasPrefix(v, ":") {
			return 0, false
		}
		v = v[1:]
	}
	if len(v) < 2 {
		return 0, false
	}
	m, err := strconv.Atoi(v[:2])
	if err != nil {
		return 0, false
	}
	*s = v[2:]
	return sign * (h*3600 + m*60), true
}

// secondsDigits reads the element %E<n>S (n from 0 to 6, a TIMESTAMP's
// scale, as ZetaSQL's parser allows) or %E*S at the start of f (after its
// %): the most fraction digits it reads, 9 for *, or -1 when f starts with
// neither.
func secondsDigits(f string) int {
	if len(f) < 3 || f[0] != 'E' || f[2] != 'S' {
		return -1
	}
	switch c := f[1]; {
	case c == '*':
		return 9
	case c >= '0' && c <= '6':
		return int(c - '0')
	}
	return -1
}

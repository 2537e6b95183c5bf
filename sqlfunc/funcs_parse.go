package sqlfunc

import (
	"math"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// PARSE_TIMESTAMP(format, string[, tz]), PARSE_DATETIME, PARSE_DATE and
// PARSE_TIME read a string by BigQuery's format elements as ZetaSQL's
// parser does (zetasql/public/functions/parse_date_time.cc, ParseTime):
// each element reads what it reads there, the elements ZetaSQL hands to
// strptime(3) read as glibc's do, and the date is put together as ZetaSQL
// puts it (funcs_parse_week.go: week, day of year, ISO year). A space in
// the format matches any run of white space; white space around the string
// is allowed; the whole string must be consumed. Unset fields default to
// 1970-01-01 00:00:00 in tz (UTC by default); an offset (%z, %Ez) or a
// zone (%Z), the last one written, wins over tz.
func registerParseFuncs() {
	expr.Register("parse_timestamp", def(2, 3, func(c *expr.Call) (types.Type, error) {
		if _, err := sig(types.KindString, types.KindString)(c); err != nil {
			return types.Type{}, err
		}
		if k, ok := c.Args[0].(*expr.Const); ok && !k.V.Null {
			if err := checkParseFormat(k.V.S, types.KindTimestamp); err != nil {
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
		us, err := parseTime("PARSE_TIMESTAMP", types.KindTimestamp, a[0].S, a[1].S, loc)
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
// name is the function's, for its errors. PARSE_DATE refuses the elements
// of a time of day and of a zone, PARSE_DATETIME those of a zone, as
// ZetaSQL's ValidateDateFormat and ValidateDatetimeFormat do (PARSE_TIME's
// own check is in funcs_timeofday.go).
func parseCivilFunc(name string, ret types.Type, make func(us int64) types.Value) *expr.Func {
	return def(2, 2, func(c *expr.Call) (types.Type, error) {
		if _, err := sig(types.KindString, types.KindString)(c); err != nil {
			return types.Type{}, err
		}
		if k, ok := c.Args[0].(*expr.Const); ok && !k.V.Null {
			if err := checkParseFormat(k.V.S, ret.Kind); err != nil {
				return types.Type{}, err
			}
		}
		return ret, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		us, err := parseTime(name, ret.Kind, a[0].S, a[1].S, time.UTC)
		if err != nil {
			return types.Value{}, err
		}
		return expr.InRange(make(us))
	}, false)
}

// parseElements are the one-letter elements PARSE_ reads; parseModifiedE
// and parseModifiedO the letters after %E and %O it reads (besides %E*S,
// %E<n>S and %E4Y). %OB, %Ob and %Oh are glibc's (2.27 on), which ZetaSQL
// hands them to.
const (
	parseElements  = "AaBbCcDdeFGgHhIJjklMmnPpQRrSsTtUuVWwXxYyZz%"
	parseModifiedE = "zYyCcxX"
	parseModifiedO = "deHImMSuUVwWyBbh"
	// maxSecondsDigits is the most fraction digits %E<n>S takes: a
	// TIMESTAMP's scale, as ZetaSQL's parser allows at micro precision.
	maxSecondsDigits = 6
)

// parseElementLen is the length of the element PARSE_ reads at f (just
// after its %), or 0 when it reads none there.
func parseElementLen(f string) int {
	switch {
	case f == "":
		return 0
	case f[0] == 'E' && len(f) > 1:
		switch {
		case strings.IndexByte(parseModifiedE, f[1]) >= 0:
			return 2
		case strings.HasPrefix(f[1:], "*S"), strings.HasPrefix(f[1:], "4Y"):
			return 3
		}
		if _, rest, ok := zetaInt(f[1:], 2, 0, maxSecondsDigits); ok && strings.HasPrefix(rest, "S") {
			return len(f) - len(rest) + 1 // %E<n>S, n of one or two digits
		}
	case f[0] == 'O' && len(f) > 1:
		if strings.IndexByte(parseModifiedO, f[1]) >= 0 {
			return 2
		}
	case f[0] != 'E' && f[0] != 'O' && strings.IndexByte(parseElements, f[0]) >= 0:
		return 1
	}
	return 0
}

// checkParseFormat refuses a format PARSE_ cannot read for a result of
// kind k: a lone % at its end, an element it does not read, or (for a DATE
// or DATETIME) an element of a time of day or zone, as ZetaSQL's
// ValidateParseFormat does: it looks at the letter after %, %E or %O, and
// at %E*S and %E<digit>S. For a TIME, the elements of a date are refused
// as PARSE_TIME refuses them at load (dateElement), here also for a
// format read from a row.
func checkParseFormat(f string, k types.Kind) error {
	invalid, typ := "", ""
	switch k {
	case types.KindDate:
		invalid, typ = "cHIklMPpRrSsTXZz", "DATE"
	case types.KindDatetime:
		invalid, typ = "Zz", "DATETIME"
	case types.KindTime:
		if el := dateElement(f); el != "" {
			return expr.EvalErr("invalid format: %%%s is not allowed for the TIME type", el)
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i == len(f) {
			return expr.EvalErr("format string %q ends with a lone %%", f)
		}
		n := parseElementLen(f[i:])
		if n == 0 {
			return expr.EvalErr("format element %%%s is not supported", f[i:elementEnd(f, i)+1])
		}
		el := f[i : i+n]
		bad := strings.IndexByte(invalid, el[0]) >= 0
		if n > 1 && !bad {
			bad = strings.IndexByte(invalid, el[1]) >= 0 ||
				el[0] == 'E' && n == 3 && el[2] == 'S' && strings.IndexByte(invalid, 'S') >= 0
		}
		if bad {
			return expr.EvalErr("invalid format: %%%s is not allowed for the %s type", el, typ)
		}
		i += n - 1
	}
	return nil
}

// The names PARSE_ reads: months and weekdays in full; each is also read
// by its first three letters (made once, not per row).
var longMonths, longDays = func() (m, d []string) {
	for i := time.January; i <= time.December; i++ {
		m = append(m, i.String())
	}
	for i := time.Sunday; i <= time.Saturday; i++ {
		d = append(d, i.String())
	}
	return
}()

// parser is one PARSE_ call's state, the one ZetaSQL's ParseTime keeps: the
// input not read yet, the fields of a struct tm (year - 1900, month - 1),
// the century (%C, or the one %y implies), the 12-hour clock and its
// afternoon, the fraction of a second, %s, the offset or zone read, and
// the date elements resolved once all is read.
type parser struct {
	s                           string
	year, mon, mday             int // a struct tm's tm_year, tm_mon and tm_mday
	hour, min, sec              int
	century                     int
	useCentury, explicitCentury bool // the century applies; %C set it, not %y
	twelveHour, afternoon       bool
	sub                         int64 // µs
	epoch                       int64
	sawEpoch                    bool
	offset                      int // minutes east of UTC
	sawOffset                   bool
	loc                         *time.Location
	pos                         int // the number of the element being read, from 1
	dates                       dateParts
}

const spaces = " \t\n\v\f\r" // absl::ascii_isspace, glibc's isspace in the C locale

func isSpace(c byte) bool { return strings.IndexByte(spaces, c) >= 0 }

// zetaInt reads an integer at the start of s as ZetaSQL's ParseInt does: an
// optional -, then at most width characters in all, digits, the value in
// [lo, hi] (-0 is refused). It returns the value and what follows it.
func zetaInt(s string, width int, lo, hi int64) (int64, string, bool) {
	if s == "" {
		return 0, s, false
	}
	neg := s[0] == '-'
	if neg {
		if width--; width == 0 {
			return 0, s, false
		}
		s = s[1:]
	}
	var v int64
	j := 0
	for ; j < len(s) && j < width && s[j] >= '0' && s[j] <= '9'; j++ {
		d := int64(s[j] - '0')
		if v > (math.MaxInt64-d)/10 {
			return 0, s, false
		}
		v = v*10 + d
	}
	if j == 0 || neg && v == 0 {
		return 0, s, false
	}
	if neg {
		v = -v
	}
	if v < lo || v > hi {
		return 0, s, false
	}
	return v, s[j:], true
}

// int reads an integer as ZetaSQL's ParseInt does (zetaInt).
func (p *parser) int(width int, lo, hi int64) (int, bool) {
	v, rest, ok := zetaInt(p.s, width, lo, hi)
	if ok {
		p.s = rest
	}
	return int(v), ok
}

// number reads an integer as glibc's strptime does (its get_number): white
// space skipped, then at most n digits, and no further digit once one more
// would pass hi (so %e reads "45" as 4), the value in [lo, hi].
func (p *parser) number(lo, hi, n int) (int, bool) {
	s := strings.TrimLeft(p.s, spaces)
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	v, j := 0, 0
	for {
		v = v*10 + int(s[j]-'0')
		j++
		n--
		if n == 0 || v*10 > hi || j == len(s) || s[j] < '0' || s[j] > '9' {
			break
		}
	}
	if v < lo || v > hi {
		return 0, false
	}
	p.s = s[j:]
	return v, true
}

// name reads one of names, in full or by its first three letters, in any
// case, the longest that matches (glibc's %a and %b): its index.
func (p *parser) name(names []string) (int, bool) {
	best, idx := 0, -1
	for i, n := range names {
		for _, c := range [2]string{n, n[:3]} {
			if len(c) > best && len(p.s) >= len(c) && strings.EqualFold(p.s[:len(c)], c) {
				best, idx = len(c), i
			}
		}
	}
	if idx >= 0 {
		p.s = p.s[best:]
	}
	return idx, idx >= 0
}

// expect reads the character c.
func (p *parser) expect(c byte) bool {
	if p.s == "" || p.s[0] != c {
		return false
	}
	p.s = p.s[1:]
	return true
}

// strptime reads f as glibc's strptime does in the C locale, as ZetaSQL
// has it read the elements it does not read itself (%c, %D, %e, %F, %k,
// %R, %T, %x, %X, the names, most %E and %O forms): f holds only the
// elements below. A %Y or %y here sets the year and leaves the century
// alone.
func (p *parser) strptime(f string) bool {
	for i := 0; i < len(f); i++ {
		if isSpace(f[i]) {
			p.s = strings.TrimLeft(p.s, spaces)
			continue
		}
		if f[i] != '%' {
			if !p.expect(f[i]) {
				return false
			}
			continue
		}
		i++
		ok := false
		switch f[i] {
		case 'a':
			_, ok = p.name(longDays)
		case 'b':
			p.mon, ok = p.name(longMonths)
		case 'd', 'e':
			p.mday, ok = p.number(1, 31, 2)
		case 'm':
			var m int
			m, ok = p.number(1, 12, 2)
			p.mon = m - 1
		case 'y':
			var y int
			if y, ok = p.number(0, 99, 2); y < 69 {
				y += 100
			}
			p.year = y
		case 'Y':
			var y int
			y, ok = p.number(0, 9999, 4)
			p.year = y - 1900
		case 'H':
			p.hour, ok = p.number(0, 23, 2)
		case 'M':
			p.min, ok = p.number(0, 59, 2)
		case 'S':
			p.sec, ok = p.number(0, 61, 2)
		case '%':
			ok = p.expect('%')
		}
		if !ok {
			return false
		}
	}
	return true
}

// The composite elements as glibc writes them in the C locale.
const (
	fmtDateTime = "%a %b %e %H:%M:%S %Y" // %c
	fmtDate     = "%m/%d/%y"             // %D, %x
	fmtTime     = "%H:%M:%S"             // %T, %X
)

// twelveHour reads an hour from 1 to 12 after any white space (%I, %l,
// %OI, and %r's): 12 is 0 until %p says PM.
func (p *parser) twelve() bool {
	p.s = strings.TrimLeft(p.s, spaces)
	h, ok := p.int(2, 1, 12)
	if ok {
		p.hour, p.twelveHour = h%12, true
	}
	return ok
}

// meridian reads AM or PM in any case (%p, %P); it counts only with a
// 12-hour clock.
func (p *parser) meridian() bool {
	if len(p.s) < 2 || p.s[1] != 'M' && p.s[1] != 'm' {
		return false
	}
	switch p.s[0] {
	case 'A', 'a':
		p.afternoon = false
	case 'P', 'p':
		p.afternoon = true
	default:
		return false
	}
	p.s = p.s[2:]
	return true
}

// zoneOffset reads ±hh, then optionally sep (0: none) and mm, as ZetaSQL's
// ParseOffset: exactly two digits of hours (0-23), and minutes (0-59) only
// if two digits follow. The offset must lie in -14:00..+14:00.
func (p *parser) zoneOffset(fn string, sep byte) (bool, error) {
	s := p.s
	if s == "" || s[0] != '+' && s[0] != '-' {
		return false, nil
	}
	h, rest, ok := zetaInt(s[1:], 2, 0, 23)
	if !ok || len(s)-len(rest) != 3 {
		return false, nil
	}
	m, a := int64(0), rest
	if sep != 0 && strings.HasPrefix(a, string(sep)) {
		a = a[1:]
	}
	if v, r, ok := zetaInt(a, 2, 0, 59); ok && len(a)-len(r) == 2 {
		m, rest = v, r
	}
	off := int(h*60 + m)
	if s[0] == '-' {
		off = -off
	}
	if off < -14*60 || off > 14*60 {
		return false, expr.EvalErr("%s: time zone offset %s is outside -14:00 to +14:00", fn, s[:len(s)-len(rest)])
	}
	p.offset, p.sawOffset, p.s = off, true, rest
	return true, nil
}

// subseconds reads a fraction of a second after a point, if there is one:
// at most most digits (0: any number), the first six kept (µs).
func (p *parser) subseconds(most int) bool {
	if !strings.HasPrefix(p.s, ".") {
		return true
	}
	s := p.s[1:]
	j := 0
	for j < len(s) && (most == 0 || j < most) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == 0 {
		return false
	}
	var us int64
	for k := 0; k < 6; k++ {
		us *= 10
		if k < j {
			us += int64(s[k] - '0')
		}
	}
	p.sub, p.s = us, s[j:]
	return true
}

// fullYear reads %Y, %EY: up to four digits when another element follows
// at once (rest is the format after the element), else up to five (0 to
// 10000: an offset may bring 10000 back in range).
func (p *parser) fullYear(rest string) bool {
	width, hi := 5, int64(10000)
	if strings.HasPrefix(rest, "%") {
		width, hi = 4, 9999
	}
	y, ok := p.int(width, 0, hi)
	p.year, p.useCentury, p.explicitCentury = y-1900, false, false
	p.dates.year(p.pos)
	return ok
}

// centuryOf reads %C, %EC: up to two digits when another element follows
// at once, else up to three (0 to 100). Alone it is the century's first
// year; with %y, that year of it.
func (p *parser) centuryOf(rest string) bool {
	width, hi := 3, int64(100)
	if strings.HasPrefix(rest, "%") {
		width, hi = 2, 99
	}
	c, ok := p.int(width, 0, hi)
	if ok && !p.useCentury {
		p.year = 0
	}
	p.century, p.useCentury, p.explicitCentury = c, true, true
	p.dates.year(p.pos)
	return ok
}

// twoDigitYear reads %y, %Ey: 00-68 are the 2000s, 69-99 the 1900s, unless
// %C gave the century.
func (p *parser) twoDigitYear() bool {
	y, ok := p.int(2, 0, 99)
	if ok && !p.explicitCentury {
		p.century = 19
		if y < 69 {
			p.century = 20
		}
	}
	p.year, p.useCentury = y, true
	p.dates.year(p.pos)
	return ok
}

// parseTime reads s by the format f for a result of kind k (fn names the
// function for errors): the µs of the instant (loc, the default zone, for
// a TIMESTAMP; UTC for a civil result).
func parseTime(fn string, k types.Kind, f, s string, loc *time.Location) (int64, error) {
	in, written := s, f // as the caller wrote them, for errors
	// ZetaSQL ignores one NUL byte that ends either string.
	f, s = strings.TrimSuffix(f, "\x00"), strings.TrimSuffix(s, "\x00")
	if err := checkParseFormat(f, k); err != nil {
		return 0, err
	}
	fail := func() (int64, error) {
		return 0, expr.EvalErr("%s: %q does not match the format %q", fn, in, written)
	}
	p := parser{s: strings.TrimLeft(s, spaces), year: 70, mday: 1, loc: loc, dates: newDateParts()}
	for i := 0; i < len(f); {
		if isSpace(f[i]) {
			p.s = strings.TrimLeft(p.s, spaces)
			i++
			continue
		}
		if f[i] != '%' {
			if !p.expect(f[i]) {
				return fail()
			}
			i++
			continue
		}
		i++ // checkParseFormat has seen an element after every %
		p.pos++
		n := parseElementLen(f[i:])
		ok, err := p.element(fn, f[i:i+n], f[i+n:])
		if err != nil {
			return 0, err
		}
		if !ok {
			return fail()
		}
		i += n
	}
	if p.twelveHour && p.afternoon {
		p.hour += 12
	}
	if strings.TrimLeft(p.s, spaces) != "" {
		return fail()
	}
	if p.sawEpoch { // %s wins over every other element
		return p.epoch * types.Second, nil
	}
	if p.sec == 60 { // a leap second is the next minute's first, its fraction dropped
		p.sec, p.sub = 59, types.Second
	}
	year := p.year + 1900
	if p.useCentury {
		year += p.century*100 - 1900
	}
	month, day := p.mon+1, p.mday
	if err := p.dates.resolve(fn, &year, &month, &day); err != nil {
		return 0, err
	}
	t := time.Date(year, time.Month(month), day, p.hour, p.min, p.sec, 0, time.UTC)
	if t.Day() != day || p.sec > 59 { // February 30, or second 61
		return 0, expr.EvalErr("%s: %q has an out-of-range field (year %d, month %d, day %d, second %d)", fn, in, year, month, day, p.sec)
	}
	us := t.UnixMicro()
	if p.sawOffset {
		us -= int64(p.offset) * types.Minute
	} else if p.loc != time.UTC {
		us = types.CivilIn(us, p.loc)
	}
	return us + p.sub, nil
}

// element reads one format element el (its text after %; rest is the
// format after it), as ZetaSQL's ParseTime does. It records what the
// element says of the year, month and day for dateParts.
func (p *parser) element(fn, el, rest string) (bool, error) {
	d := &p.dates
	switch el[0] {
	case 'Y':
		return p.fullYear(rest), nil
	case 'C':
		return p.centuryOf(rest), nil
	case 'y':
		return p.twoDigitYear(), nil
	case 'm':
		m, ok := p.int(2, 1, 12)
		p.mon = m - 1
		d.month(p.pos)
		return ok, nil
	case 'd':
		var ok bool
		p.mday, ok = p.int(2, 1, 31)
		d.day(p.pos)
		return ok, nil
	case 'e':
		d.day(p.pos)
		return p.strptime("%e"), nil
	case 'B', 'b', 'h':
		d.month(p.pos)
		return p.strptime("%b"), nil
	case 'D', 'F', 'x':
		d.year(p.pos)
		d.month(p.pos)
		d.day(p.pos)
		if el[0] == 'F' {
			return p.strptime("%Y-%m-%d"), nil
		}
		return p.strptime(fmtDate), nil
	case 'c':
		d.year(p.pos)
		d.month(p.pos)
		d.day(p.pos)
		p.twelveHour = false
		return p.strptime(fmtDateTime), nil
	case 'Q':
		q, ok := p.int(1, 1, 4)
		if ok {
			p.mon, p.mday = (q-1)*3, 1
		}
		d.month(p.pos)
		d.day(p.pos)
		return ok, nil
	case 'j':
		return p.dateElement('j', 3, 1, 366, true), nil
	case 'J':
		return p.dateElement('J', 3, 1, 371, false), nil
	case 'U', 'W':
		return p.dateElement(el[0], 2, 0, 53, true), nil
	case 'V':
		return p.dateElement('V', 2, 1, 53, false), nil
	case 'g':
		y, ok := p.int(2, 0, 99)
		if y <= 68 {
			y += 2000
		} else {
			y += 1900
		}
		d.add('g', p.pos, y)
		return ok, nil
	case 'G':
		y, ok := p.int(20, 0, 99999)
		d.add('G', p.pos, y)
		return ok, nil
	case 'A', 'a':
		wd, ok := p.name(longDays)
		d.add('a', p.pos, wd)
		return ok, nil
	case 'u', 'w': // read as glibc reads them: white space first
		lo, hi := 1, 7
		if el[0] == 'w' {
			lo, hi = 0, 6
		}
		wd, ok := p.number(lo, hi, 1)
		d.add('a', p.pos, wd%7)
		return ok, nil
	case 'H':
		var ok bool
		p.hour, ok = p.int(2, 0, 23)
		p.twelveHour = false
		return ok, nil
	case 'k': // glibc's: it leaves the 12-hour clock as it was
		var ok bool
		p.hour, ok = p.number(0, 23, 2)
		return ok, nil
	case 'I', 'l':
		return p.twelve(), nil
	case 'p', 'P':
		return p.meridian(), nil
	case 'M':
		var ok bool
		p.min, ok = p.int(2, 0, 59)
		return ok, nil
	case 'S':
		var ok bool
		p.sec, ok = p.int(2, 0, 60)
		return ok, nil
	case 'R', 'T', 'X':
		p.twelveHour = false
		if el[0] == 'R' {
			return p.strptime("%H:%M"), nil
		}
		return p.strptime(fmtTime), nil
	case 'r': // %I:%M:%S %p
		ok := p.twelve() && p.expect(':')
		if ok {
			p.min, ok = p.int(2, 0, 59)
		}
		if ok = ok && p.expect(':'); ok {
			p.sec, ok = p.int(2, 0, 60)
		}
		p.s = strings.TrimLeft(p.s, spaces)
		return ok && p.meridian(), nil
	case 's':
		v, rest, ok := zetaInt(p.s, 12, expr.MinMicros/1000, expr.MaxMicros/1000) // ZetaSQL's bounds (µs / 1000)
		if ok {
			p.s, p.epoch, p.sawEpoch = rest, v, true
		}
		d.year(p.pos)
		d.month(p.pos)
		d.day(p.pos)
		return ok, nil
	case 'z':
		return p.zoneOffset(fn, 0)
	case 'Z':
		j := 0
		for j < len(p.s) && !isSpace(p.s[j]) {
			j++
		}
		if j == 0 {
			return false, nil
		}
		name := p.s[:j]
		loc, err := types.LoadLocation(name)
		if err != nil || name == "Z" { // ZetaSQL's MakeTimeZone refuses Z
			return false, expr.EvalErr("%s: invalid time zone %q", fn, name)
		}
		p.s, p.loc, p.offset, p.sawOffset = p.s[j:], loc, 0, false
		return true, nil
	case 'n', 't':
		p.s = strings.TrimLeft(p.s, spaces)
		return true, nil
	case '%':
		return p.expect('%'), nil
	case 'E':
		return p.modifiedE(fn, el, rest)
	case 'O':
		return p.modifiedO(el), nil
	}
	return false, nil // checkParseFormat refused it
}

// modifiedE reads %Ez (an offset ±hh[:mm], or Z), %EY, %Ey, %EC (as %Y, %y,
// %C), %E4Y (four digits exactly), %E*S and %E<n>S (seconds and a fraction
// of any length or at most n digits), and %Ec, %Ex, %EX (glibc's: as %c,
// %x, %X, but unlike those they do not count as setting the date).
func (p *parser) modifiedE(fn, el, rest string) (bool, error) {
	switch {
	case el == "Ez":
		if strings.HasPrefix(p.s, "Z") {
			p.s, p.offset, p.sawOffset = p.s[1:], 0, true
			return true, nil
		}
		return p.zoneOffset(fn, ':')
	case el == "EY":
		return p.fullYear(rest), nil
	case el == "Ey":
		return p.twoDigitYear(), nil
	case el == "EC":
		return p.centuryOf(rest), nil
	case el == "E4Y":
		y, r, ok := zetaInt(p.s, 4, 0, 9999)
		ok = ok && len(p.s)-len(r) == 4
		if ok {
			p.s, p.year = r, int(y)-1900
		}
		p.useCentury = false
		p.dates.year(p.pos)
		return ok, nil
	case el == "Ec":
		p.twelveHour = false
		return p.strptime(fmtDateTime), nil
	case el == "Ex":
		return p.strptime(fmtDate), nil
	case el == "EX":
		p.twelveHour = false
		return p.strptime(fmtTime), nil
	}
	most := 0 // %E*S
	if el != "E*S" {
		n, _, _ := zetaInt(el[1:], 2, 0, maxSecondsDigits)
		most = int(n)
	}
	var ok bool
	if p.sec, ok = p.int(2, 0, 60); ok && (el == "E*S" || most > 0) {
		ok = p.subseconds(most)
	}
	return ok, nil
}

// modifiedO reads the %O forms: %OI, %Ou, %Ow, %OU, %OV, %OW as ZetaSQL
// reads them itself (digits as ParseInt reads them; %OW, unlike %W, does
// not make ZetaSQL drop the ISO elements), the others as glibc's strptime
// reads the element without O, none of them counting as setting the date.
func (p *parser) modifiedO(el string) bool {
	d := &p.dates
	switch el[1] {
	case 'I':
		return p.twelve()
	case 'u':
		wd, ok := p.int(1, 1, 7)
		d.add('a', p.pos, wd%7)
		return ok
	case 'w':
		wd, ok := p.int(1, 0, 6)
		d.add('a', p.pos, wd)
		return ok
	case 'U':
		return p.dateElement('U', 2, 0, 53, true)
	case 'V':
		return p.dateElement('V', 2, 1, 53, false)
	case 'W':
		return p.dateElement('W', 2, 0, 53, false)
	case 'H':
		p.twelveHour = false
	case 'B', 'b', 'h':
		return p.strptime("%b")
	}
	return p.strptime("%" + el[1:])
}

// dateElement reads a number for dateParts (a week, a day of the year) as
// ParseInt does, and records it; nonISO says it makes ZetaSQL drop the ISO
// elements.
func (p *parser) dateElement(c byte, width int, lo, hi int64, nonISO bool) bool {
	v, ok := p.int(width, lo, hi)
	p.dates.add(c, p.pos, v)
	if nonISO {
		p.dates.nonISO = true
	}
	return ok
}

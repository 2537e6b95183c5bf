package types

// CAST … FORMAT for DATE, DATETIME, TIME and TIMESTAMP, both directions:
// CAST(x AS STRING FORMAT f) and CAST(s AS DATE|DATETIME|TIME|TIMESTAMP
// FORMAT f), with BigQuery's optional AT TIME ZONE for TIMESTAMP.
//
// The format model is GoogleSQL's (docs/format-elements.md, "Format date and
// time as string" and "Format string as date and time"). Where that page is
// silent or contradicts itself, ZetaSQL's reference implementation
// (zetasql/public/functions/cast_date_time.cc) and its compliance tests
// decide; the test file names each such case.

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Bounds of BigQuery's date and time types, in logq's representations.
const (
	castMinMicros int64 = -62135596800000000 // 0001-01-01 00:00:00 UTC
	castMaxMicros int64 = 253402300799999999 // 9999-12-31 23:59:59.999999 UTC
	castMinDays   int64 = -719162            // 0001-01-01
	castMaxDays   int64 = 2932896            // 9999-12-31
)

// castElemKind is one format element of a date/time format model.
type castElemKind uint8

const (
	ceLiteral castElemKind = iota // - . / , ' ; : or "quoted text"
	ceSpace                       // a run of ASCII spaces
	ceYYYY
	ceYYY
	ceYY
	ceY
	ceRRRR
	ceRR
	ceYCommaYYY // Y,YYY: parsing only
	ceMM
	ceMON
	ceMONTH
	ceDDD // DDD, D, DAY, DY: formatting only
	ceDD
	ceD
	ceDAY
	ceDY
	ceHH
	ceHH12
	ceHH24
	ceMI
	ceSS
	ceSSSSS
	ceFF  // FF1 … FF9 (n in castElem.n)
	ceAM  // AM and PM: formatting only
	cePM  //
	ceAMd // A.M. and P.M.
	cePMd //
	ceTZH
	ceTZM
	// ceOther is an element of the wider Oracle-style grammar that ZetaSQL
	// tokenizes (IYYY, CC, Q, FF10, …) but BigQuery's CAST doesn't support.
	// It is tokenized rather than rejected as unknown so that longest-match
	// splits a format exactly as BigQuery does, and so the error names it.
	ceOther
)

// castCategory groups elements by the date/time part they read or write;
// the format model rules (which types allow what, no two of a kind) are
// stated per category.
type castCategory uint8

const (
	catLiteral castCategory = iota
	catYear
	catMonth
	catDay
	catHour
	catMinute
	catSecond
	catMeridian
	catZone
	catOther
)

func (k castElemKind) category() castCategory {
	switch k {
	case ceLiteral, ceSpace:
		return catLiteral
	case ceYYYY, ceYYY, ceYY, ceY, ceRRRR, ceRR, ceYCommaYYY:
		return catYear
	case ceMM, ceMON, ceMONTH:
		return catMonth
	case ceDDD, ceDD, ceD, ceDAY, ceDY:
		return catDay
	case ceHH, ceHH12, ceHH24:
		return catHour
	case ceMI:
		return catMinute
	case ceSS, ceSSSSS, ceFF:
		return catSecond
	case ceAM, cePM, ceAMd, cePMd:
		return catMeridian
	case ceTZH, ceTZM:
		return catZone
	}
	return catOther
}

type castElemName struct {
	name string
	kind castElemKind
}

// castElemNames are the element names, matched case-insensitively and
// longest first ("MONTH" over "MON" over "MM"; "HH24" over "HH"). The
// unsupported names are listed because they take part in longest-match.
var castElemNames = []castElemName{
	{"YYYY", ceYYYY}, {"YYY", ceYYY}, {"YY", ceYY}, {"Y", ceY},
	{"RRRR", ceRRRR}, {"RR", ceRR}, {"Y,YYY", ceYCommaYYY},
	{"MM", ceMM}, {"MON", ceMON}, {"MONTH", ceMONTH},
	{"DDD", ceDDD}, {"DD", ceDD}, {"D", ceD}, {"DAY", ceDAY}, {"DY", ceDY},
	{"HH", ceHH}, {"HH12", ceHH12}, {"HH24", ceHH24},
	{"MI", ceMI},
	{"SS", ceSS}, {"SSSSS", ceSSSSS},
	{"FF1", ceFF}, {"FF2", ceFF}, {"FF3", ceFF}, {"FF4", ceFF}, {"FF5", ceFF},
	{"FF6", ceFF}, {"FF7", ceFF}, {"FF8", ceFF}, {"FF9", ceFF},
	{"AM", ceAM}, {"PM", cePM}, {"A.M.", ceAMd}, {"P.M.", cePMd},
	{"TZH", ceTZH}, {"TZM", ceTZM},
	// Known to ZetaSQL's grammar, not supported by CAST. FF10–FF12 are
	// picosecond precision, which BigQuery doesn't have (its docs allow
	// FF1 to FF9).
	{"FF10", ceOther}, {"FF11", ceOther}, {"FF12", ceOther},
	{"IYYY", ceOther}, {"IYY", ceOther}, {"IY", ceOther}, {"I", ceOther},
	{"SYYYY", ceOther}, {"YEAR", ceOther}, {"SYEAR", ceOther},
	{"RM", ceOther}, {"J", ceOther}, {"CC", ceOther}, {"SCC", ceOther},
	{"Q", ceOther}, {"IW", ceOther}, {"WW", ceOther}, {"W", ceOther},
	{"AD", ceOther}, {"BC", ceOther}, {"A.D.", ceOther}, {"B.C.", ceOther},
	{"SP", ceOther}, {"TH", ceOther}, {"SPTH", ceOther}, {"THSP", ceOther},
	{"FM", ceOther},
}

// castElemsByLetter indexes castElemNames by first letter, so tokenizing
// a long format costs a handful of comparisons a byte.
var castElemsByLetter = func() map[byte][]castElemName {
	m := map[byte][]castElemName{}
	for _, e := range castElemNames {
		m[e.name[0]] = append(m[e.name[0]], e)
	}
	return m
}()

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// letterCase is how an element's letters are written, copied from how the
// element itself is written ("case matching").
type letterCase uint8

const (
	caseUpper letterCase = iota // MONTH → JANUARY
	caseTitle                   // Month → January
	caseLower                   // month → january
)

// castElem is one element of a parsed format model.
type castElem struct {
	kind   castElemKind
	src    string // the element as written, for error messages
	text   string // ceLiteral: the text to match or write
	quoted bool   // ceLiteral: came from "…"
	n      int    // ceFF: digits; ceSpace: number of spaces
	casing letterCase
}

func castError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBadCast}, args...)...)
}

// clip shortens a string quoted in an error message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// parseCastFormat splits a date/time format model into elements.
func parseCastFormat(format string) ([]castElem, error) {
	if !utf8.ValidString(format) {
		return nil, castError("format string is not valid UTF-8")
	}
	var elems []castElem
	for i := 0; i < len(format); {
		switch c := format[i]; {
		case c == '"':
			e, n, err := parseQuotedLiteral(format[i:])
			if err != nil {
				return nil, castError("%v at %d of format %q", err, i, clip(format))
			}
			elems = append(elems, e)
			i += n
		case c == ' ':
			n := 1
			for i+n < len(format) && format[i+n] == ' ' {
				n++
			}
			elems = append(elems, castElem{kind: ceSpace, src: format[i : i+n], n: n})
			i += n
		case strings.IndexByte("-./,';:", c) >= 0:
			elems = append(elems, castElem{kind: ceLiteral, src: format[i : i+1], text: format[i : i+1]})
			i++
		default:
			name, kind := "", ceOther
			for _, cand := range castElemsByLetter[upperASCII(c)] {
				if len(cand.name) > len(name) && hasPrefixFold(format[i:], cand.name) {
					name, kind = cand.name, cand.kind
				}
			}
			if name == "" {
				return nil, castError("no format element matches %q at %d of format %q", clip(format[i:]), i, clip(format))
			}
			src := format[i : i+len(name)]
			e := castElem{kind: kind, src: src, casing: elemCasing(src, kind)}
			if kind == ceFF {
				e.n = int(name[2] - '0')
			}
			elems = append(elems, e)
			i += len(name)
		}
	}
	return elems, nil
}

// hasPrefixFold reports whether s starts with the upper-case ASCII name,
// ignoring ASCII case.
func hasPrefixFold(s, name string) bool {
	if len(s) < len(name) {
		return false
	}
	for j := 0; j < len(name); j++ {
		if upperASCII(s[j]) != name[j] {
			return false
		}
	}
	return true
}

// parseQuotedLiteral reads a "…" literal at the start of s, in which only
// \" and \\ are escapes, and returns it and the bytes it spans.
func parseQuotedLiteral(s string) (castElem, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return castElem{kind: ceLiteral, src: s[:i+1], text: b.String(), quoted: true}, i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return castElem{}, 0, fmt.Errorf("unterminated quoted text")
			}
			if s[i+1] != '"' && s[i+1] != '\\' {
				r, _ := utf8.DecodeRuneInString(s[i+1:])
				return castElem{}, 0, fmt.Errorf(`unsupported escape sequence \%c in quoted text (only \" and \\)`, r)
			}
			i++
		}
		b.WriteByte(s[i])
	}
	return castElem{}, 0, fmt.Errorf("unterminated quoted text")
}

// elemCasing applies the case-matching rules: a lower-case first letter
// means all lower case; a meridian indicator or a one-letter element
// follows its first letter; otherwise "Xx…" means capitalized words and
// "XX…" all upper case.
func elemCasing(src string, kind castElemKind) letterCase {
	switch {
	case src[0] >= 'a' && src[0] <= 'z':
		return caseLower
	case kind.category() == catMeridian || len(src) == 1:
		return caseUpper
	case src[1] >= 'a' && src[1] <= 'z':
		return caseTitle
	}
	return caseUpper
}

func applyCase(s string, c letterCase) string {
	switch c {
	case caseUpper:
		return strings.ToUpper(s)
	case caseLower:
		return strings.ToLower(s)
	}
	return s // Go's month and weekday names are already capitalized
}

// FormatTimeCast writes a DATE, DATETIME, TIME or TIMESTAMP value (kind is
// KindDate, KindDatetime, KindTime or KindTimestamp; us is the value as logq
// holds it: DATE = days since 1970-01-01, DATETIME = civil µs since
// 1970-01-01 00:00 read as UTC, TIME = µs since midnight, TIMESTAMP = µs
// since the epoch) as CAST(x AS STRING FORMAT format [AT TIME ZONE loc])
// does. loc is used for TIMESTAMP only (UTC when the query gives no zone).
func FormatTimeCast(format string, kind Kind, us int64, loc *time.Location) (string, error) {
	elems, err := parseCastFormat(format)
	if err != nil {
		return "", err
	}
	// Which parts each type may write: a DATE has no time of day, a TIME
	// no date, and only a TIMESTAMP has a time zone.
	var allowed func(castCategory) bool
	switch kind {
	case KindDate:
		allowed = func(c castCategory) bool { return c <= catDay }
	case KindTime:
		allowed = func(c castCategory) bool { return c == catLiteral || c >= catHour && c <= catMeridian }
	case KindDatetime:
		allowed = func(c castCategory) bool { return c <= catMeridian }
	case KindTimestamp:
		allowed = func(c castCategory) bool { return c != catOther }
	default:
		return "", castError("CAST … FORMAT from %s to STRING is not a date/time cast", kind)
	}
	for _, e := range elems {
		switch e.kind {
		case ceOther:
			return "", castError("format element %q is not supported", e.src)
		case ceYCommaYYY:
			return "", castError("format element %q is only for casting a string to a date or time", e.src)
		}
		if !allowed(e.kind.category()) {
			return "", castError("%s does not support format element %q", kind, e.src)
		}
	}

	t, offset, err := castCivilTime(kind, us, loc)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, e := range elems {
		writeCastElem(&b, e, t, offset)
	}
	return b.String(), nil
}

// castCivilTime checks a value against its type's range and returns its
// civil time (as a UTC time.Time) and, for a TIMESTAMP, the zone offset
// used, in seconds.
func castCivilTime(kind Kind, us int64, loc *time.Location) (time.Time, int, error) {
	switch kind {
	case KindDate:
		if us < castMinDays || us > castMaxDays {
			return time.Time{}, 0, castError("DATE value out of range: %d days since the epoch", us)
		}
		return ToTime(us * Day), 0, nil
	case KindTime:
		if us < 0 || us >= Day {
			return time.Time{}, 0, castError("TIME value out of range: %d µs since midnight", us)
		}
		return ToTime(us), 0, nil
	case KindDatetime:
		if us < castMinMicros || us > castMaxMicros {
			return time.Time{}, 0, castError("DATETIME value out of range")
		}
		return ToTime(us), 0, nil
	}
	if us < castMinMicros || us > castMaxMicros {
		return time.Time{}, 0, castError("TIMESTAMP value out of range")
	}
	if loc == nil {
		loc = time.UTC
	}
	_, offset := time.UnixMicro(us).In(loc).Zone()
	// TZH:TZM can't show seconds, so an offset such as Los Angeles's
	// -07:52:58 before 1884 is used as -07:52, for the other fields too
	// (as ZetaSQL does).
	offset -= offset % 60
	// The civil time may fall in year 0 or 10000 (0001-01-01 00:00 UTC at
	// -08:00); BigQuery writes it as it is.
	return ToTime(us + int64(offset)*Second), offset, nil
}

func writeCastElem(b *strings.Builder, e castElem, t time.Time, offset int) {
	year := t.Year()
	hour := t.Hour()
	switch e.kind {
	case ceLiteral:
		b.WriteString(e.text)
	case ceSpace:
		b.WriteString(e.src)
	case ceYYYY, ceRRRR:
		writePadded(b, year, 4) // all digits, at least four
	case ceYYY:
		writePadded(b, year%1000, 3)
	case ceYY, ceRR:
		writePadded(b, year%100, 2)
	case ceY:
		writePadded(b, year%10, 1)
	case ceMM:
		writePadded(b, int(t.Month()), 2)
	case ceMON:
		b.WriteString(applyCase(t.Month().String()[:3], e.casing))
	case ceMONTH:
		b.WriteString(applyCase(t.Month().String(), e.casing))
	case ceDDD:
		writePadded(b, t.YearDay(), 3)
	case ceDD:
		writePadded(b, t.Day(), 2)
	case ceD:
		writePadded(b, int(t.Weekday())+1, 1) // Sunday is 1
	case ceDAY:
		// The docs say DAY is padded to 9 characters, but their own example
		// (THURSDAY) and ZetaSQL's tests show no padding.
		b.WriteString(applyCase(t.Weekday().String(), e.casing))
	case ceDY:
		b.WriteString(applyCase(t.Weekday().String()[:3], e.casing))
	case ceHH, ceHH12:
		h := hour % 12
		if h == 0 {
			h = 12
		}
		writePadded(b, h, 2)
	case ceHH24:
		writePadded(b, hour, 2)
	case ceMI:
		writePadded(b, t.Minute(), 2)
	case ceSS:
		writePadded(b, t.Second(), 2)
	case ceSSSSS:
		writePadded(b, hour*3600+t.Minute()*60+t.Second(), 5)
	case ceFF:
		// Truncated, not rounded: the docs say "rounded", but their FF1
		// example (.16 → 1) and ZetaSQL's tests (.456789 → 4) truncate.
		// logq holds µs, so digits 7 to 9 are zeros.
		var frac [9]byte
		ns := t.Nanosecond()
		for d := 8; d >= 0; d-- {
			frac[d] = byte('0' + ns%10)
			ns /= 10
		}
		b.Write(frac[:e.n])
	case ceAM, cePM:
		m := "AM"
		if hour >= 12 {
			m = "PM"
		}
		b.WriteString(applyCase(m, e.casing))
	case ceAMd, cePMd:
		m := "A.M."
		if hour >= 12 {
			m = "P.M."
		}
		b.WriteString(applyCase(m, e.casing))
	case ceTZH:
		sign, off := byte('+'), offset
		if off < 0 {
			sign, off = '-', -off
		}
		b.WriteByte(sign)
		writePadded(b, off/3600, 2)
	case ceTZM:
		off := offset
		if off < 0 {
			off = -off
		}
		writePadded(b, off/60%60, 2)
	}
}

// writePadded writes a non-negative v in decimal, zero-padded to width.
func writePadded(b *strings.Builder, v, width int) {
	var buf [20]byte
	i := len(buf)
	for v >= 10 || width > 1 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	i--
	buf[i] = byte('0' + v)
	b.Write(buf[i:])
}

// ParseTimeCast reads s as CAST(s AS <kind> FORMAT format [AT TIME ZONE
// loc]) does, returning the value in the same representation; now (µs since
// the epoch, UTC) supplies the defaults BigQuery documents for parts the
// format leaves out (current year and month, day 1, midnight).
func ParseTimeCast(format string, kind Kind, s string, loc *time.Location, now int64) (int64, error) {
	elems, err := parseCastFormat(format)
	if err != nil {
		return 0, err
	}
	if err := checkParseModel(elems, kind); err != nil {
		return 0, err
	}
	if !utf8.ValidString(s) {
		return 0, castError("input string is not valid UTF-8")
	}
	if loc == nil || kind != KindTimestamp {
		// Only a TIMESTAMP has a zone; the others are civil, read as UTC.
		loc = time.UTC
	}

	// Defaults: the current year and month (in the cast's time zone), day
	// 1, midnight. A TIME has no date; it takes 1970-01-01, which it drops.
	var p castParts
	if kind == KindTime {
		p.year, p.month = 1970, 1
	} else {
		cur := time.UnixMicro(now).In(loc)
		p.year, p.month = cur.Year(), int(cur.Month())
	}
	p.day = 1
	if err := p.scan(elems, s); err != nil {
		return 0, err
	}
	return p.result(kind, loc)
}

// checkParseModel applies the format model rules for parsing: only the
// elements that can be read, each at most once, none the type lacks, and
// a consistent set of hour elements.
func checkParseModel(elems []castElem, kind Kind) error {
	seenKind := map[castElemKind]castElem{}
	seenCat := map[castCategory]castElem{}
	for _, e := range elems {
		switch e.kind {
		case ceDDD, ceD, ceDAY, ceDY, ceAM, cePM, ceOther:
			// The docs' model rules mention DDD, but the parsing tables
			// don't list it, and ZetaSQL refuses it (and D, DAY, DY, AM, PM).
			return castError("format element %q is not supported when casting a string to %s", e.src, kind)
		}
		c := e.kind.category()
		if c == catLiteral {
			continue
		}
		if _, dup := seenKind[e.kind]; dup { // FF1 and FF2 count as the same element
			return castError("format element %q appears more than once in format", e.src)
		}
		seenKind[e.kind] = e
		if first, dup := seenCat[c]; dup && c != catSecond && c != catZone {
			return castError("format elements %q and %q both give the %s", first.src, e.src, catNoun(c))
		}
		if _, ok := seenCat[c]; !ok {
			seenCat[c] = e
		}
	}

	var banned []castCategory
	switch kind {
	case KindDate:
		banned = []castCategory{catHour, catMinute, catSecond, catMeridian, catZone}
	case KindTime:
		banned = []castCategory{catYear, catMonth, catDay, catZone}
	case KindDatetime:
		banned = []castCategory{catZone}
	case KindTimestamp:
	default:
		return castError("CAST … FORMAT from STRING to %s is not a date/time cast", kind)
	}
	for _, c := range banned {
		if e, ok := seenCat[c]; ok {
			return castError("format element %q is not allowed when casting a string to %s", e.src, kind)
		}
	}

	has := func(k castElemKind) (castElem, bool) { e, ok := seenKind[k]; return e, ok }
	meridian, hasMeridian := seenCat[catMeridian]
	if e, ok := has(ceHH24); ok && hasMeridian {
		return castError("format element %q can't be used with %q (a 24-hour clock has no A.M./P.M.)", meridian.src, e.src)
	}
	h12, ok12 := has(ceHH)
	if !ok12 {
		h12, ok12 = has(ceHH12)
	}
	if ok12 && !hasMeridian {
		return castError("format element %q needs A.M. or P.M. in the format", h12.src)
	}
	if hasMeridian && !ok12 {
		return castError("format element %q needs HH or HH12 in the format", meridian.src)
	}
	if e, ok := has(ceSSSSS); ok {
		// SSSSS sets hour, minute and second together.
		for _, c := range []castCategory{catHour, catMinute} {
			if other, ok := seenCat[c]; ok {
				return castError("format elements %q and %q can't both be used", e.src, other.src)
			}
		}
		if other, ok := has(ceSS); ok {
			return castError("format elements %q and %q can't both be used", e.src, other.src)
		}
	}
	return nil
}

func catNoun(c castCategory) string {
	return [...]string{"literal", "year", "month", "day", "hour", "minute", "second", "meridian indicator", "time zone", "other"}[c]
}

// castParts collects the fields a string sets as it is parsed.
type castParts struct {
	year, month, day  int
	hour, min, sec    int
	micros            int64
	hour12            int // 1–12 when HH/HH12 was read, else 0
	pm                bool
	zoned, zoneNeg    bool // TZH/TZM was read; TZH's sign was '-'
	zoneHour, zoneMin int
}

// digitAhead reports, for each element, whether the next element that
// consumes input starts with a digit. Such an element must read exactly
// its full width (YYYYMMDD), else it may read fewer digits (YYYY-M-D).
func digitAhead(elems []castElem) []bool {
	ahead := make([]bool, len(elems))
	for i := len(elems) - 2; i >= 0; i-- {
		next := elems[i+1]
		switch next.kind {
		case ceLiteral:
			if next.quoted && next.text == "" {
				ahead[i] = ahead[i+1] // "" consumes nothing: look past it
			} else {
				ahead[i] = next.text[0] >= '0' && next.text[0] <= '9'
			}
		case ceYYYY, ceYYY, ceYY, ceY, ceRRRR, ceRR, ceYCommaYYY, ceMM, ceDD,
			ceHH, ceHH12, ceHH24, ceMI, ceSS, ceSSSSS, ceFF, ceTZM:
			ahead[i] = true
		}
	}
	return ahead
}

// digitWidth is how many digits a numeric element reads: exactly its
// width when a digit follows, else 1 to its width (1 to 5 for YYYY).
func digitWidth(e castElem, exact bool) (lo, hi int) {
	w := len(e.src) // YYY, YY, Y, RR, MM, DD, HH, MI, SS, SSSSS
	switch e.kind {
	case ceYYYY, ceRRRR:
		if !exact {
			return 1, 5
		}
		w = 4
	case ceHH12, ceHH24, ceTZH, ceTZM:
		w = 2
	case ceFF:
		w = e.n
	}
	if exact {
		return w, w
	}
	return 1, w
}

// scan matches s against the elements, setting p's fields.
func (p *castParts) scan(elems []castElem, s string) error {
	ahead := digitAhead(elems)
	pos := skipSpace(s, 0)
	i := 0
	for ; i < len(elems) && pos < len(s); i++ {
		e := elems[i]
		lo, hi := digitWidth(e, ahead[i])
		rest := s[pos:]
		n := -1 // bytes consumed; -1 when the element doesn't match
		var v int
		switch e.kind {
		case ceLiteral:
			if strings.HasPrefix(rest, e.text) {
				n = len(e.text)
			}
		case ceSpace:
			// Any run of spaces in the format matches one or more Unicode
			// whitespace characters.
			if n = skipSpace(s, pos) - pos; n == 0 {
				n = -1
			}
		case ceYYYY, ceRRRR:
			n, p.year = readInt(rest, lo, hi, 0, 10000, p.year)
		case ceYYY, ceYY, ceY:
			// Only the last digits: the rest come from the current year.
			mod := [...]int{1, 10, 100, 1000}[len(e.src)]
			if n, v = readInt(rest, lo, hi, 0, mod-1, 0); n >= 0 {
				p.year = p.year - p.year%mod + v
			}
		case ceRR:
			if n, v = readInt(rest, lo, hi, 0, 99, 0); n >= 0 {
				p.year = rrYear(p.year, v)
			}
		case ceYCommaYYY:
			n, p.year = readYCommaYYY(rest, p.year)
		case ceMM:
			n, p.month = readInt(rest, lo, hi, 1, 12, p.month)
		case ceMON, ceMONTH:
			n, p.month = readMonthName(rest, e.kind == ceMON, p.month)
		case ceDD:
			n, p.day = readInt(rest, lo, hi, 1, 31, p.day)
		case ceHH, ceHH12:
			n, p.hour12 = readInt(rest, lo, hi, 1, 12, p.hour12)
		case ceAMd, cePMd:
			// Either indicator reads either A.M. or P.M., in any case.
			if hasPrefixFold(rest, "A.M.") || hasPrefixFold(rest, "P.M.") {
				n, p.pm = 4, rest[0] == 'P' || rest[0] == 'p'
			}
		case ceHH24:
			n, p.hour = readInt(rest, lo, hi, 0, 23, p.hour)
		case ceMI:
			n, p.min = readInt(rest, lo, hi, 0, 59, p.min)
		case ceSS:
			n, p.sec = readInt(rest, lo, hi, 0, 59, p.sec)
		case ceSSSSS:
			if n, v = readInt(rest, lo, hi, 0, 86399, 0); n >= 0 {
				p.hour, p.min, p.sec = v/3600, v/60%60, v%60
			}
		case ceFF:
			n, p.micros = readFraction(rest, lo, hi, p.micros)
		case ceTZH:
			p.zoned = true
			if rest[0] == '+' || rest[0] == '-' || rest[0] == ' ' {
				if n, p.zoneHour = readInt(rest[1:], lo, hi, 0, 14, p.zoneHour); n >= 0 {
					n++
					p.zoneNeg = rest[0] == '-'
				}
			}
		case ceTZM:
			p.zoned = true
			n, p.zoneMin = readInt(rest, lo, hi, 0, 59, p.zoneMin)
		}
		if n < 0 {
			return castError("cannot parse %q at %d with format element %q", clip(s), pos, e.src)
		}
		pos += n
	}
	pos = skipSpace(s, pos)
	for i < len(elems) && elems[i].kind == ceLiteral && elems[i].quoted && elems[i].text == "" {
		i++ // a trailing "" matches the end
	}
	if pos < len(s) {
		return castError("cannot parse %q: unexpected %q at the end", clip(s), clip(s[pos:]))
	}
	if i < len(elems) {
		return castError("cannot parse %q: it ends before format element %q", clip(s), elems[i].src)
	}
	return nil
}

// skipSpace returns the position after any Unicode whitespace at s[pos:].
// unicode.IsSpace is the White_Space property, as ICU's u_isUWhiteSpace.
func skipSpace(s string, pos int) int {
	for pos < len(s) {
		r, n := utf8.DecodeRuneInString(s[pos:])
		if !unicode.IsSpace(r) {
			break
		}
		pos += n
	}
	return pos
}

// readInt reads lo to hi digits (as many as there are, up to hi) holding a
// value in [least, most]. It returns the bytes read and the value, or -1 and
// old when there is no such number. No sign is accepted: every element's
// range is non-negative.
func readInt(s string, lo, hi, least, most, old int) (int, int) {
	n, v := 0, 0
	for n < hi && n < len(s) && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int(s[n]-'0')
		n++
	}
	if n == 0 || n < lo || v < least || v > most {
		return -1, old
	}
	return n, v
}

// readFraction reads lo to hi digits after the decimal point as µs;
// digits past the sixth are read but dropped, as logq holds µs.
func readFraction(s string, lo, hi int, old int64) (int, int64) {
	n := 0
	var v int64
	for n < hi && n < len(s) && s[n] >= '0' && s[n] <= '9' {
		if n < 6 {
			v = v*10 + int64(s[n]-'0')
		}
		n++
	}
	if n == 0 || n < lo {
		return -1, old
	}
	for d := n; d < 6; d++ {
		v *= 10
	}
	return n, v
}

// readYCommaYYY reads Y,YYY: one or two digits, a comma, three digits.
func readYCommaYYY(s string, old int) (int, int) {
	n1, thousands := readInt(s, 1, 2, 0, 10, 0)
	if n1 < 0 || n1 >= len(s) || s[n1] != ',' {
		return -1, old
	}
	n2, units := readInt(s[n1+1:], 3, 3, 0, 999, 0)
	if n2 < 0 {
		return -1, old
	}
	return n1 + 1 + n2, thousands*1000 + units
}

// readMonthName reads an English month name (or its first three letters
// for MON) in any case.
func readMonthName(s string, abbrev bool, old int) (int, int) {
	for i, name := range castMonthNames {
		if abbrev {
			name = name[:3]
		}
		if hasPrefixFold(s, name) {
			return len(name), i + 1
		}
	}
	return -1, old
}

var castMonthNames = [12]string{"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE",
	"JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"}

// rrYear applies RR's century rule: two digits below 50 are in the current
// year's century if it is in its first half, else in the next one; digits
// from 50 up are in the previous century if the current year is in its
// century's first half, else in the same one.
func rrYear(current, yy int) int {
	century := current / 100
	switch {
	case yy < 50 && current%100 >= 50:
		century++
	case yy >= 50 && current%100 < 50:
		century--
	}
	return century*100 + yy
}

// result assembles the parsed fields into kind's representation.
func (p *castParts) result(kind Kind, loc *time.Location) (int64, error) {
	if p.hour12 != 0 {
		p.hour = p.hour12 % 12
		if p.pm {
			p.hour += 12
		}
	}
	// Years 0 and 10000 can be read (YYYY takes up to 10000), and become
	// valid TIMESTAMPs with an offset; anything further is out of range
	// whatever the offset, and is refused before it could overflow.
	if p.year < 0 || p.year > 10000 {
		return 0, castError("year %d is out of range", p.year)
	}
	if p.day > daysIn(p.year, p.month) {
		return 0, castError("%04d-%02d-%02d is not a date", p.year, p.month, p.day)
	}
	days := time.Date(p.year, time.Month(p.month), p.day, 0, 0, 0, 0, time.UTC).Unix() / 86400
	civil := days*Day + int64(p.hour)*Hour + int64(p.min)*Minute + int64(p.sec)*Second + p.micros

	us := civil
	switch {
	case kind == KindTimestamp && p.zoned:
		offset := int64(p.zoneHour)*Hour + int64(p.zoneMin)*Minute
		if offset > 14*Hour {
			return 0, castError("time zone offset %02d:%02d is out of range (at most 14:00)", p.zoneHour, p.zoneMin)
		}
		if p.zoneNeg {
			offset = -offset
		}
		us = civil - offset
	case kind == KindTimestamp:
		us = localToUTC(civil, loc)
	}
	if us < castMinMicros || us > castMaxMicros {
		return 0, castError("%s value out of range", kind)
	}
	switch kind {
	case KindDate:
		return days, nil
	case KindTime:
		return civil - days*Day, nil
	}
	return us, nil
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// localToUTC converts a civil time (µs, read as UTC) in loc to µs since the
// epoch. A time skipped by a forward transition, or repeated by a backward
// one, takes the offset in force before the transition (absl's "pre", which
// ZetaSQL uses): 02:30 on a spring-forward night is 03:30 daylight time,
// and 01:30 on a fall-back night is the first 01:30.
func localToUTC(civil int64, loc *time.Location) int64 {
	sec := floorDiv(civil, Second)
	offsetAt := func(t int64) int64 {
		_, off := time.Unix(t, 0).In(loc).Zone()
		return int64(off)
	}
	// Offsets a day either side of the civil time: a transition between
	// them is the only one that can affect it.
	before, after := offsetAt(sec-86400), offsetAt(sec+86400)
	t := sec - before
	if before != after && offsetAt(t) != before && offsetAt(sec-after) == after {
		t = sec - after // after the transition, where only the new offset fits
	}
	return civil + (t-sec)*Second
}

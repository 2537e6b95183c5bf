package types

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Microseconds in each fixed unit.
const (
	Microsecond int64 = 1
	Millisecond       = 1000 * Microsecond
	Second            = 1000 * Millisecond
	Minute            = 60 * Second
	Hour              = 60 * Minute
	Day               = 24 * Hour
)

// ErrBadTime is wrapped by every time-parsing error.
var ErrBadTime = errors.New("invalid time value")

// ParseTimestamp reads a timestamp as ingest takes one: a date, optionally
// followed by 'T' or ' ' and a time (seconds optional, up to nine
// fractional digits, beyond six truncated), optionally followed by 'Z', an
// offset such as +05:30 or -0700 (a space before it allowed), or a zone
// name. A value with no zone is UTC. The result is µs since the epoch.
func ParseTimestamp(s string) (int64, error) {
	us, _, err := parseCivil(strings.TrimSpace(s), true, false, false)
	return us, err
}

// CastTimestamp reads a TIMESTAMP as BigQuery's CAST and literals do, more
// strictly than ingest: a time has its seconds, at most six fractional
// digits, and no space before a numeric offset.
func CastTimestamp(s string) (int64, error) {
	us, _, err := parseCivil(strings.TrimSpace(s), true, true, false)
	return us, err
}

// ParseTimestampIn reads a TIMESTAMP as TIMESTAMP(string, time_zone) does:
// a zone written in s wins, else s is a civil time in loc.
func ParseTimestampIn(s string, loc *time.Location) (int64, error) {
	us, zoned, err := parseCivil(strings.TrimSpace(s), true, true, false)
	if err != nil || zoned {
		return us, err
	}
	return CivilIn(us, loc), nil
}

// CivilIn is the instant (µs since the epoch) at which the wall clocks of
// loc show the civil time us (µs of a DATETIME). A civil time a clock change
// skips or repeats takes the offset in effect before the change, as ZetaSQL
// resolves it (Go's time.Date takes the one after for a skipped time).
func CivilIn(us int64, loc *time.Location) int64 {
	c := time.UnixMicro(us).UTC()
	t := time.Date(c.Year(), c.Month(), c.Day(), c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), loc)
	if h, m, s := t.Clock(); h != c.Hour() || m != c.Minute() || s != c.Second() || t.Day() != c.Day() {
		_, off := t.Zone() // t lies before the change: its offset is the one before
		return us - int64(off)*Second
	}
	return t.UnixMicro()
}

// ParseDatetime reads a DATETIME (no zone allowed) as µs of its civil time.
// A leap second (:60) is the next minute's first, its fraction dropped.
func ParseDatetime(s string) (int64, error) {
	us, zoned, err := parseCivil(strings.TrimSpace(s), true, true, true)
	if err == nil && zoned {
		return 0, fmt.Errorf("%w: %q: a DATETIME has no time zone", ErrBadTime, s)
	}
	return us, err
}

// ParseDate reads a DATE as BigQuery does: YYYY-[M]M-[D]D, nothing around
// it (ZetaSQL refuses ' 2009-02-13' and '2009-02-13 ').
func ParseDate(s string) (int64, error) {
	days, rest, ok := parseCivilDate(s)
	if !ok || rest != "" {
		return 0, fmt.Errorf("%w: %q is not a date (YYYY-[M]M-[D]D)", ErrBadTime, s)
	}
	return days, nil
}

// parseCivilDate reads YYYY-[M]M-[D]D at the start of s: days since the
// epoch and what follows.
func parseCivilDate(s string) (days int64, rest string, ok bool) {
	var f [3]int64
	for i, width := range []int{4, 2, 2} {
		n := 0
		for n < len(s) && n < width && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || i == 0 && n != 4 {
			return 0, "", false
		}
		f[i], _ = digits(s[:n])
		s = s[n:]
		if i < 2 {
			if s == "" || s[0] != '-' {
				return 0, "", false
			}
			s = s[1:]
		}
	}
	y, m, d := f[0], f[1], f[2]
	if y < 1 || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, "", false
	}
	t := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
	if t.Day() != int(d) { // February 30th and the like
		return 0, "", false
	}
	return floorDiv(t.Unix(), 86400), s, true
}

// parseCivil reads YYYY-[M]M-[D]D[( |T)[H]H:[M]M[:[S]S[.F…]]][zone], the
// zone (with allowZone) Z, UTC, an offset (+H, +HH, +HH:MM, +HHMM) or a
// name such as America/Los_Angeles, after optional spaces. A leap second
// (:60) is the next minute's first; with civil (a DATETIME, as ZetaSQL's
// ConvertStringToDatetime and TIME's) its fraction is dropped, while a
// TIMESTAMP keeps it (ConvertStringToTimestamp adds it to the next minute).
func parseCivil(s string, allowZone, strict, civil bool) (us int64, zoned bool, err error) {
	bad := func() (int64, bool, error) {
		return 0, false, fmt.Errorf("%w: %q is not a timestamp (expected e.g. 2024-01-02T15:04:05Z)", ErrBadTime, s)
	}
	days, rest, ok := parseCivilDate(s)
	if !ok {
		return bad()
	}
	us = days * Day
	if rest == "" {
		return us, false, nil
	}
	if rest[0] == 'T' || rest[0] == 't' || rest[0] == ' ' {
		rest = rest[1:]
		// [H]H:[M]M[:[S]S[.fffffffff]]
		num := func(max int64) (int64, bool) {
			n := 0
			for n < len(rest) && n < 2 && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			v, ok := digits(rest[:n])
			rest = rest[n:]
			return v, ok && v <= max
		}
		hh, ok1 := num(23)
		if !ok1 || rest == "" || rest[0] != ':' {
			return bad()
		}
		rest = rest[1:]
		mm, ok2 := num(59)
		if !ok2 {
			return bad()
		}
		var ss int64
		if rest != "" && rest[0] == ':' {
			rest = rest[1:]
			var ok bool
			if ss, ok = num(60); !ok {
				return bad()
			}
		} else if strict {
			return bad() // BigQuery's [H]H:[M]M:[S]S
		}
		var frac int64
		if rest != "" && rest[0] == '.' {
			n := 1
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			f := rest[1:n]
			if len(f) == 0 || len(f) > 9 || strict && len(f) > 6 {
				return bad()
			}
			for len(f) < 6 {
				f += "0"
			}
			frac, _ = digits(f[:6]) // ingest truncates nanoseconds to µs
			rest = rest[n:]
		}
		if ss == 60 && civil {
			frac = 0
		}
		us += hh*Hour + mm*Minute + ss*Second + frac
	}
	if z := strings.TrimLeft(rest, " "); strict && z != rest && z != "" && (z[0] == '+' || z[0] == '-') {
		return bad() // an offset follows the time directly
	}
	zone := strings.TrimSpace(rest)
	switch {
	case zone == "":
		if rest != "" { // spaces after a date and nothing else
			return bad()
		}
		return us, false, nil
	case !allowZone:
		return bad()
	case zone == "Z" || zone == "z":
		return us, true, nil
	}
	loc, err := LoadLocation(zone)
	if err != nil {
		return bad()
	}
	return CivilIn(us, loc), true, nil
}

func digits(s string) (int64, bool) {
	var n int64
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ToTime converts µs since the epoch to a time.Time in UTC.
func ToTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

// FormatTimestamp renders a TIMESTAMP as BigQuery prints one:
// "2006-01-02 15:04:05[.ffffff] UTC".
func FormatTimestamp(us int64) string {
	t := ToTime(us)
	if us%Second != 0 {
		return t.Format("2006-01-02 15:04:05.000000 UTC")
	}
	return t.Format("2006-01-02 15:04:05 UTC")
}

// FormatDatetime renders a DATETIME as "2006-01-02T15:04:05", with ".ffffff"
// only when the fraction is non-zero (Logflare's encoding, which Studio reads).
func FormatDatetime(us int64) string {
	t := ToTime(us)
	if us%Second != 0 {
		return t.Format("2006-01-02T15:04:05.000000")
	}
	return t.Format("2006-01-02T15:04:05")
}

// ParseTime reads a TIME as BigQuery casts a STRING: [H]H:[M]M:[S]S with
// up to six fractional digits, seconds required, nothing around it; a
// leap second (:60) is the next second, 23:59:60 midnight.
func ParseTime(s string) (int64, error) {
	bad := fmt.Errorf("%w: %q is not a time ([H]H:[M]M:[S]S[.ffffff])", ErrBadTime, s)
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 {
		return 0, bad
	}
	sec, frac, hasFrac := strings.Cut(parts[2], ".")
	var f [3]int64
	for i, p := range []string{parts[0], parts[1], sec} {
		if len(p) < 1 || len(p) > 2 || !allDigits(p) {
			return 0, bad
		}
		f[i], _ = strconv.ParseInt(p, 10, 64)
	}
	if f[0] > 23 || f[1] > 59 || f[2] > 60 || hasFrac && (len(frac) < 1 || len(frac) > 6 || !allDigits(frac)) {
		return 0, bad
	}
	us := f[0]*Hour + f[1]*Minute + f[2]*Second
	if hasFrac && f[2] < 60 { // a leap second's fraction is dropped, as BigQuery does
		x, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
		us += x
	}
	return us % Day, nil
}

// FormatTime renders a TIME as "15:04:05", with ".ffffff" when not whole.
func FormatTime(us int64) string { return FormatDatetime(us)[len("1970-01-01T"):] }

// narrowFraction shortens a ".ffffff" fraction ending in 000 to ".fff", as
// BigQuery's CAST to STRING writes whole milliseconds.
func narrowFraction(text string, us int64) string {
	if us%Second != 0 && us%Millisecond == 0 {
		if i := strings.LastIndexByte(text, '.'); i >= 0 && i+7 <= len(text) {
			return text[:i+4] + text[i+7:]
		}
	}
	return text
}

// FormatDate renders a DATE as "2006-01-02".
func FormatDate(days int64) string { return ToTime(days * Day).Format("2006-01-02") }

// DatePart is a unit named in TIMESTAMP_TRUNC, INTERVAL literals and the like.
type DatePart uint8

// The date parts logq understands.
const (
	PartInvalid DatePart = iota
	PartMicrosecond
	PartMillisecond
	PartSecond
	PartMinute
	PartHour
	PartDay
	PartWeek
	PartMonth
	PartQuarter
	PartYear
	// Weeks starting on another day than Sunday (WEEK(MONDAY) …), ISO
	// weeks (starting on Monday) and ISO years (starting on the Monday of
	// the week holding 4 January): calendar parts for truncation,
	// differences, EXTRACT and LAST_DAY, not for adding.
	PartWeekMonday
	PartWeekTuesday
	PartWeekWednesday
	PartWeekThursday
	PartWeekFriday
	PartWeekSaturday
	PartISOWeek
	PartISOYear
)

var partNames = map[string]DatePart{
	"MICROSECOND": PartMicrosecond, "MILLISECOND": PartMillisecond, "SECOND": PartSecond,
	"MINUTE": PartMinute, "HOUR": PartHour, "DAY": PartDay, "WEEK": PartWeek,
	"MONTH": PartMonth, "QUARTER": PartQuarter, "YEAR": PartYear,
	"WEEK(SUNDAY)": PartWeek, "WEEK(MONDAY)": PartWeekMonday, "WEEK(TUESDAY)": PartWeekTuesday,
	"WEEK(WEDNESDAY)": PartWeekWednesday, "WEEK(THURSDAY)": PartWeekThursday,
	"WEEK(FRIDAY)": PartWeekFriday, "WEEK(SATURDAY)": PartWeekSaturday,
	"ISOWEEK": PartISOWeek, "ISOYEAR": PartISOYear,
}

// WeekStart is the first day of the weeks a week part counts (WEEK:
// Sunday; ISOWEEK: Monday), and whether p is such a part.
func (p DatePart) WeekStart() (time.Weekday, bool) {
	switch {
	case p == PartWeek:
		return time.Sunday, true
	case p >= PartWeekMonday && p <= PartWeekSaturday:
		return time.Weekday(p - PartWeekMonday + 1), true
	case p == PartISOWeek:
		return time.Monday, true
	}
	return 0, false
}

// ISOYearStart is the first day (µs at midnight) of the ISO year holding
// the civil day of us: the Monday of the week that holds 4 January.
func ISOYearStart(us int64) int64 {
	y, _ := ToTime(us).ISOWeek()
	jan4 := time.Date(y, 1, 4, 0, 0, 0, 0, time.UTC)
	return jan4.AddDate(0, 0, -((int(jan4.Weekday()) + 6) % 7)).UnixMicro()
}

// ParseDatePart reads a unit name, case-insensitively.
func ParseDatePart(s string) (DatePart, bool) {
	p, ok := partNames[strings.ToUpper(s)]
	return p, ok
}

func (p DatePart) String() string {
	name := "INVALID"
	for k, v := range partNames {
		if v == p && (name == "INVALID" || len(k) < len(name)) { // WEEK, not WEEK(SUNDAY)
			name = k
		}
	}
	return name
}

// FixedMicros returns the length of a fixed-length unit (MICROSECOND to DAY,
// DAY being 24 hours in UTC), or 0 for calendar units.
func (p DatePart) FixedMicros() int64 {
	switch p {
	case PartMicrosecond:
		return Microsecond
	case PartMillisecond:
		return Millisecond
	case PartSecond:
		return Second
	case PartMinute:
		return Minute
	case PartHour:
		return Hour
	case PartDay:
		return Day
	}
	return 0
}

// TruncMicros truncates µs since the epoch (TIMESTAMP in UTC, or a DATETIME's
// civil µs) to the start of its unit. WEEK starts on Sunday, as in BigQuery,
// WEEK(<day>) on that day, ISOWEEK on Monday, ISOYEAR on its first Monday.
func TruncMicros(us int64, p DatePart) int64 {
	if w := p.FixedMicros(); w > 0 {
		return floorDiv(us, w) * w
	}
	t := ToTime(us)
	y, m, d := t.Date()
	if start, ok := p.WeekStart(); ok {
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return day.AddDate(0, 0, -((int(day.Weekday()) - int(start) + 7) % 7)).UnixMicro()
	}
	switch p {
	case PartISOYear:
		return ISOYearStart(us)
	case PartMonth:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	case PartQuarter:
		return time.Date(y, m-(m-1)%3, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	case PartYear:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	}
	return us
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// LoadLocation resolves a time zone name or offset such as "UTC",
// "America/New_York" or "+05:30", as DATETIME(ts, tz) accepts.
func LoadLocation(name string) (*time.Location, error) {
	if name == "" || strings.TrimSpace(name) != name {
		return nil, fmt.Errorf("%w: invalid time zone %q", ErrBadTime, name)
	}
	if strings.EqualFold(name, "UTC") || name == "Z" {
		return time.UTC, nil
	}
	off := name
	if len(off) > 3 && strings.EqualFold(off[:3], "UTC") && (off[3] == '+' || off[3] == '-') {
		off = off[3:] // UTC+3
	}
	if off != "" && (off[0] == '+' || off[0] == '-') {
		// [UTC]±H[H][[:]M[M]], as ZetaSQL reads an offset zone.
		hs, ms, colon := strings.Cut(off[1:], ":")
		if !colon && len(hs) > 2 {
			hs, ms = hs[:len(hs)-2], hs[len(hs)-2:]
		}
		if ms == "" && !colon {
			ms = "00"
		}
		h, ok1 := digits(hs)
		m, ok2 := digits(ms)
		if len(hs) >= 1 && len(hs) <= 2 && len(ms) >= 1 && len(ms) <= 2 && ok1 && ok2 && h <= 14 && m < 60 {
			secs := int(h*3600 + m*60)
			if off[0] == '-' {
				secs = -secs
			}
			return time.FixedZone(name, secs), nil
		}
	}
	if loc, ok := loadedZones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	// "Local" is Go's name for the server's own zone, and "localtime" the
	// host's file of it, no zone of the database: a query's answer must
	// not depend on where logq runs.
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" || name == "localtime" {
		return nil, fmt.Errorf("%w: unknown time zone %q", ErrBadTime, name)
	}
	loadedZones.Store(name, loc)
	return loc, nil
}

// loadedZones keeps the IANA zones loaded: functions given a zone load it
// for every row, and time.LoadLocation reads and parses the zone data each
// time (~12 µs). Only known names are kept, so it stays as small as the
// zone database.
var loadedZones sync.Map

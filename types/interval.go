package types

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// An INTERVAL, as BigQuery has it, is three independent parts: months,
// days and microseconds (a month is not 30 days, a day not 24 hours, until
// JUSTIFY_* says so). Each part has its own range: 10,000 years of months,
// 366·10,000 days, and as many days' worth of microseconds. A value keeps
// its months and days in Value.Months and Value.Days and its microseconds
// in Value.I. Intervals compare, group and sort by one number, with a
// month as 30 days and a day as 24 hours (INTERVAL 1 MONTH = INTERVAL 30
// DAY), as BigQuery compares them.

// The bounds of an INTERVAL's parts.
const (
	MaxIntervalMonths = 12 * 10000
	MaxIntervalDays   = 366 * 10000
	MaxIntervalMicros = MaxIntervalDays * Day
)

// ErrIntervalOverflow is wrapped by every INTERVAL result out of range.
var ErrIntervalOverflow = errors.New("interval overflow")

// IntervalOf makes an INTERVAL of its three parts, or an overflow error.
func IntervalOf(months, days, micros int64) (Value, error) {
	if months < -MaxIntervalMonths || months > MaxIntervalMonths || days < -MaxIntervalDays || days > MaxIntervalDays ||
		micros < -MaxIntervalMicros || micros > MaxIntervalMicros {
		return Value{}, fmt.Errorf("%w: an INTERVAL part is out of range", ErrIntervalOverflow)
	}
	return Value{T: Interval, Months: int32(months), Days: int32(days), I: micros}, nil
}

// IntervalMicros is an INTERVAL as one number of microseconds, a month as
// 30 days and a day as 24 hours: what intervals compare by. It fits an
// INT64 (3 × 3.2·10¹⁷ at most).
func (v Value) IntervalMicros() int64 {
	return int64(v.Months)*30*Day + int64(v.Days)*Day + v.I
}

// FormatInterval writes an INTERVAL as BigQuery's canonical text:
// [-]Y-M [-]D [-]H:M:S[.fff[fff]] (fractions of a second in groups of three
// digits).
func FormatInterval(v Value) string {
	var b strings.Builder
	months := int64(v.Months)
	if months < 0 {
		b.WriteByte('-')
		months = -months
	}
	fmt.Fprintf(&b, "%d-%d %d ", months/12, months%12, v.Days)
	us := v.I
	if us < 0 {
		b.WriteByte('-')
		us = -us
	}
	fmt.Fprintf(&b, "%d:%d:%d", us/Hour, us%Hour/Minute, us%Minute/Second)
	if frac := us % Second; frac != 0 {
		if frac%1000 == 0 {
			fmt.Fprintf(&b, ".%03d", frac/1000)
		} else {
			fmt.Fprintf(&b, ".%06d", frac)
		}
	}
	return b.String()
}

// ParseInterval reads an INTERVAL as CAST from STRING does: the canonical
// text (Y-M D H:M:S[.f]) or ISO 8601 (P1Y2M3DT4H5M6.5S, each number signed;
// PT alone is zero, P alone nothing), with no space around it (ZetaSQL
// refuses ' 0-0 0' and '1:2:3 ').
func ParseInterval(s string) (Value, error) {
	var v Value
	var err error
	if strings.HasPrefix(s, "P") || strings.HasPrefix(s, "p") {
		v, err = parseISOInterval(s[1:])
	} else if from, to, ok := intervalForm(s); ok {
		v, err = ParseIntervalParts(s, from, to)
	} else {
		err = ErrBadCast
	}
	if err != nil {
		if errors.Is(err, ErrIntervalOverflow) {
			return Value{}, err
		}
		return Value{}, fmt.Errorf("%w: %q is not an INTERVAL", ErrBadCast, s)
	}
	return v, nil
}

// intervalForm tells which fields a canonical interval text holds from
// its spaces, colons and dashes after a digit (a dash before one is a
// sign), as BigQuery reads it: Y-M D H:M:S, Y-M D H:M, Y-M D H, Y-M D,
// Y-M, M D H, M D H:M, M D H:M:S, D H:M, D H:M:S or H:M:S.
func intervalForm(s string) (from, to DatePart, ok bool) {
	spaces, colons, dashes := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ' ':
			spaces++
		case s[i] == ':':
			colons++
		case s[i] == '-' && i > 0 && s[i-1] >= '0' && s[i-1] <= '9':
			dashes++
		}
	}
	forms := map[[3]int][2]DatePart{
		{2, 2, 1}: {PartYear, PartSecond}, {2, 1, 1}: {PartYear, PartMinute}, {2, 0, 1}: {PartYear, PartHour},
		{1, 0, 1}: {PartYear, PartDay}, {0, 0, 1}: {PartYear, PartMonth}, {2, 0, 0}: {PartMonth, PartHour},
		{2, 1, 0}: {PartMonth, PartMinute}, {2, 2, 0}: {PartMonth, PartSecond}, {1, 1, 0}: {PartDay, PartMinute},
		{1, 2, 0}: {PartDay, PartSecond}, {0, 2, 0}: {PartHour, PartSecond},
	}
	f, ok := forms[[3]int{spaces, colons, dashes}]
	return f[0], f[1], ok
}

// intervalFields are the parts of the canonical text, in order, with the
// separator written before each (after the first).
var intervalFields = []struct {
	part DatePart
	sep  byte
}{{PartYear, 0}, {PartMonth, '-'}, {PartDay, ' '}, {PartHour, ' '}, {PartMinute, ':'}, {PartSecond, ':'}}

// ParseIntervalParts reads the text of `INTERVAL 'text' from TO to` (from
// = to for `INTERVAL 'text' part`): the canonical text's fields from from
// to to, e.g. 'H:M:S' for HOUR TO SECOND. A sign may lead the year-month
// group, the day and the hour-minute-second group (or the first field
// written of a group); the seconds may have up to six fractional digits.
// A single part may also be WEEK, QUARTER or MILLISECOND/MICROSECOND.
func ParseIntervalParts(s string, from, to DatePart) (Value, error) {
	s = strings.TrimSpace(s)
	if from == to {
		return parseIntervalPart(s, from)
	}
	first, last := -1, -1
	for i, f := range intervalFields {
		if f.part == from {
			first = i
		}
		if f.part == to {
			last = i
		}
	}
	if first < 0 || last <= first {
		return Value{}, fmt.Errorf("%w: INTERVAL … %s TO %s is not a valid range", ErrBadCast, from, to)
	}
	bad := fmt.Errorf("%w: %q does not match INTERVAL … %s TO %s", ErrBadCast, s, from, to)
	over := fmt.Errorf("%w: %q is out of range", ErrIntervalOverflow, s)
	var months, days, micros int64
	ymNeg, hmsNeg := false, false
	for i := first; i <= last; i++ {
		f := intervalFields[i]
		if i > first {
			if s == "" || s[0] != f.sep {
				return Value{}, bad
			}
			s = s[1:]
		}
		groupStart := i == first || f.part == PartDay || f.part == PartHour
		neg := false
		if groupStart && s != "" && (s[0] == '-' || s[0] == '+') {
			neg = s[0] == '-'
			s = s[1:]
		}
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 18 {
			return Value{}, bad
		}
		x, _ := strconv.ParseInt(s[:n], 10, 64)
		s = s[n:]
		var frac int64
		if f.part == PartSecond && s != "" && s[0] == '.' {
			m := 1
			for m < len(s) && s[m] >= '0' && s[m] <= '9' {
				m++
			}
			digits := s[1:m]
			if digits == "" || len(digits) > 6 {
				return Value{}, bad
			}
			frac, _ = strconv.ParseInt((digits + "000000")[:6], 10, 64)
			s = s[m:]
		}
		switch f.part {
		case PartYear, PartMonth:
			if f.part == PartYear || i == first {
				ymNeg = neg
			}
			k := int64(1)
			if f.part == PartYear {
				k = 12
			}
			if x > MaxIntervalMonths/k {
				return Value{}, over
			}
			months += x * k
		case PartDay:
			if neg {
				x = -x
			}
			days = x
		default:
			if f.part == PartHour || i == first {
				hmsNeg = neg
			}
			if x > MaxIntervalMicros/f.part.FixedMicros() {
				return Value{}, over
			}
			micros += x*f.part.FixedMicros() + frac
		}
		if micros > MaxIntervalMicros || months > MaxIntervalMonths || days > MaxIntervalDays || days < -MaxIntervalDays {
			return Value{}, over
		}
	}
	if s != "" {
		return Value{}, bad
	}
	if ymNeg {
		months = -months
	}
	if hmsNeg {
		micros = -micros
	}
	return IntervalOf(months, days, micros)
}

// parseIntervalPart reads `INTERVAL 'n' part`: a signed integer (with a
// fraction for SECOND).
func parseIntervalPart(s string, part DatePart) (Value, error) {
	bad := fmt.Errorf("%w: %q is not a number of %ss", ErrBadCast, s, part)
	if part == PartSecond && strings.Contains(s, ".") {
		us, err := parseSecondsMicros(s)
		if err != nil {
			return Value{}, bad
		}
		return IntervalOf(0, 0, us)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return Value{}, bad
	}
	return IntervalOfPart(n, part)
}

// IntervalOfPart is `INTERVAL n part`.
func IntervalOfPart(n int64, part DatePart) (Value, error) {
	mul := func(k int64) (int64, error) {
		r := new(big.Int).Mul(big.NewInt(n), big.NewInt(k))
		if !r.IsInt64() {
			return 0, fmt.Errorf("%w: INTERVAL %d %s is out of range", ErrIntervalOverflow, n, part)
		}
		return r.Int64(), nil
	}
	var err error
	var m, d, us int64
	switch part {
	case PartYear:
		m, err = mul(12)
	case PartQuarter:
		m, err = mul(3)
	case PartMonth:
		m = n
	case PartWeek:
		d, err = mul(7)
	case PartDay:
		d = n
	default:
		if part.FixedMicros() == 0 {
			return Value{}, fmt.Errorf("%w: INTERVAL … %s is not a part of an interval", ErrBadCast, part)
		}
		us, err = mul(part.FixedMicros())
	}
	if err != nil {
		return Value{}, err
	}
	v, err := IntervalOf(m, d, us)
	if err != nil {
		return Value{}, fmt.Errorf("%w: INTERVAL %d %s is out of range", ErrIntervalOverflow, n, part)
	}
	return v, nil
}

// parseISOInterval reads ISO 8601's duration after its P: nY nM nW nD,
// then T and nH nM n[.f]S, each number signed; the seconds' fraction may
// follow a comma, as ISO 8601 allows (and ZetaSQL reads).
func parseISOInterval(s string) (Value, error) {
	bad := errors.New("bad ISO 8601 duration")
	whole := "P" + s
	var months, days, micros int64
	inTime, any := false, false
	for s != "" {
		if s[0] == 'T' || s[0] == 't' {
			if inTime {
				return Value{}, bad
			}
			inTime = true
			s = s[1:]
			continue
		}
		n := 0
		if n < len(s) && (s[n] == '-' || s[n] == '+') {
			n++
		}
		for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.' || s[n] == ',') {
			n++
		}
		if n == len(s) || n == 0 {
			return Value{}, bad
		}
		num, unit := s[:n], s[n]|0x20
		s = s[n+1:]
		any = true
		if unit == 's' && inTime {
			// ZetaSQL's (\d+)([.,](\d+))?: digits on both sides of the point.
			whole, frac, point := strings.Cut(strings.TrimLeft(num, "+-"), ".")
			if !point {
				whole, frac, point = strings.Cut(whole, ",")
			}
			if whole == "" || point && frac == "" {
				return Value{}, bad
			}
			us, err := parseSecondsMicros(strings.Replace(num, ",", ".", 1))
			if err != nil {
				return Value{}, bad
			}
			micros += us
			continue
		}
		x, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return Value{}, bad
		}
		// add adds x·k to a part, or fails past any interval's range
		// (so that nothing wraps).
		add := func(part *int64, k, limit int64) error {
			if x > limit/k || x < -limit/k {
				return fmt.Errorf("%w: %q is out of range", ErrIntervalOverflow, whole)
			}
			*part += x * k
			return nil
		}
		switch {
		case unit == 'y' && !inTime:
			err = add(&months, 12, MaxIntervalMonths)
		case unit == 'm' && !inTime:
			err = add(&months, 1, MaxIntervalMonths)
		case unit == 'w' && !inTime:
			err = add(&days, 7, MaxIntervalDays)
		case unit == 'd' && !inTime:
			err = add(&days, 1, MaxIntervalDays)
		case unit == 'h' && inTime:
			err = add(&micros, Hour, MaxIntervalMicros)
		case unit == 'm' && inTime:
			err = add(&micros, Minute, MaxIntervalMicros)
		default:
			return Value{}, bad
		}
		if err != nil {
			return Value{}, err
		}
	}
	if !any && !inTime {
		return Value{}, bad
	}
	return IntervalOf(months, days, micros)
}

// parseSecondsMicros reads a signed number of seconds with up to six
// fractional digits as microseconds.
func parseSecondsMicros(num string) (int64, error) {
	neg := strings.HasPrefix(num, "-")
	num = strings.TrimLeft(num, "+-")
	whole, frac, _ := strings.Cut(num, ".")
	if whole == "" && frac == "" || len(frac) > 6 || !allDigits(whole) || !allDigits(frac) {
		return 0, errors.New("bad seconds")
	}
	w, err := strconv.ParseInt("0"+whole, 10, 64)
	if err != nil || w > MaxIntervalMicros/Second {
		return 0, errors.New("bad seconds")
	}
	f, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	us := w*Second + f
	if neg {
		us = -us
	}
	return us, nil
}

// IntervalDiv divides an interval given by its parts (the microseconds
// may be past an interval's range, as a SUM's are) by n, as BigQuery
// divides one and averages many: what the months leave over goes on as
// days (30 a month), what the days leave over as microseconds (24 hours a
// day), each quotient truncated toward zero.
func IntervalDiv(months, days int64, micros *big.Int, n int64) (Value, error) {
	if n == 0 {
		return Value{}, errors.New("interval division by zero")
	}
	m := months / n
	d := days + months%n*30
	us := new(big.Int).Mul(big.NewInt(d%n), big.NewInt(Day))
	us.Add(us, micros)
	us.Quo(us, big.NewInt(n))
	if !us.IsInt64() {
		return Value{}, fmt.Errorf("%w: interval division", ErrIntervalOverflow)
	}
	return IntervalOf(m, d/n, us.Int64())
}

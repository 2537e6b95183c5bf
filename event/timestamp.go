package event

import (
	"strconv"

	"logq/types"
)

// ParseTime reads an event's timestamp: an ISO 8601 string, or an
// integer of seconds, milliseconds, microseconds or nanoseconds (10, 13, 16 or
// 19 digits). It reports false when the value is missing or unreadable.
func ParseTime(raw []byte) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] == '"' {
		sc := Scanner{b: raw}
		s, err := sc.Str()
		if err != nil {
			return 0, false
		}
		us, err := types.ParseTimestamp(string(s))
		return us, err == nil
	}
	digits := raw
	neg := false
	if len(digits) > 0 && digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			if f, err := strconv.ParseFloat(string(raw), 64); err == nil && !neg {
				return int64(f * 1e6), true // fractional seconds
			}
			return 0, false
		}
	}
	v, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, false
	}
	switch len(digits) {
	case 10:
		return v * 1_000_000, true
	case 13:
		return v * 1000, true
	case 16:
		return v, true
	case 19:
		return v / 1000, true
	}
	return 0, false
}

// ParseInt reads a JSON integer token without allocating.
func ParseInt(tok []byte) (int64, bool) {
	all := tok
	neg := len(tok) > 0 && tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	if len(tok) == 0 || len(tok) > 18 {
		if len(tok) > 18 {
			// with its sign: -9223372036854775808 is an INT64, its
			// magnitude is not
			v, err := strconv.ParseInt(string(all), 10, 64)
			return v, err == nil
		}
		return 0, false
	}
	var v int64
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

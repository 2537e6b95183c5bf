package sqlfunc

import (
	"fmt"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// TIME, a time of day: µs since midnight, in [0, 24h). It is read as a
// DATETIME on 1970-01-01 where that serves (EXTRACT, FORMAT_TIME,
// PARSE_TIME), and its arithmetic wraps around midnight, as BigQuery's.
func registerTimeOfDayFuncs() {
	// TIME(hour, minute, second), TIME(timestamp [, time_zone]) and
	// TIME(datetime).
	expr.Register("time", def(1, 3, checkTime, evalTime, false))
	// TIME_ADD and TIME_SUB wrap around midnight.
	addSub := func(sign int64) *expr.Func {
		return def(2, 2, func(c *expr.Call) (types.Type, error) {
			t, err := expr.CoerceTo(c.Args[0], types.Time)
			if err != nil {
				return types.Type{}, fmt.Errorf("argument 1 of %s: %w", strings.ToUpper(c.Fn), err)
			}
			c.Args[0] = t
			k, isConst := c.Args[1].(*expr.Const)
			if t := c.Args[1].Type().Kind; expr.IsCalendarUnit(c.Unit) || t != types.KindInterval && t != types.KindNull ||
				isConst && (k.V.Months != 0 || k.V.Days != 0) {
				return types.Type{}, fmt.Errorf("argument 2 of %s must be an INTERVAL from MICROSECOND to HOUR", strings.ToUpper(c.Fn))
			}
			return types.Time, nil
		}, func(c *expr.Call, a []types.Value) (types.Value, error) {
			if a[1].Months != 0 || a[1].Days != 0 {
				return types.Value{}, expr.EvalErr("%s takes an INTERVAL from MICROSECOND to HOUR, not %s", strings.ToUpper(c.Fn), a[1])
			}
			d := a[1].I
			return timeOfDay(a[0].I + sign*(d%types.Day)), nil // whole days change nothing
		}, false)
	}
	expr.Register("time_add", addSub(1))
	expr.Register("time_sub", addSub(-1))
	expr.Register("time_diff", def(2, 2, checkTimeDiff, evalTimeDiff, false))
	expr.Register("time_trunc", def(1, 1, checkTimeTrunc, evalTimeTrunc, false))
	expr.Register("format_time", formatCivil(types.KindTime, false))
	parseTime := parseCivilFunc("PARSE_TIME", types.Time, func(us int64) types.Value {
		return timeOfDay(us) // the time of day of what was read
	})
	check := parseTime.Check
	parseTime.Check = func(c *expr.Call) (types.Type, error) {
		if k, ok := c.Args[0].(*expr.Const); ok && !k.V.Null {
			if el := dateElement(k.V.S); el != "" {
				return types.Type{}, fmt.Errorf("invalid format: %%%s is not allowed for the TIME type", el)
			}
		}
		return check(c)
	}
	expr.Register("parse_time", parseTime)
}

func checkTime(c *expr.Call) (types.Type, error) {
	switch {
	case len(c.Args) == 3:
		if _, err := sig(types.KindInt64, types.KindTime)(c); err != nil {
			return types.Type{}, err
		}
	case len(c.Args) == 2:
		if k := c.Args[0].Type().Kind; k != types.KindTimestamp && k != types.KindNull {
			return types.Type{}, fmt.Errorf("TIME(x, time_zone) needs a TIMESTAMP, not %s", c.Args[0].Type())
		}
		if err := zoneArg(c, "TIME"); err != nil {
			return types.Type{}, err
		}
	default:
		switch k := c.Args[0].Type().Kind; k {
		case types.KindTimestamp, types.KindDatetime, types.KindTime, types.KindNull:
		default:
			return types.Type{}, fmt.Errorf("TIME needs a TIMESTAMP or DATETIME, not %s", c.Args[0].Type())
		}
	}
	return types.Time, nil
}

func evalTime(c *expr.Call, a []types.Value) (types.Value, error) {
	switch len(a) {
	case 3:
		h, m, s := a[0].I, a[1].I, a[2].I
		if h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59 {
			return types.Value{}, expr.EvalErr("TIME(%d, %d, %d) is not a valid time", h, m, s)
		}
		return timeOfDay(h*types.Hour + m*types.Minute + s*types.Second), nil
	case 2:
		loc, err := types.LoadLocation(a[1].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		return clockOf(types.ToTime(a[0].I).In(loc)), nil
	}
	return types.Cast(a[0], types.Time)
}

func checkTimeDiff(c *expr.Call) (types.Type, error) {
	if _, err := sig(types.KindTime, types.KindInt64)(c); err != nil {
		return types.Type{}, err
	}
	if !timeUnit(c.Unit) {
		return types.Type{}, fmt.Errorf("TIME_DIFF needs a unit from MICROSECOND to HOUR")
	}
	return types.Int64, nil
}

func evalTimeDiff(c *expr.Call, a []types.Value) (types.Value, error) {
	w := c.Unit.FixedMicros() // unit boundaries crossed, as BigQuery counts
	return types.IntValue(a[0].I/w - a[1].I/w), nil
}

func checkTimeTrunc(c *expr.Call) (types.Type, error) {
	t, err := expr.CoerceTo(c.Args[0], types.Time)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 1 of TIME_TRUNC: %w", err)
	}
	c.Args[0] = t
	if !timeUnit(c.Unit) {
		return types.Type{}, fmt.Errorf("TIME_TRUNC needs a unit from MICROSECOND to HOUR")
	}
	return types.Time, nil
}

func evalTimeTrunc(c *expr.Call, a []types.Value) (types.Value, error) {
	w := c.Unit.FixedMicros()
	return timeOfDay(a[0].I / w * w), nil
}

// timeOfDay is the TIME us µs after a midnight, wrapped into [0, 24h).
func timeOfDay(us int64) types.Value {
	us %= types.Day
	if us < 0 {
		us += types.Day
	}
	return types.Value{T: types.Time, I: us}
}

// clockOf is the time of day of t, as a TIME.
func clockOf(t time.Time) types.Value {
	return types.Value{T: types.Time, I: int64(t.Hour())*types.Hour + int64(t.Minute())*types.Minute + int64(t.Second())*types.Second + int64(t.Nanosecond()/1000)}
}

// timeUnit reports whether u is a unit of a TIME: MICROSECOND to HOUR.
func timeUnit(u types.DatePart) bool {
	w := u.FixedMicros()
	return w > 0 && w <= types.Hour
}

// timeFormatDateElements are the format elements of a date; FORMAT_TIME
// writes them as they are, PARSE_TIME refuses them (BigQuery's rules).
const timeFormatDateElements = "AaBbCcDdeFGgJjmQsUuVWwxYyZzh"

// elementEnd is the index of the letter that ends the element starting at
// f[i] (just after its %): past an E or O modifier and the digits or * of
// %E4Y and %E*S (the last byte of f when the element is cut short).
func elementEnd(f string, i int) int {
	if f[i] == 'E' || f[i] == 'O' {
		for i++; i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '*'); i++ {
		}
	}
	return min(i, len(f)-1)
}

// isDateElement reports whether the element ending at f[end] is a date's
// (%Y, %E4Y, %Ez; not %E*S).
func isDateElement(f string, end int) bool {
	return strings.IndexByte(timeFormatDateElements, f[end]) >= 0
}

// dateElement is the first date element of format f, or "".
func dateElement(f string) string {
	for i := 0; i+1 < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		end := elementEnd(f, i+1)
		if isDateElement(f, end) {
			return f[i+1 : end+1]
		}
		i = end
	}
	return ""
}

// escapeDateElements makes FORMAT_TIME write a format's date elements as
// they are: %Y becomes %%Y, %E4Y %%E4Y.
func escapeDateElements(f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		end := elementEnd(f, i+1)
		if isDateElement(f, end) {
			b.WriteByte('%')
		}
		b.WriteString(f[i : end+1])
		i = end
	}
	return b.String()
}

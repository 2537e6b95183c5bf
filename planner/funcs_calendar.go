package planner

import (
	"fmt"
	"strings"
	"time"

	"logq/types"
)

// Calendar intervals: INTERVAL n WEEK, MONTH, QUARTER or YEAR. logq's INTERVAL
// value is a fixed number of microseconds, which a month is not, so these
// never become a value: in a call of one of calendarAddFuncs the binder
// passes n as an INT64 argument and the unit in Call.Unit (bindCalendar),
// and the function does calendar arithmetic. As in BigQuery:
//
//   - DATE_ADD/SUB and DATETIME_ADD/SUB take WEEK (7 days), MONTH, QUARTER
//     and YEAR; adding months keeps the day of the month unless the new
//     month is shorter, then it is that month's last day (2024-01-31 plus
//     1 MONTH is 2024-02-29; 2024-02-29 plus 1 YEAR is 2025-02-28);
//   - TIMESTAMP_ADD/SUB take only MICROSECOND to DAY: a calendar unit is an
//     error at load;
//   - a result outside years 1 to 9999 is an error.
//
// Anywhere else (GENERATE_TIMESTAMP_ARRAY, …) a calendar INTERVAL is refused
// where it is written, as before.
var calendarAddFuncs = map[string]bool{
	"date_add": true, "date_sub": true, "datetime_add": true, "datetime_sub": true,
	"timestamp_add": true, "timestamp_sub": true, "generate_date_array": true,
}

// TakesCalendarUnit reports whether fn is one of calendarAddFuncs.
func TakesCalendarUnit(fn string) bool { return calendarAddFuncs[fn] }

func isCalendarUnit(u types.DatePart) bool {
	switch u {
	case types.PartWeek, types.PartMonth, types.PartQuarter, types.PartYear:
		return true
	}
	return false
}

// calendarCheck types argument 2 of an ADD/SUB call that carries a calendar
// unit; ok is false when the call has none (a plain INTERVAL argument).
func calendarCheck(c *Call, allowed bool) (ok bool, err error) {
	if !isCalendarUnit(c.Unit) {
		return false, nil
	}
	if !allowed {
		return true, fmt.Errorf("%s does not support INTERVAL … %s (only MICROSECOND to DAY); use DATETIME_ADD or DATE_ADD for calendar units",
			strings.ToUpper(c.Fn), c.Unit)
	}
	if k := c.Args[1].Type().Kind; k != types.KindInt64 && k != types.KindNull {
		return true, fmt.Errorf("argument 2 of %s must be an INTERVAL", strings.ToUpper(c.Fn))
	}
	return true, nil
}

// addCalendar adds n units (WEEK, MONTH, QUARTER, YEAR) to a civil time in
// microseconds (a DATETIME, or a DATE's midnight).
func addCalendar(us int64, unit types.DatePart, n int64) (int64, error) {
	if unit == types.PartWeek {
		if n > 10000*53 || n < -10000*53 {
			return 0, evalErr("date overflow: adding %d %s", n, unit)
		}
		return us + n*7*types.Day, nil // inRange checks the result
	}
	k := int64(1)
	switch unit {
	case types.PartQuarter:
		k = 3
	case types.PartYear:
		k = 12
	}
	if n > 12*10000/k || n < -12*10000/k { // checked before multiplying: no wrap-around
		return 0, evalErr("date overflow: adding %d %s", n, unit)
	}
	months := n * k
	t := types.ToTime(us)
	y, m, d := t.Date()
	total := int64(y)*12 + int64(m-1) + months
	ny, nm := int(floorDiv(total, 12)), time.Month(total-floorDiv(total, 12)*12+1)
	if ny < 1 || ny > 9999 {
		return 0, evalErr("date overflow: adding %d %s gives year %d", n, unit, ny)
	}
	if last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	r := time.Date(ny, nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	return r.UnixMicro(), nil
}

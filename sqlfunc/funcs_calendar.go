package sqlfunc

import (
	"fmt"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// calendarCheck types argument 2 of an ADD/SUB call that carries a calendar
// unit; ok is false when the call has none (a plain INTERVAL argument).
func calendarCheck(c *expr.Call, allowed bool) (ok bool, err error) {
	if !expr.IsCalendarUnit(c.Unit) {
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
			return 0, expr.EvalErr("date overflow: adding %d %s", n, unit)
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
		return 0, expr.EvalErr("date overflow: adding %d %s", n, unit)
	}
	months := n * k
	t := types.ToTime(us)
	y, m, d := t.Date()
	total := int64(y)*12 + int64(m-1) + months
	ny, nm := int(floorDiv(total, 12)), time.Month(total-floorDiv(total, 12)*12+1)
	if ny < 1 || ny > 9999 {
		return 0, expr.EvalErr("date overflow: adding %d %s gives year %d", n, unit, ny)
	}
	if last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	r := time.Date(ny, nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	return r.UnixMicro(), nil
}

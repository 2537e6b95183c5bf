package sqlfunc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// DATE_TRUNC, DATE_DIFF and FORMAT_TIMESTAMP. A DATE is days since the epoch.
func registerDateFuncs() {
	expr.Register("date_trunc", def(1, 1, checkDateTrunc, evalDateTrunc, false))
	expr.Register("date_diff", def(2, 2, checkDateDiff, evalDateDiff, false))
	expr.Register("date_add", dateAddSub(1))
	expr.Register("date_sub", dateAddSub(-1))
	expr.Register("format_date", formatCivil(types.KindDate, true))
	expr.Register("format_datetime", formatCivil(types.KindDatetime, false))
	expr.Register("format_timestamp", def(2, 3, checkFormatTimestamp, evalFormatTimestamp, false))
}

func dateArgs(n int) func(c *expr.Call) error {
	return func(c *expr.Call) error {
		for i := 0; i < n; i++ {
			a, err := expr.CoerceTo(c.Args[i], types.Date)
			if err != nil {
				return fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
			}
			c.Args[i] = a
		}
		return nil
	}
}

func calendarUnit(c *expr.Call) error {
	if _, week := c.Unit.WeekStart(); week || c.Unit == types.PartISOYear {
		return nil
	}
	switch c.Unit {
	case types.PartDay, types.PartMonth, types.PartQuarter, types.PartYear:
		return nil
	case types.PartInvalid:
		return fmt.Errorf("%s needs a unit such as MONTH as its last argument", strings.ToUpper(c.Fn))
	}
	return fmt.Errorf("%s takes DAY, WEEK[(<weekday>)], ISOWEEK, MONTH, QUARTER, YEAR or ISOYEAR, not %s", strings.ToUpper(c.Fn), c.Unit)
}

// DATE_ADD/DATE_SUB take INTERVAL n DAY, and the calendar units of
// funcs_calendar.go.
func dateAddSub(sign int64) *expr.Func {
	return def(2, 2, func(c *expr.Call) (types.Type, error) {
		if err := dateArgs(1)(c); err != nil {
			return types.Type{}, err
		}
		if cal, err := calendarCheck(c, true); cal || err != nil {
			return types.Date, err
		}
		if k := c.Args[1].Type().Kind; k != types.KindInterval && k != types.KindNull {
			return types.Type{}, fmt.Errorf("argument 2 of %s must be an INTERVAL such as INTERVAL 1 DAY", strings.ToUpper(c.Fn))
		}
		if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null && k.V.I%types.Day != 0 {
			return types.Type{}, fmt.Errorf("%s takes an interval of whole days, not %s", strings.ToUpper(c.Fn), k.V)
		}
		return types.Date, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if expr.IsCalendarUnit(c.Unit) {
			us, err := addCalendar(a[0].I*types.Day, c.Unit, sign*a[1].I)
			if err != nil {
				return types.Value{}, err
			}
			return expr.InRange(types.DateValue(us / types.Day))
		}
		d, err := fixedInterval(c, a[1])
		if err != nil {
			return types.Value{}, err
		}
		if d%types.Day != 0 {
			return types.Value{}, expr.EvalErr("%s takes an interval of whole days, not %s", strings.ToUpper(c.Fn), a[1])
		}
		// Days fit an int64 many times over: no wrap-around here.
		return expr.InRange(types.DateValue(a[0].I + sign*d/types.Day))
	}, false)
}

func checkDateTrunc(c *expr.Call) (types.Type, error) {
	if err := dateArgs(1)(c); err != nil {
		return types.Type{}, err
	}
	if err := calendarUnit(c); err != nil {
		return types.Type{}, err
	}
	return types.Date, nil
}

func evalDateTrunc(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.DateValue(types.TruncMicros(a[0].I*types.Day, c.Unit) / types.Day), nil
}

func checkDateDiff(c *expr.Call) (types.Type, error) {
	if err := dateArgs(2)(c); err != nil {
		return types.Type{}, err
	}
	if err := calendarUnit(c); err != nil {
		return types.Type{}, err
	}
	return types.Int64, nil
}

func evalDateDiff(c *expr.Call, a []types.Value) (types.Value, error) {
	return types.IntValue(dateDiff(a[0].I, a[1].I, c.Unit)), nil
}

func checkFormatTimestamp(c *expr.Call) (types.Type, error) {
	for i, k := range []types.Kind{types.KindString, types.KindTimestamp, types.KindString}[:len(c.Args)] {
		a, err := expr.CoerceTo(c.Args[i], types.Type{Kind: k})
		if err != nil {
			return types.Type{}, fmt.Errorf("argument %d of FORMAT_TIMESTAMP: %w", i+1, err)
		}
		c.Args[i] = a
	}
	if k, ok := c.Args[0].(*expr.Const); ok && !k.V.Null {
		if _, err := formatTime(k.V.S, time.Unix(0, 0).UTC()); err != nil {
			return types.Type{}, err
		}
	}
	return types.String, nil
}

func evalFormatTimestamp(c *expr.Call, a []types.Value) (types.Value, error) {
	t := types.ToTime(a[1].I)
	if len(a) == 3 {
		loc, err := types.LoadLocation(a[2].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		t = t.In(loc)
	}
	s, err := formatTime(a[0].S, t)
	if err != nil {
		return types.Value{}, err
	}
	return types.StringValue(s), nil
}

// formatTime formats t with BigQuery's format elements (a subset; any other
// element is an error).
func formatTime(f string, t time.Time) (string, error) {
	var b strings.Builder
	pad := func(v, w int) { b.WriteString(fmt.Sprintf("%0*d", w, v)) }
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 == len(f) {
			return "", expr.EvalErr("format string %q ends with a lone %%", f)
		}
		i++
		switch f[i] {
		case 'Y':
			pad(t.Year(), 4)
		case 'y':
			pad(t.Year()%100, 2)
		case 'C':
			pad(t.Year()/100, 2)
		case 'm':
			pad(int(t.Month()), 2)
		case 'd':
			pad(t.Day(), 2)
		case 'e':
			b.WriteString(fmt.Sprintf("%2d", t.Day()))
		case 'H':
			pad(t.Hour(), 2)
		case 'k':
			b.WriteString(fmt.Sprintf("%2d", t.Hour()))
		case 'I':
			pad((t.Hour()+11)%12+1, 2)
		case 'l':
			b.WriteString(fmt.Sprintf("%2d", (t.Hour()+11)%12+1))
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'P':
			if t.Hour() < 12 {
				b.WriteString("am")
			} else {
				b.WriteString("pm")
			}
		case 'c': // the date and time: Thu Dec 25 07:30:00 2008
			b.WriteString(t.Format(time.ANSIC))
		case 'x':
			b.WriteString(t.Format("01/02/06"))
		case 'X':
			b.WriteString(t.Format("15:04:05"))
		case 'Q':
			pad((int(t.Month())+2)/3, 1)
		case 'G', 'g', 'V', 'J':
			y, w := t.ISOWeek()
			switch f[i] {
			case 'G':
				pad(y, 4)
			case 'g':
				pad(y%100, 2)
			case 'V':
				pad(w, 2)
			default: // the day of the ISO year: whole weeks before, then Monday = 1
				pad((w-1)*7+(int(t.Weekday())+6)%7+1, 3)
			}
		case 'U': // weeks starting on Sunday; days before the first are week 0
			pad((t.YearDay()+6-int(t.Weekday()))/7, 2)
		case 'W': // weeks starting on Monday
			pad((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2)
		case 'M':
			pad(t.Minute(), 2)
		case 'S':
			pad(t.Second(), 2)
		case 'j':
			pad(t.YearDay(), 3)
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'u':
			pad((int(t.Weekday())+6)%7+1, 1)
		case 'w':
			pad(int(t.Weekday()), 1)
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			b.WriteString(t.Format("MST"))
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '%':
			b.WriteByte('%')
		case 'E':
			switch {
			case strings.HasPrefix(f[i:], "Ez"):
				b.WriteString(t.Format("-07:00"))
				i++
			case strings.HasPrefix(f[i:], "E4Y"): // four characters, 0001 to 9999
				pad(t.Year(), 4)
				i += 2
			case strings.HasPrefix(f[i:], "E*S"): // as many digits as the value needs
				pad(t.Second(), 2)
				if us := t.Nanosecond() / 1000; us != 0 {
					b.WriteString(strings.TrimRight(fmt.Sprintf(".%06d", us), "0"))
				}
				i += 2
			case len(f) > i+2 && f[i+1] >= '0' && f[i+1] <= '9' && f[i+2] == 'S': // %E<n>S: n digits
				pad(t.Second(), 2)
				if n := int(f[i+1] - '0'); n > 0 {
					b.WriteString(("." + fmt.Sprintf("%06d", t.Nanosecond()/1000) + "000")[:n+1])
				}
				i += 2
			default:
				return "", expr.EvalErr("format element %%%s is not supported", f[i:min(i+3, len(f))])
			}
		default:
			return "", expr.EvalErr("format element %%%c is not supported", f[i])
		}
	}
	return b.String(), nil
}

// formatCivil is FORMAT_DATE, FORMAT_DATETIME or FORMAT_TIME: FORMAT_TIMESTAMP's
// elements on a civil date, date-time or time of day (no time zone).
func formatCivil(k types.Kind, day bool) *expr.Func {
	return def(2, 2, func(c *expr.Call) (types.Type, error) {
		for i, kind := range []types.Kind{types.KindString, k} {
			a, err := expr.CoerceTo(c.Args[i], types.Type{Kind: kind})
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of %s: %w", i+1, strings.ToUpper(c.Fn), err)
			}
			c.Args[i] = a
		}
		if f, ok := c.Args[0].(*expr.Const); ok && !f.V.Null {
			if _, err := formatTime(f.V.S, time.Unix(0, 0).UTC()); err != nil {
				return types.Type{}, err
			}
		}
		return types.String, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		us, f := a[1].I, a[0].S
		if day {
			us *= types.Day
		}
		if k == types.KindTime {
			f = escapeDateElements(f)
		}
		s, err := formatTime(f, types.ToTime(us))
		if err != nil {
			return types.Value{}, err
		}
		return types.StringValue(s), nil
	}, false)
}

// registerDateArrayFuncs defines LAST_DAY and GENERATE_DATE_ARRAY.
func registerDateArrayFuncs() {
	// LAST_DAY(date [, part]): the last day of the YEAR, ISOYEAR, QUARTER,
	// MONTH (the default), WEEK (Sunday to Saturday), WEEK(<weekday>) or
	// ISOWEEK holding a DATE or DATETIME.
	// NEXT_DAY(date, weekday) (ZetaSQL's): the first date after date (a
	// DATETIME's date) that is a weekday, named in full or by its first
	// three letters, in any case.
	expr.Register("next_day", def(2, 2, checkNextDay, evalNextDay, false))
	expr.Register("last_day", def(1, 1, checkLastDay, evalLastDay, false))
	// GENERATE_DATE_ARRAY(start, end [, INTERVAL n part]): start, then each
	// date n parts after the one before (a month step from Jan 31 gives Feb
	// 29, then Mar 29: the day clamped once stays clamped, as BigQuery's
	// steps go), while not past end (inclusive); n may be negative but not
	// 0; parts DAY, WEEK, MONTH, QUARTER, YEAR. A step past the calendar
	// ends the array.
	expr.Register("generate_date_array", def(2, 3, checkGenerateDateArray, evalGenerateDateArray, false))
}

func checkNextDay(c *expr.Call) (types.Type, error) {
	if err := dateOrDatetimeArg(c); err != nil {
		return types.Type{}, err
	}
	w, err := expr.CoerceTo(c.Args[1], types.String)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 2 of NEXT_DAY: %w", err)
	}
	c.Args[1] = w
	return types.Date, nil
}

func evalNextDay(c *expr.Call, a []types.Value) (types.Value, error) {
	days := a[0].I
	if a[0].T.Kind == types.KindDatetime {
		days = floorDiv(days, types.Day)
	}
	want := -1
	for i, name := range [...]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		if w := strings.ToLower(a[1].S); w == name || w == name[:3] {
			want = i
		}
	}
	if want < 0 {
		return types.Value{}, expr.EvalErr("NEXT_DAY: invalid day of week: %s", a[1].S)
	}
	now := int((days%7 + 7 + 4) % 7) // 1970-01-01 was a Thursday (4)
	ahead := (want - now + 7) % 7
	if ahead == 0 {
		ahead = 7
	}
	return expr.InRange(types.DateValue(days + int64(ahead)))
}

func checkLastDay(c *expr.Call) (types.Type, error) {
	if err := dateOrDatetimeArg(c); err != nil {
		return types.Type{}, err
	}
	if _, week := c.Unit.WeekStart(); week || c.Unit == types.PartISOYear {
		return types.Date, nil
	}
	switch c.Unit {
	case types.PartInvalid, types.PartYear, types.PartQuarter, types.PartMonth:
		return types.Date, nil
	}
	return types.Type{}, fmt.Errorf("LAST_DAY takes YEAR, ISOYEAR, QUARTER, MONTH, WEEK[(<weekday>)] or ISOWEEK, not %s", c.Unit)
}

func evalLastDay(c *expr.Call, a []types.Value) (types.Value, error) {
	days := a[0].I
	if a[0].T.Kind == types.KindDatetime {
		days = floorDiv(days, types.Day)
	}
	t := types.ToTime(days * types.Day)
	y, m, _ := t.Date()
	if _, week := c.Unit.WeekStart(); week { // the week's start, plus six days
		return expr.InRange(types.DateValue(types.TruncMicros(days*types.Day, c.Unit)/types.Day + 6))
	}
	if c.Unit == types.PartISOYear { // the day before the next ISO year
		next := types.ISOYearStart(types.ISOYearStart(days*types.Day) + 371*types.Day)
		return expr.InRange(types.DateValue(next/types.Day - 1))
	}
	var last time.Time
	switch c.Unit {
	case types.PartYear:
		last = time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC)
	case types.PartQuarter:
		last = time.Date(y, time.Month((int(m)-1)/3*3+4), 0, 0, 0, 0, 0, time.UTC)
	default: // MONTH
		last = time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC)
	}
	return expr.InRange(dateOf(last))
}

func checkGenerateDateArray(c *expr.Call) (types.Type, error) {
	for i := 0; i < 2; i++ {
		d, err := expr.CoerceTo(c.Args[i], types.Date)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument %d of GENERATE_DATE_ARRAY: %w", i+1, err)
		}
		c.Args[i] = d
	}
	if len(c.Args) == 3 {
		k := c.Args[2].Type().Kind
		if k != types.KindInt64 && k != types.KindNull || c.Unit != types.PartDay && !expr.IsCalendarUnit(c.Unit) {
			return types.Type{}, fmt.Errorf("argument 3 of GENERATE_DATE_ARRAY must be an INTERVAL n DAY, WEEK, MONTH, QUARTER or YEAR")
		}
	}
	return types.ArrayOf(types.Date), nil
}

func evalGenerateDateArray(c *expr.Call, a []types.Value) (types.Value, error) {
	start, end := a[0].I, a[1].I
	step, unit := int64(1), types.PartDay
	if len(a) == 3 {
		step, unit = a[2].I, c.Unit
	}
	if step == 0 {
		return types.Value{}, expr.EvalErr("GENERATE_DATE_ARRAY: the step must not be 0")
	}
	var out []types.Value
	for d := start; step > 0 && d <= end || step < 0 && d >= end; {
		if len(out) >= maxGeneratedArray {
			return types.Value{}, expr.EvalErr("date array would have more than %d elements", maxGeneratedArray)
		}
		out = append(out, types.DateValue(d))
		if unit == types.PartDay {
			if step > expr.MaxDays-expr.MinDays || step < expr.MinDays-expr.MaxDays {
				break // past the calendar in one step
			}
			d += step
		} else {
			us, err := addCalendar(d*types.Day, unit, step)
			if err != nil {
				break // past year 9999: past any end
			}
			d = floorDiv(us, types.Day)
		}
		if d < expr.MinDays || d > expr.MaxDays {
			break
		}
	}
	return types.ArrayValue(types.Date, out), nil
}

// dateDiff is DATE_DIFF of two days since the epoch in a calendar unit
// (DAY, WEEK[(<weekday>)], ISOWEEK, MONTH, QUARTER, YEAR, ISOYEAR): the
// unit boundaries crossed from d2 to d1.
func dateDiff(d1, d2 int64, unit types.DatePart) int64 {
	if _, week := unit.WeekStart(); week {
		return (types.TruncMicros(d1*types.Day, unit) - types.TruncMicros(d2*types.Day, unit)) / (7 * types.Day)
	}
	t1, t2 := types.ToTime(d1*types.Day), types.ToTime(d2*types.Day)
	switch unit {
	case types.PartISOYear:
		y1, _ := t1.ISOWeek()
		y2, _ := t2.ISOWeek()
		return int64(y1 - y2)
	case types.PartMonth:
		return int64(t1.Year()*12+int(t1.Month())) - int64(t2.Year()*12+int(t2.Month()))
	case types.PartQuarter:
		return int64(t1.Year()*4+(int(t1.Month())-1)/3) - int64(t2.Year()*4+(int(t2.Month())-1)/3)
	case types.PartYear:
		return int64(t1.Year() - t2.Year())
	}
	return d1 - d2 // DAY
}

// dateOrDatetimeArg checks that c's first argument is a DATE or DATETIME (a
// STRING literal coerces to a DATE), as LAST_DAY and NEXT_DAY take.
func dateOrDatetimeArg(c *expr.Call) error {
	switch c.Args[0].Type().Kind {
	case types.KindDatetime, types.KindDate, types.KindNull:
		return nil
	}
	d, err := expr.CoerceTo(c.Args[0], types.Date)
	if err != nil {
		return fmt.Errorf("%s needs a DATE or DATETIME, not %s", strings.ToUpper(c.Fn), c.Args[0].Type())
	}
	c.Args[0] = d
	return nil
}

package sqlfunc

import (
	"fmt"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// maxGeneratedArray bounds GENERATE_TIMESTAMP_ARRAY and friends.
const maxGeneratedArray = 1_000_000

func registerTimeFuncs() {
	expr.Register("timestamp_sub", def(2, 2, addSub, evalTimestampSub, false))
	expr.Register("timestamp_add", def(2, 2, addSub, evalTimestampAdd, false))
	// TIMESTAMP_TRUNC(ts, part[, time_zone]): truncated in the zone (UTC by
	// default): a DAY starts at the zone's midnight.
	expr.Register("timestamp_trunc", def(1, 2, checkTimestampTrunc, evalTimestampTrunc, false))
	expr.Alias("datetime_trunc", "timestamp_trunc")
	// DATETIME(timestamp[, time_zone]), DATETIME(date[, time]), DATETIME(string),
	// DATETIME(datetime) and DATETIME(year, month, day, hour, minute, second).
	expr.Register("datetime", def(1, 6, checkDatetime, evalDatetime, false))
	// TIMESTAMP(x[, time_zone]): a STRING, DATETIME or DATE read as a civil
	// time in the zone (UTC by default; a zone written in the STRING wins).
	expr.Register("timestamp", def(1, 2, checkTimestamp, evalTimestamp, false))
	// DATE(x), DATE(timestamp, time_zone) and DATE(year, month, day).
	expr.Register("date", def(1, 3, checkDate, evalDate, false))
	expr.Register("unix_micros", def(1, 1, sig(types.KindTimestamp, types.KindInt64), unix(1), false))
	expr.Register("unix_millis", def(1, 1, sig(types.KindTimestamp, types.KindInt64), unix(1000), false))
	expr.Register("unix_seconds", def(1, 1, sig(types.KindTimestamp, types.KindInt64), unix(1_000_000), false))
	expr.Register("timestamp_micros", def(1, 1, sig(types.KindInt64, types.KindTimestamp), fromUnix(1), false))
	expr.Register("timestamp_millis", def(1, 1, sig(types.KindInt64, types.KindTimestamp), fromUnix(1000), false))
	expr.Register("timestamp_seconds", def(1, 1, sig(types.KindInt64, types.KindTimestamp), fromUnix(1_000_000), false))
	expr.Register("datetime_add", dtAddSub(1))
	expr.Register("datetime_sub", dtAddSub(-1))
	expr.Register("datetime_diff", diff(types.KindDatetime, "DATETIME_DIFF"))
	expr.Register("timestamp_diff", diff(types.KindTimestamp, "TIMESTAMP_DIFF"))
	expr.Register("extract", def(1, 2, checkExtract, evalExtract, false))
	expr.Register("extract_dayofweek", intPart(func(t time.Time) int { return int(t.Weekday()) + 1 })) // Sunday = 1
	expr.Register("extract_dayofyear", intPart(func(t time.Time) int { return t.YearDay() }))
	expr.Register("extract_isoweek", intPart(func(t time.Time) int { _, w := t.ISOWeek(); return w }))
	expr.Register("extract_isoyear", intPart(func(t time.Time) int { y, _ := t.ISOWeek(); return y }))
	// EXTRACT(DATE FROM x [AT TIME ZONE tz]): the date of x (in tz).
	expr.Register("extract_date", part(types.Date, dateOf))
	// EXTRACT(TIME FROM x [AT TIME ZONE tz]): its time of day (in tz).
	expr.Register("extract_time", part(types.Time, clockOf))
	// EXTRACT(DATETIME FROM ts [AT TIME ZONE tz]): its civil date and time
	// (in tz, UTC by default).
	expr.Register("extract_datetime", part(types.Datetime, func(t time.Time) types.Value {
		y, m, d := t.Date()
		return types.DatetimeValue(time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC).UnixMicro())
	}))
	expr.Register("generate_timestamp_array", def(3, 3, checkGenerateTimestampArray, evalGenerateTimestampArray, false))
	// generate_timestamp_trunc_array(count, spec, now): the binder appends the
	// query's CURRENT_TIMESTAMP as the hidden third argument.
	expr.Register("generate_timestamp_trunc_array", def(3, 3, checkGenerateTimestampTruncArray, evalGenerateTimestampTruncArray, false))
}

func addSub(c *expr.Call) (types.Type, error) {
	ts, err := expr.CoerceTo(c.Args[0], types.Timestamp)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 1 of %s: %w", strings.ToUpper(c.Fn), err)
	}
	c.Args[0] = ts
	if _, err := calendarCheck(c, false); err != nil {
		return types.Type{}, err
	}
	if k := c.Args[1].Type().Kind; k != types.KindInterval && k != types.KindNull {
		return types.Type{}, fmt.Errorf("argument 2 of %s must be an INTERVAL such as INTERVAL 1 DAY", strings.ToUpper(c.Fn))
	}
	return types.Timestamp, nil
}

func unix(div int64) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		return types.IntValue(floorDiv(a[0].I, div)), nil
	}
}

func fromUnix(mul int64) func(c *expr.Call, a []types.Value) (types.Value, error) {
	return func(c *expr.Call, a []types.Value) (types.Value, error) {
		if a[0].I < expr.MinMicros/mul || a[0].I > expr.MaxMicros/mul {
			return types.Value{}, expr.RangeErr(types.KindTimestamp)
		}
		return types.TimestampValue(a[0].I * mul), nil
	}
}

// DATETIME_ADD/SUB/DIFF: the TIMESTAMP ones on civil date-times.
func dtAddSub(sign int64) *expr.Func {
	return def(2, 2, func(c *expr.Call) (types.Type, error) {
		dt, err := expr.CoerceTo(c.Args[0], types.Datetime)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 1 of %s: %w", strings.ToUpper(c.Fn), err)
		}
		c.Args[0] = dt
		if cal, err := calendarCheck(c, true); cal || err != nil {
			return types.Datetime, err
		}
		if k := c.Args[1].Type().Kind; k != types.KindInterval && k != types.KindNull {
			return types.Type{}, fmt.Errorf("argument 2 of %s must be an INTERVAL such as INTERVAL 1 DAY", strings.ToUpper(c.Fn))
		}
		return types.Datetime, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if expr.IsCalendarUnit(c.Unit) {
			us, err := addCalendar(a[0].I, c.Unit, sign*a[1].I)
			if err != nil {
				return types.Value{}, err
			}
			return expr.InRange(types.DatetimeValue(us))
		}
		d, err := fixedInterval(c, a[1])
		if err != nil {
			return types.Value{}, err
		}
		return shiftMicros(types.KindDatetime, a[0].I, d, sign)
	}, false)
}

// DATETIME_DIFF and TIMESTAMP_DIFF between two values of one kind (µs
// since the epoch), units of fixed length only: DATETIME_DIFF counts
// the unit boundaries crossed (civil hours, days, …), TIMESTAMP_DIFF
// whole units, truncated toward zero — BigQuery's two rules.
func diff(kind types.Kind, name string) *expr.Func {
	return def(2, 2, func(c *expr.Call) (types.Type, error) {
		if _, err := sig(kind, types.KindInt64)(c); err != nil {
			return types.Type{}, err
		}
		if _, week := c.Unit.WeekStart(); kind == types.KindDatetime && (week || c.Unit == types.PartMonth ||
			c.Unit == types.PartQuarter || c.Unit == types.PartYear || c.Unit == types.PartISOYear) {
			return types.Int64, nil // DATETIME_DIFF counts calendar boundaries as DATE_DIFF does
		}
		if c.Unit.FixedMicros() == 0 {
			return types.Type{}, fmt.Errorf("%s needs a unit from MICROSECOND to DAY", name)
		}
		return types.Int64, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		w := c.Unit.FixedMicros()
		if kind == types.KindDatetime && w == 0 {
			return types.IntValue(dateDiff(floorDiv(a[0].I, types.Day), floorDiv(a[1].I, types.Day), c.Unit)), nil
		}
		if kind == types.KindDatetime { // civil units: the boundaries crossed
			return types.IntValue(floorDiv(a[0].I, w) - floorDiv(a[1].I, w)), nil
		}
		return types.IntValue((a[0].I - a[1].I) / w), nil // TIMESTAMP: truncated
	}, false)
}

// Date parts that are no unit (nothing truncates to them): EXTRACT only,
// of type t, f giving the part of x's time (in the AT TIME ZONE zone).
func part(t types.Type, f func(x time.Time) types.Value) *expr.Func {
	return def(1, 2, func(c *expr.Call) (types.Type, error) {
		if err := extractZone(c); err != nil {
			return types.Type{}, err
		}
		switch k := c.Args[0].Type().Kind; {
		case t.Kind == types.KindDatetime && k != types.KindTimestamp && k != types.KindNull:
			return types.Type{}, fmt.Errorf("EXTRACT(DATETIME FROM ...) needs a TIMESTAMP, not %s", c.Args[0].Type())
		case k == types.KindDate && (t.Kind == types.KindDate || t.Kind == types.KindTime):
			return types.Type{}, fmt.Errorf("EXTRACT(%s FROM ...) needs a TIMESTAMP or DATETIME, not DATE", t)
		case k == types.KindTimestamp, k == types.KindDatetime, k == types.KindDate, k == types.KindNull:
			return t, nil
		}
		return types.Type{}, fmt.Errorf("EXTRACT needs a TIMESTAMP, DATETIME or DATE, not %s", c.Args[0].Type())
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		x, err := extractTime(a)
		if err != nil {
			return types.Value{}, err
		}
		return expr.InRange(f(x)) // EXTRACT(DATE ... AT TIME ZONE) can pass year 9999
	}, false)
}

func intPart(f func(x time.Time) int) *expr.Func {
	return part(types.Int64, func(x time.Time) types.Value { return types.IntValue(int64(f(x))) })
}

func evalTimestampSub(c *expr.Call, a []types.Value) (types.Value, error) {
	d, err := fixedInterval(c, a[1])
	if err != nil {
		return types.Value{}, err
	}
	return shiftMicros(types.KindTimestamp, a[0].I, d, -1)
}

func evalTimestampAdd(c *expr.Call, a []types.Value) (types.Value, error) {
	d, err := fixedInterval(c, a[1])
	if err != nil {
		return types.Value{}, err
	}
	return addMicros(types.KindTimestamp, a[0].I, d)
}

func checkTimestampTrunc(c *expr.Call) (types.Type, error) {
	t := c.Args[0].Type()
	if t.Kind == types.KindString && expr.IsConst(c.Args[0]) {
		a, err := expr.CoerceTo(c.Args[0], types.Timestamp)
		if err != nil {
			return types.Type{}, err
		}
		c.Args[0], t = a, types.Timestamp
	}
	if t.Kind != types.KindTimestamp && t.Kind != types.KindDatetime && t.Kind != types.KindNull {
		return types.Type{}, fmt.Errorf("%s needs a TIMESTAMP, not %s", strings.ToUpper(c.Fn), t)
	}
	if c.Unit == types.PartInvalid {
		return types.Type{}, fmt.Errorf("%s needs a unit such as HOUR as its second argument", strings.ToUpper(c.Fn))
	}
	if len(c.Args) == 2 && t.Kind == types.KindDatetime {
		return types.Type{}, fmt.Errorf("%s of a DATETIME takes no time zone", strings.ToUpper(c.Fn))
	}
	if err := zoneArg(c, strings.ToUpper(c.Fn)); err != nil {
		return types.Type{}, err
	}
	if t.Kind == types.KindNull {
		return types.Timestamp, nil
	}
	return t, nil
}

func evalTimestampTrunc(c *expr.Call, a []types.Value) (types.Value, error) {
	if len(a) == 2 {
		loc, err := types.LoadLocation(a[1].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		if loc != time.UTC {
			us := a[0].I
			_, off := types.ToTime(us).In(loc).Zone()
			local := us + int64(off)*types.Second
			if w := c.Unit.FixedMicros(); w > 0 && w < types.Day {
				// HOUR and finer: take the local clock's remainder off
				// the instant itself (in a repeated hour at a clock
				// change, reading the clock back would pick the first).
				return expr.InRange(types.Value{T: c.T, I: us - (local - types.TruncMicros(local, c.Unit))})
			}
			// DAY and longer: the local calendar's start, read back in the zone.
			return expr.InRange(types.Value{T: c.T, I: types.CivilIn(types.TruncMicros(local, c.Unit), loc)})
		}
	}
	return expr.InRange(types.Value{T: c.T, I: types.TruncMicros(a[0].I, c.Unit)}) // a WEEK can start in year 0
}

func checkDatetime(c *expr.Call) (types.Type, error) {
	if len(c.Args) == 6 {
		for i := range c.Args {
			a, err := expr.CoerceTo(c.Args[i], types.Int64)
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of DATETIME(year, month, day, hour, minute, second): %w", i+1, err)
			}
			c.Args[i] = a
		}
		return types.Datetime, nil
	}
	if len(c.Args) > 2 {
		return types.Type{}, fmt.Errorf("DATETIME takes 1, 2 or 6 arguments, got %d", len(c.Args))
	}
	if len(c.Args) == 1 && (c.Args[0].Type().Kind == types.KindDate || c.Args[0].Type().Kind == types.KindDatetime) {
		return types.Datetime, nil // DATETIME(date): its midnight
	}
	if len(c.Args) == 2 && c.Args[1].Type().Kind == types.KindTime { // DATETIME(date, time)
		d, err := expr.CoerceTo(c.Args[0], types.Date)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 1 of DATETIME(date, time): %w", err)
		}
		c.Args[0] = d
		return types.Datetime, nil
	}
	switch c.Args[0].Type().Kind {
	case types.KindTimestamp, types.KindNull:
	case types.KindString:
		if len(c.Args) != 1 {
			return types.Type{}, fmt.Errorf("DATETIME(string) takes one argument")
		}
		return types.Datetime, nil
	default:
		return types.Type{}, fmt.Errorf("DATETIME needs a TIMESTAMP, not %s", c.Args[0].Type())
	}
	if err := zoneArg(c, "DATETIME"); err != nil {
		return types.Type{}, err
	}
	return types.Datetime, nil
}

func evalDatetime(c *expr.Call, a []types.Value) (types.Value, error) {
	if len(a) == 6 {
		y, mo, d, h, mi, s := a[0].I, a[1].I, a[2].I, a[3].I, a[4].I, a[5].I
		t := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(s), 0, time.UTC)
		if y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || int64(t.Day()) != d || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 {
			return types.Value{}, expr.EvalErr("DATETIME(%d, %d, %d, %d, %d, %d) is not a valid datetime", y, mo, d, h, mi, s)
		}
		return types.DatetimeValue(t.UnixMicro()), nil
	}
	if len(a) == 1 && (a[0].T.Kind == types.KindString || a[0].T.Kind == types.KindDate || a[0].T.Kind == types.KindDatetime) {
		return types.Cast(a[0], types.Datetime)
	}
	if len(a) == 2 && a[1].T.Kind == types.KindTime {
		return types.DatetimeValue(a[0].I*types.Day + a[1].I), nil
	}
	us := a[0].I
	if len(a) == 2 {
		loc, err := types.LoadLocation(a[1].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		if loc != time.UTC {
			_, off := types.ToTime(us).In(loc).Zone()
			us += int64(off) * types.Second
		}
	}
	return expr.InRange(types.DatetimeValue(us))
}

func checkTimestamp(c *expr.Call) (types.Type, error) {
	k := c.Args[0].Type().Kind
	switch {
	case len(c.Args) == 2 && k == types.KindTimestamp:
		return types.Type{}, fmt.Errorf("TIMESTAMP(x, time_zone) needs a STRING, DATETIME or DATE, not TIMESTAMP")
	case k == types.KindString || k == types.KindDatetime || k == types.KindDate || k == types.KindTimestamp || k == types.KindNull:
	default:
		return types.Type{}, fmt.Errorf("TIMESTAMP needs a STRING, DATETIME or DATE, not %s", c.Args[0].Type())
	}
	if err := zoneArg(c, "TIMESTAMP"); err != nil {
		return types.Type{}, err
	}
	return types.Timestamp, nil
}

func evalTimestamp(c *expr.Call, a []types.Value) (types.Value, error) {
	if len(a) == 1 {
		return types.Cast(a[0], types.Timestamp)
	}
	loc, err := types.LoadLocation(a[1].S)
	if err != nil {
		return types.Value{}, expr.EvalErr("%v", err)
	}
	var us int64
	switch a[0].T.Kind {
	case types.KindString:
		if us, err = types.ParseTimestampIn(a[0].S, loc); err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
	case types.KindDate:
		us = types.CivilIn(a[0].I*types.Day, loc)
	default:
		us = types.CivilIn(a[0].I, loc)
	}
	if !expr.InTimeRange(us) {
		return types.Value{}, expr.RangeErr(types.KindTimestamp)
	}
	return types.TimestampValue(us), nil
}

func checkDate(c *expr.Call) (types.Type, error) {
	switch len(c.Args) {
	case 3:
		for i := range c.Args {
			a, err := expr.CoerceTo(c.Args[i], types.Int64)
			if err != nil {
				return types.Type{}, fmt.Errorf("argument %d of DATE(year, month, day): %w", i+1, err)
			}
			c.Args[i] = a
		}
		return types.Date, nil
	case 2:
		if k, ok := c.Args[0].(*expr.Const); ok && k.V.T.Kind == types.KindString {
			// A literal's timestamp text: DATE(TIMESTAMP, tz) of it.
			if ts, err := expr.CoerceTo(c.Args[0], types.Timestamp); err == nil {
				c.Args[0] = ts
			}
		}
		if k := c.Args[0].Type().Kind; k != types.KindTimestamp && k != types.KindNull {
			return types.Type{}, fmt.Errorf("DATE(x, time_zone) needs a TIMESTAMP, not %s", c.Args[0].Type())
		}
		if err := zoneArg(c, "DATE"); err != nil {
			return types.Type{}, err
		}
		return types.Date, nil
	}
	switch c.Args[0].Type().Kind {
	case types.KindString, types.KindDatetime, types.KindDate, types.KindTimestamp, types.KindNull:
		return types.Date, nil
	}
	return types.Type{}, fmt.Errorf("DATE needs a TIMESTAMP, DATETIME or STRING, not %s", c.Args[0].Type())
}

func evalDate(c *expr.Call, a []types.Value) (types.Value, error) {
	switch len(a) {
	case 3:
		y, m, d := a[0].I, a[1].I, a[2].I
		t := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
		if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || int64(t.Day()) != d {
			return types.Value{}, expr.EvalErr("DATE(%d, %d, %d) is not a valid date", y, m, d)
		}
		return dateOf(t), nil
	case 2:
		loc, err := types.LoadLocation(a[1].S)
		if err != nil {
			return types.Value{}, expr.EvalErr("%v", err)
		}
		return expr.InRange(dateOf(types.ToTime(a[0].I).In(loc)))
	}
	d, err := types.Cast(a[0], types.Date)
	if err != nil && a[0].T.Kind == types.KindString {
		// Not a date: a timestamp's text, '2020-09-01 12:34:56-08', is
		// DATE(TIMESTAMP) of it (ZetaSQL's overload), its date in UTC.
		if ts, terr := types.Cast(a[0], types.Timestamp); terr == nil {
			return expr.InRange(dateOf(types.ToTime(ts.I)))
		}
	}
	return d, err
}

func checkExtract(c *expr.Call) (types.Type, error) {
	if err := extractZone(c); err != nil {
		return types.Type{}, err
	}
	switch c.Args[0].Type().Kind {
	case types.KindTimestamp, types.KindDatetime, types.KindNull:
		return types.Int64, nil
	case types.KindInterval:
		switch c.Unit {
		case types.PartWeek, types.PartQuarter:
			return types.Type{}, fmt.Errorf("EXTRACT from an INTERVAL does not take %s", c.Unit)
		}
		return types.Int64, nil
	case types.KindTime:
		if !timeUnit(c.Unit) {
			return types.Type{}, fmt.Errorf("EXTRACT from a TIME takes HOUR, MINUTE, SECOND, MILLISECOND or MICROSECOND, not %s", c.Unit)
		}
		return types.Int64, nil
	case types.KindDate:
		if c.Unit.FixedMicros() != 0 && c.Unit != types.PartDay {
			return types.Type{}, fmt.Errorf("EXTRACT from a DATE takes DAY, WEEK, MONTH, QUARTER or YEAR, not %s", c.Unit)
		}
		return types.Int64, nil
	}
	return types.Type{}, fmt.Errorf("EXTRACT needs a TIMESTAMP, DATETIME, DATE or TIME, not %s", c.Args[0].Type())
}

func evalExtract(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].T.Kind == types.KindInterval {
		return types.IntValue(extractInterval(a[0], c.Unit)), nil
	}
	t, err := extractTime(a)
	if err != nil {
		return types.Value{}, err
	}
	var v int
	switch c.Unit {
	case types.PartMicrosecond:
		v = t.Nanosecond() / 1000
	case types.PartMillisecond:
		v = t.Nanosecond() / 1_000_000
	case types.PartSecond:
		v = t.Second()
	case types.PartMinute:
		v = t.Minute()
	case types.PartHour:
		v = t.Hour()
	case types.PartDay:
		v = t.Day()
	case types.PartWeek, types.PartWeekMonday, types.PartWeekTuesday, types.PartWeekWednesday,
		types.PartWeekThursday, types.PartWeekFriday, types.PartWeekSaturday:
		// weeks start on Sunday (or the day given); days before the
		// year's first such day are week 0
		start, _ := c.Unit.WeekStart()
		v = (t.YearDay() - 1 + 7 - (int(t.Weekday())-int(start)+7)%7) / 7
	case types.PartMonth:
		v = int(t.Month())
	case types.PartQuarter:
		v = (int(t.Month())-1)/3 + 1
	case types.PartYear:
		v = t.Year()
	}
	return types.IntValue(int64(v)), nil
}

func checkGenerateTimestampArray(c *expr.Call) (types.Type, error) {
	for i := 0; i < 2; i++ {
		a, err := expr.CoerceTo(c.Args[i], types.Timestamp)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument %d of GENERATE_TIMESTAMP_ARRAY: %w", i+1, err)
		}
		c.Args[i] = a
	}
	if k := c.Args[2].Type().Kind; k != types.KindInterval && k != types.KindNull {
		return types.Type{}, fmt.Errorf("argument 3 of GENERATE_TIMESTAMP_ARRAY must be an INTERVAL")
	}
	return types.ArrayOf(types.Timestamp), nil
}

func evalGenerateTimestampArray(c *expr.Call, a []types.Value) (types.Value, error) {
	step, err := fixedInterval(c, a[2])
	if err != nil {
		return types.Value{}, err
	}
	return timestampArray(a[0].I, a[1].I, step)
}

func checkGenerateTimestampTruncArray(c *expr.Call) (types.Type, error) {
	if _, err := sig(types.KindInt64, types.KindString, types.KindTimestamp, types.KindTimestamp)(c); err != nil {
		return types.Type{}, err
	}
	return types.ArrayOf(types.Timestamp), nil
}

func evalGenerateTimestampTruncArray(c *expr.Call, a []types.Value) (types.Value, error) {
	lookback, bucket, err := parseTruncSpec(a[1].S)
	if err != nil {
		return types.Value{}, err
	}
	if a[0].I < 0 {
		return types.Value{}, expr.EvalErr("generate_timestamp_trunc_array: count must not be negative, got %d", a[0].I)
	}
	now := a[2].I
	start := types.TruncMicros(now-a[0].I*lookback.FixedMicros(), bucket)
	end := types.TruncMicros(now, bucket)
	return timestampArray(start, end, bucket.FixedMicros())
}

// parseTruncSpec reads "<lookback unit>_<bucket unit>", e.g. "day_hour".
func parseTruncSpec(spec string) (lookback, bucket types.DatePart, err error) {
	l, b, ok := strings.Cut(spec, "_")
	if ok {
		lookback, ok = types.ParseDatePart(l)
	}
	if ok {
		bucket, ok = types.ParseDatePart(b)
	}
	if !ok || lookback.FixedMicros() == 0 || bucket.FixedMicros() == 0 {
		return 0, 0, expr.EvalErr("generate_timestamp_trunc_array: spec %q is not <unit>_<unit> with units from second to day (e.g. day_hour)", spec)
	}
	return lookback, bucket, nil
}

func timestampArray(start, end, step int64) (types.Value, error) {
	if step == 0 {
		return types.Value{}, expr.EvalErr("the step of a timestamp array must not be 0")
	}
	// Sized up front: the planner folds these arrays on every call of a
	// saved query (generate_timestamp_trunc_array over the last day).
	n := int64(0)
	if step > 0 && end >= start {
		n = (end-start)/step + 1
	} else if step < 0 && end <= start {
		n = (start-end)/-step + 1
	}
	out := make([]types.Value, 0, max(0, min(n, maxGeneratedArray)))
	for t := start; step > 0 && t <= end || step < 0 && t >= end; t += step {
		if len(out) >= maxGeneratedArray {
			return types.Value{}, expr.EvalErr("timestamp array would have more than %d elements", maxGeneratedArray)
		}
		out = append(out, types.TimestampValue(t))
		if step > 0 && t > expr.MaxMicros-step || step < 0 && t < expr.MinMicros-step {
			break // the next one is past any end
		}
	}
	return types.ArrayValue(types.Timestamp, out), nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// extractZone checks EXTRACT(part FROM ts AT TIME ZONE tz): the zone is a
// STRING (an IANA name or a fixed offset such as '+05:30', checked at load
// when constant) and only a TIMESTAMP has one, as in BigQuery.
func extractZone(c *expr.Call) error {
	if len(c.Args) < 2 {
		return nil
	}
	if k := c.Args[0].Type().Kind; k != types.KindTimestamp && k != types.KindNull {
		return fmt.Errorf("EXTRACT … AT TIME ZONE needs a TIMESTAMP, not %s", c.Args[0].Type())
	}
	tz, err := expr.CoerceTo(c.Args[1], types.String)
	if err != nil {
		return fmt.Errorf("the time zone of EXTRACT: %w", err)
	}
	c.Args[1] = tz
	if k, ok := tz.(*expr.Const); ok && !k.V.Null {
		if _, err := types.LoadLocation(k.V.S); err != nil {
			return err
		}
	}
	return nil
}

// extractTime is the civil time EXTRACT reads: UTC, or the wall clock of
// the AT TIME ZONE zone (IANA names follow daylight saving time).
func extractTime(a []types.Value) (time.Time, error) {
	us := a[0].I
	if a[0].T.Kind == types.KindDate {
		us *= types.Day
	}
	t := types.ToTime(us)
	if len(a) == 2 {
		loc, err := types.LoadLocation(a[1].S)
		if err != nil {
			return time.Time{}, expr.EvalErr("%v", err)
		}
		t = t.In(loc)
	}
	return t, nil
}

// dateOf is the DATE of t's calendar day (in t's own location).
func dateOf(t time.Time) types.Value {
	y, m, d := t.Date()
	return types.DateValue(floorDiv(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).UnixMicro(), types.Day))
}

// zoneArg coerces the optional second argument of fn(x[, time_zone]) to
// STRING.
func zoneArg(c *expr.Call, fn string) error {
	if len(c.Args) < 2 {
		return nil
	}
	tz, err := expr.CoerceTo(c.Args[1], types.String)
	if err != nil {
		return fmt.Errorf("time zone of %s: %w", fn, err)
	}
	c.Args[1] = tz
	return nil
}

package sqlfunc

import (
	"fmt"
	"strings"
	"time"

	"logq/expr"
	"logq/types"
)

// TIMESTAMP_BUCKET, DATETIME_BUCKET and DATE_BUCKET(x, bucket_width[,
// origin]): the lower bound of the bucket holding x, the buckets
// bucket_width wide and laid out from origin both ways (1950-01-01
// 00:00:00 by default, UTC for a TIMESTAMP): origin + floor((x − origin) /
// width) · width. A width of months steps in calendar months from the
// origin, its day of the month kept (the month's last day where the month
// is shorter). Which widths each function takes, its error messages and
// the month rule are ZetaSQL's (zetasql/public/functions/date_time_util.cc,
// TimestampBucketizer, DatetimeBucketizer and DateBucketizer); a NULL
// argument gives NULL before the width is looked at, as its evaluator does
// (reference_impl/function.cc, DateTimeBucketFunction::Eval). The width
// and origin may be any expression, checked row by row. As ZetaSQL's
// extended signatures, the type of x picks the bucketing: any of the three
// given a DATE buckets a DATE, and so on.
func registerTimeBucketFuncs() {
	expr.Register("timestamp_bucket", def(2, 3, checkTimeBucket, evalTimeBucket, false))
	expr.Register("datetime_bucket", def(2, 3, checkTimeBucket, evalTimeBucket, false))
	expr.Register("date_bucket", def(2, 3, checkTimeBucket, evalTimeBucket, false))
}

// bucketOwnType is the type each bucket function takes by its name: what
// a STRING constant or an untyped NULL first argument becomes.
var bucketOwnType = map[string]types.Type{
	"timestamp_bucket": types.Timestamp,
	"datetime_bucket":  types.Datetime,
	"date_bucket":      types.Date,
}

// bucketOriginDays is the default origin, 1950-01-01, in days since the
// epoch: 20 years of 365 days and the 5 leap days of 1952 … 1968.
const bucketOriginDays = -(20*365 + 5)

func checkTimeBucket(c *expr.Call) (types.Type, error) {
	name := strings.ToUpper(c.Fn)
	own := bucketOwnType[c.Fn]
	t := own
	if at := c.Args[0].Type(); at.Kind == types.KindTimestamp || at.Kind == types.KindDatetime || at.Kind == types.KindDate {
		t = at
	}
	x, err := expr.CoerceTo(c.Args[0], t)
	if err != nil {
		return types.Type{}, fmt.Errorf("argument 1 of %s: %w", name, err)
	}
	c.Args[0] = x
	if k := c.Args[1].Type().Kind; k != types.KindInterval && k != types.KindNull {
		return types.Type{}, fmt.Errorf("argument 2 of %s must be an INTERVAL such as INTERVAL 1 DAY", name)
	}
	if c.Args[1], err = expr.CoerceTo(c.Args[1], types.Interval); err != nil {
		return types.Type{}, fmt.Errorf("argument 2 of %s: %w", name, err)
	}
	if len(c.Args) == 3 {
		// The extended signatures take no STRING for the origin (ZetaSQL's
		// NoLiteralOrParameterString): a DATETIME is bucketed from a DATETIME.
		if !t.Equal(own) && c.Args[2].Type().Kind == types.KindString {
			return types.Type{}, fmt.Errorf("argument 3 of %s: expected %s, found STRING", name, t)
		}
		o, err := expr.CoerceTo(c.Args[2], t)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument 3 of %s: %w", name, err)
		}
		c.Args[2] = o
	}
	return t, nil
}

func evalTimeBucket(c *expr.Call, a []types.Value) (types.Value, error) {
	x, width := a[0], a[1]
	origin := int64(bucketOriginDays)
	switch {
	case len(a) == 3:
		origin = a[2].I
	case c.T.Kind != types.KindDate:
		origin *= types.Day // 1950-01-01 00:00:00 (UTC for a TIMESTAMP)
	}
	var r int64
	var err error
	switch c.T.Kind {
	case types.KindTimestamp:
		r, err = timestampBucket(x.I, width, origin)
	case types.KindDatetime:
		r, err = datetimeBucket(x.I, width, origin)
	default:
		r, err = dateBucket(x.I, width, origin)
	}
	if err != nil {
		return types.Value{}, err
	}
	v := types.Value{T: c.T, I: r}
	if _, err := expr.InRange(v); err != nil {
		return types.Value{}, bucketRangeErr(x)
	}
	return v, nil
}

// timestampBucket buckets µs since the epoch: a width of days (24 hours
// each) or of hours to microseconds, never months nor both.
func timestampBucket(x int64, w types.Value, origin int64) (int64, error) {
	switch {
	case w.Months != 0:
		return 0, expr.EvalErr("Bucket width INTERVAL with non-zero MONTH part is not allowed")
	case w.Days < 0 || w.I < 0:
		return 0, expr.EvalErr("Negative bucket width INTERVAL is not allowed")
	case w.Days != 0 && w.I != 0:
		return 0, expr.EvalErr("Bucket width INTERVAL with mixed DAY and subsecond parts is not allowed")
	case w.Days == 0 && w.I == 0:
		return 0, expr.EvalErr("Zero bucket width INTERVAL is not allowed")
	}
	return floorBucket(x, origin, int64(w.Days)*types.Day+w.I), nil
}

// datetimeBucket buckets a civil time (µs): a width of exactly one part,
// months, days or hours to microseconds.
func datetimeBucket(x int64, w types.Value, origin int64) (int64, error) {
	if w.Months < 0 || w.Days < 0 || w.I < 0 {
		return 0, expr.EvalErr("Negative bucket width INTERVAL is not allowed")
	}
	if nonZeroParts(w) != 1 {
		return 0, expr.EvalErr("Exactly one non-zero INTERVAL part in bucket width is required")
	}
	if w.Months > 0 {
		return monthBucket(x, origin, int64(w.Months)), nil
	}
	return floorBucket(x, origin, int64(w.Days)*types.Day+w.I), nil
}

// dateBucket buckets days since the epoch: a width of months or of days.
// As ZetaSQL's DateBucketizer, only a positive time part is refused (a
// negative one beside months or days is not looked at).
func dateBucket(x int64, w types.Value, origin int64) (int64, error) {
	switch {
	case w.I > 0:
		return 0, expr.EvalErr("Only MONTH and DAY parts are allowed in bucket width INTERVAL")
	case w.Months < 0 || w.Days < 0:
		return 0, expr.EvalErr("Negative bucket width INTERVAL is not allowed")
	case (w.Months > 0) == (w.Days > 0):
		return 0, expr.EvalErr("Exactly one non-zero INTERVAL part in bucket width is required")
	case w.Months > 0:
		return floorDiv(monthBucket(x*types.Day, origin*types.Day, int64(w.Months)), types.Day), nil
	}
	return floorBucket(x, origin, int64(w.Days)), nil
}

func nonZeroParts(w types.Value) int {
	n := 0
	for _, p := range []int64{int64(w.Months), int64(w.Days), w.I} {
		if p != 0 {
			n++
		}
	}
	return n
}

// floorBucket is origin + floor((x − origin) / width) · width (width > 0).
// The values are within years 1 to 9999 and the width within an
// INTERVAL's range: nothing here leaves an int64.
func floorBucket(x, origin, width int64) int64 {
	rem := (x - origin) % width
	r := x - rem
	if rem < 0 { // x before the origin: the bucket below
		r -= width
	}
	return r
}

// monthBucket is the start of the bucket of k months holding the civil
// time x (µs), the buckets starting at origin's day of the month and time
// of day (the month's last day when the month is shorter): k months apart
// counted from origin's month, and x's bucket the one whose start is at
// or before x. Both being the last day of their month counts as the same
// day. A result outside years 1 to 9999 is returned as such, for the
// caller's range check.
func monthBucket(x, origin, k int64) int64 {
	xt, ot := types.ToTime(x), types.ToTime(origin)
	xy, xm, xd := xt.Date()
	oy, om, od := ot.Date()
	xMonth, oMonth := int64(xy)*12+int64(xm-1), int64(oy)*12+int64(om-1)
	rem := (xMonth - oMonth) % k
	res := xMonth - rem
	if isLastDay(oy, om, od) && isLastDay(xy, xm, xd) {
		xd = od
	}
	xClock, oClock := x-floorDiv(x, types.Day)*types.Day, origin-floorDiv(origin, types.Day)*types.Day
	if rem < 0 || rem == 0 && (xd < od || xd == od && xClock < oClock) {
		res -= k // before the origin, or before the start in x's own month
	}
	y := floorDiv(res, 12)
	if y < 1 || y > 9999 {
		return bucketOutOfRange(y)
	}
	m := time.Month(res - y*12 + 1)
	d := min(od, time.Date(int(y), m+1, 0, 0, 0, 0, 0, time.UTC).Day())
	return time.Date(int(y), m, d, 0, 0, 0, 0, time.UTC).UnixMicro() + oClock
}

// bucketOutOfRange is a civil time (µs) past the end of year 9999 or
// before year 1, for a month bucket in year y outside them.
func bucketOutOfRange(y int64) int64 {
	if y < 1 {
		return expr.MinMicros - types.Day
	}
	return expr.MaxMicros + types.Day
}

func isLastDay(y int, m time.Month, d int) bool {
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC).Day() == 1
}

// bucketRangeErr is ZetaSQL's error for a bucket outside years 1 to 9999,
// naming the input as CAST(… AS STRING) writes it.
func bucketRangeErr(x types.Value) error {
	text, kind := types.FormatDate(x.I), "date"
	switch x.T.Kind {
	case types.KindTimestamp:
		text, kind = types.CastTimeText(x), "timestamp"
	case types.KindDatetime:
		text, kind = types.CastTimeText(x), "datetime"
	}
	return expr.EvalErr("Bucket for %s is outside of %s range", text, kind)
}

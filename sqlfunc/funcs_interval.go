package sqlfunc

import (
	"fmt"
	"math/big"

	"logq/expr"
	"logq/types"
)

// INTERVAL arithmetic, as BigQuery's operators define it:
//
//	DATE ± INTERVAL = DATETIME, DATETIME ± INTERVAL = DATETIME,
//	TIMESTAMP ± INTERVAL = TIMESTAMP (an interval with months is an error),
//	INTERVAL ± INTERVAL, -INTERVAL, INTERVAL * INT64, INTERVAL / INT64,
//	DATE - DATE (days), TIMESTAMP - TIMESTAMP (microseconds),
//	DATETIME - DATETIME (days and the rest in microseconds) = INTERVAL,
//	DATE ± INT64 = DATE (days).
//
// An interval is added part by part: months as calendar months (the day
// of the month kept unless the month is shorter), then days, then
// microseconds. Each operator keeps its one definition for numbers
// (funcs_ops.go); overloadTime gives it these forms.
func registerIntervalFuncs() {
	for _, op := range []string{"+", "-", "*", "/", "neg"} {
		overloadTime(op)
	}
	// interval_part is INTERVAL n part for an n computed per row.
	expr.Register("interval_part", def(1, 1, func(c *expr.Call) (types.Type, error) {
		return types.Interval, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return intervalResult(types.IntervalOfPart(a[0].I, c.Unit))
	}, false))
	expr.Register("make_interval", def(0, 6, func(c *expr.Call) (types.Type, error) {
		if _, err := sig(types.KindInt64, types.KindInterval)(c); err != nil {
			return types.Type{}, err
		}
		return types.Interval, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		var p [6]int64 // year, month, day, hour, minute, second
		for i, v := range a {
			p[i] = v.I
		}
		months, ok1 := mulAdd(p[0], 12, p[1])
		us, ok2 := mulAdd(p[3], types.Hour, 0)
		us, ok3 := mulAdd(p[4], types.Minute, us)
		us, ok4 := mulAdd(p[5], types.Second, us)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return types.Value{}, expr.EvalErr("interval overflow in MAKE_INTERVAL")
		}
		return intervalResult(types.IntervalOf(months, p[2], us))
	}, false))
	justify := func(days, hours bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			m, d, us := int64(a[0].Months), int64(a[0].Days), a[0].I
			if hours {
				d, us = d+us/types.Day, us%types.Day
			}
			if days {
				m, d = m+d/30, d%30
				if m > 0 && (d < 0 || d == 0 && hours && us < 0) {
					m, d = m-1, d+30
				} else if m < 0 && (d > 0 || d == 0 && hours && us > 0) {
					m, d = m+1, d-30
				}
			}
			if hours {
				if d > 0 && us < 0 {
					d, us = d-1, us+types.Day
				} else if d < 0 && us > 0 {
					d, us = d+1, us-types.Day
				}
			}
			return intervalResult(types.IntervalOf(m, d, us))
		}
	}
	expr.Register("justify_days", def(1, 1, sig(types.KindInterval, types.KindInterval), justify(true, false), false))
	expr.Register("justify_hours", def(1, 1, sig(types.KindInterval, types.KindInterval), justify(false, true), false))
	expr.Register("justify_interval", def(1, 1, sig(types.KindInterval, types.KindInterval), justify(true, true), false))
}

// mulAdd is x·k + y, and whether it fits an INT64.
func mulAdd(x, k, y int64) (int64, bool) {
	r := new(big.Int).Mul(big.NewInt(x), big.NewInt(k))
	r.Add(r, big.NewInt(y))
	return r.Int64(), r.IsInt64()
}

func intervalResult(v types.Value, err error) (types.Value, error) {
	if err != nil {
		return types.Value{}, expr.EvalErr("%v", err)
	}
	return v, nil
}

// timeArithType is the result type of op over the given argument types
// when it is one of the forms above; ok is false for a numeric operation.
func timeArithType(op string, args []types.Type) (t types.Type, ok bool, err error) {
	k := func(i int) types.Kind { return args[i].Kind }
	isTime := func(i int) bool {
		return k(i) == types.KindTimestamp || k(i) == types.KindDatetime || k(i) == types.KindDate
	}
	shifted := func(i int) types.Type { // DATE ± INTERVAL is a DATETIME
		if k(i) == types.KindDate {
			return types.Datetime
		}
		return args[i]
	}
	if op == "neg" {
		return types.Interval, k(0) == types.KindInterval, nil
	}
	// An untyped NULL beside a date, time or interval takes the type the
	// form needs (a field no event has had yet is such a NULL).
	for i := range args {
		o := args[1-i]
		if args[i].Kind != types.KindNull || o.Kind == types.KindNull {
			continue
		}
		switch {
		case o.Kind == types.KindInterval && (op == "*" || op == "/"):
			return timeArithType(op, withType(args, i, types.Int64))
		case o.Kind == types.KindInterval || o.IsTime() && o.Kind != types.KindTime:
			return timeArithType(op, withType(args, i, types.Interval))
		}
	}
	switch {
	case op == "+" && isTime(0) && k(1) == types.KindInterval, op == "-" && isTime(0) && k(1) == types.KindInterval:
		return shifted(0), true, nil
	case op == "+" && k(0) == types.KindInterval && isTime(1):
		return shifted(1), true, nil
	case (op == "+" || op == "-") && k(0) == types.KindInterval && k(1) == types.KindInterval:
		return types.Interval, true, nil
	case op == "-" && isTime(0) && k(0) == k(1):
		return types.Interval, true, nil
	case (op == "+" || op == "-") && k(0) == types.KindDate && k(1) == types.KindInt64, op == "+" && k(0) == types.KindInt64 && k(1) == types.KindDate:
		return types.Date, true, nil
	case (op == "*" || op == "/") && k(0) == types.KindInterval && k(1) == types.KindInt64, op == "*" && k(0) == types.KindInt64 && k(1) == types.KindInterval:
		return types.Interval, true, nil
	case k(0) == types.KindInterval || len(args) > 1 && k(1) == types.KindInterval || isTime(0) || len(args) > 1 && isTime(1):
		return types.Type{}, true, fmt.Errorf("operator %s is not defined for %s and %s", op, args[0], args[len(args)-1])
	}
	return types.Type{}, false, nil
}

// overloadTime gives the operator name its forms over dates, times and
// intervals.
func overloadTime(name string) {
	expr.Overload(name, func(c *expr.Call) (types.Type, bool, error) {
		ts := make([]types.Type, len(c.Args))
		for i, a := range c.Args {
			ts[i] = a.Type()
		}
		return timeArithType(name, ts)
	}, func(c *expr.Call) bool {
		// Only these forms give a date, a time or an interval: a number
		// result takes the operator's own path, with nothing added per row.
		return c.T.IsTime() || c.T.Kind == types.KindInterval
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		return timeArith(name, a)
	})
}

// timeArith computes one of the forms of timeArithType.
func timeArith(op string, a []types.Value) (types.Value, error) {
	if op == "neg" {
		return intervalResult(types.IntervalOf(-int64(a[0].Months), -int64(a[0].Days), -a[0].I))
	}
	x, y := a[0], a[1]
	kx, ky := x.T.Kind, y.T.Kind
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	switch {
	case kx == types.KindInterval && ky == types.KindInterval:
		return intervalResult(types.IntervalOf(int64(x.Months)+sign*int64(y.Months), int64(x.Days)+sign*int64(y.Days), x.I+sign*y.I))
	case kx == types.KindInterval && ky == types.KindInt64 && op == "*", kx == types.KindInt64 && ky == types.KindInterval:
		if kx == types.KindInt64 {
			x, y = y, x
		}
		m, ok1 := mulAdd(int64(x.Months), y.I, 0)
		d, ok2 := mulAdd(int64(x.Days), y.I, 0)
		us, ok3 := mulAdd(x.I, y.I, 0)
		if !ok1 || !ok2 || !ok3 {
			return types.Value{}, expr.EvalErr("interval overflow: %s * %d", x, y.I)
		}
		return intervalResult(types.IntervalOf(m, d, us))
	case kx == types.KindInterval && op == "/":
		return intervalResult(types.IntervalDiv(int64(x.Months), int64(x.Days), big.NewInt(x.I), y.I))
	case ky == types.KindInterval || kx == types.KindInterval:
		if kx == types.KindInterval {
			x, y = y, x
		}
		return addInterval(x, y, sign)
	case ky == types.KindInt64: // DATE ± INT64
		if y.I > 10000*366 || y.I < -10000*366 {
			return types.Value{}, expr.RangeErr(types.KindDate)
		}
		return expr.InRange(types.DateValue(x.I + sign*y.I))
	case kx == types.KindInt64: // INT64 + DATE
		return timeArith(op, []types.Value{y, x})
	case kx == types.KindDate:
		return intervalResult(types.IntervalOf(0, x.I-y.I, 0))
	case kx == types.KindTimestamp:
		return intervalResult(types.IntervalOf(0, 0, x.I-y.I))
	}
	d := x.I - y.I // DATETIME - DATETIME: whole days, then the rest
	return intervalResult(types.IntervalOf(0, d/types.Day, d%types.Day))
}

// addInterval adds sign·iv to a DATE, DATETIME or TIMESTAMP: months, then
// days, then microseconds.
func addInterval(t, iv types.Value, sign int64) (types.Value, error) {
	if t.T.Kind == types.KindTimestamp {
		if iv.Months != 0 {
			return types.Value{}, expr.EvalErr("TIMESTAMP +/- INTERVAL is not supported for intervals with a MONTH or YEAR part")
		}
		return shiftMicros(types.KindTimestamp, t.I, int64(iv.Days)*types.Day+iv.I, sign)
	}
	us := t.I
	if t.T.Kind == types.KindDate {
		us *= types.Day
	}
	if iv.Months != 0 {
		var err error
		if us, err = addCalendar(us, types.PartMonth, sign*int64(iv.Months)); err != nil {
			return types.Value{}, err
		}
	}
	// Days, then microseconds, each step within range (as BigQuery adds
	// them: 9999-12-31 12:00 + INTERVAL '1 -24:0:0' DAY TO SECOND fails).
	v, err := shiftMicros(types.KindDatetime, us, int64(iv.Days)*types.Day, sign)
	if err != nil {
		return types.Value{}, err
	}
	return shiftMicros(types.KindDatetime, v.I, iv.I, sign)
}

// withType is args with args[i] replaced by t.
func withType(args []types.Type, i int, t types.Type) []types.Type {
	out := append([]types.Type(nil), args...)
	out[i] = t
	return out
}

// extractInterval is EXTRACT(part FROM interval): each part keeps the
// interval's sign (Go's / and % truncate toward zero, as BigQuery's).
func extractInterval(v types.Value, part types.DatePart) int64 {
	switch part {
	case types.PartYear:
		return int64(v.Months) / 12
	case types.PartMonth:
		return int64(v.Months) % 12
	case types.PartDay:
		return int64(v.Days)
	case types.PartHour:
		return v.I / types.Hour
	case types.PartMinute:
		return v.I % types.Hour / types.Minute
	case types.PartSecond:
		return v.I % types.Minute / types.Second
	case types.PartMillisecond:
		return v.I % types.Second / types.Millisecond
	}
	return v.I % types.Second // MICROSECOND
}

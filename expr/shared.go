package expr

import (
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

func IsCalendarUnit(u types.DatePart) bool {
	switch u {
	case types.PartWeek, types.PartMonth, types.PartQuarter, types.PartYear:
		return true
	}
	return false
}

var zipModes = map[string]bool{"PAD": true, "TRUNCATE": true, "STRICT": true}

// IsZipMode reports whether mode is a mode of a multiway UNNEST.
func IsZipMode(mode string) bool { return zipModes[mode] }

// inRange returns v, or the range error when it is a TIMESTAMP, DATETIME or
// DATE outside years 1 to 9999.
func InRange(v types.Value) (types.Value, error) {
	switch v.T.Kind {
	case types.KindTimestamp, types.KindDatetime:
		if v.I < MinMicros || v.I > MaxMicros {
			return types.Value{}, RangeErr(v.T.Kind)
		}
	case types.KindDate:
		if v.I < MinDays || v.I > MaxDays {
			return types.Value{}, RangeErr(v.T.Kind)
		}
	}
	return v, nil
}

// BigQuery's TIMESTAMP, DATETIME and DATE hold the years 1 to 9999.
// Arithmetic whose result leaves that range (TIMESTAMP_ADD, DATE_ADD,
// TIMESTAMP_SECONDS of a huge number, …) is an error, and NULL under SAFE.,
// never a value wrapped around or past year 9999.
const (
	MinMicros = -62135596800000000 // 0001-01-01 00:00:00 UTC, µs since the epoch
	MaxMicros = 253402300799999999 // 9999-12-31 23:59:59.999999
	MinDays   = -719162            // 0001-01-01, days since the epoch
	MaxDays   = 2932896            // 9999-12-31
)

// InTimeRange reports whether us (µs since the epoch) is a TIMESTAMP or
// DATETIME of the years 1 to 9999.
func InTimeRange(us int64) bool { return us >= MinMicros && us <= MaxMicros }

// rangeErr is the error for a value past years 1 to 9999.
func RangeErr(kind types.Kind) error {
	return EvalErr("%s value is out of range (years 1 to 9999)", kind)
}

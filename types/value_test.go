package types

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseTimestamp(t *testing.T) {
	ref := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return tm.UnixMicro()
	}
	cases := []struct {
		in   string
		want int64
	}{
		{"2024-01-02T03:04:05Z", ref("2024-01-02T03:04:05Z")},
		{"2024-01-02 03:04:05", ref("2024-01-02T03:04:05Z")},
		{"2024-01-02T03:04:05.123456789+00:00", ref("2024-01-02T03:04:05.123456Z")},
		{"2024-01-02T03:04:05.5-07:00", ref("2024-01-02T10:04:05.5Z")},
		{"2024-01-02T03:04:05+0530", ref("2024-01-01T21:34:05Z")},
		{"2024-01-02 03:04:05.149 UTC", ref("2024-01-02T03:04:05.149Z")},
		{"2024-01-02", ref("2024-01-02T00:00:00Z")},
		{"2024-01-02T03:04Z", ref("2024-01-02T03:04:00Z")},
	}
	for _, c := range cases {
		got, err := ParseTimestamp(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	for _, bad := range []string{"", "yesterday", "2024-13-01", "2024-01-02X03:04:05", "2024-01-02T25:00:00Z", "2024-01-02T03:04:05+99:00", "2024-01-02T03:04:05.Z"} {
		_, err := ParseTimestamp(bad)
		require.ErrorIs(t, err, ErrBadTime, bad)
	}
}

func TestTruncAndFormat(t *testing.T) {
	us, err := ParseTimestamp("2024-03-14T15:09:26.535897Z") // a Thursday
	require.NoError(t, err)
	cases := map[DatePart]string{
		PartSecond: "2024-03-14T15:09:26", PartMinute: "2024-03-14T15:09:00",
		PartHour: "2024-03-14T15:00:00", PartDay: "2024-03-14T00:00:00",
		PartWeek: "2024-03-10T00:00:00", PartMonth: "2024-03-01T00:00:00",
		PartQuarter: "2024-01-01T00:00:00", PartYear: "2024-01-01T00:00:00",
	}
	for p, want := range cases {
		require.Equal(t, want, FormatDatetime(TruncMicros(us, p)), p.String())
	}
	require.Equal(t, "2024-03-14T15:09:26.535897", FormatDatetime(us))
	// Before the epoch, truncation floors rather than rounding toward zero.
	require.Equal(t, "1969-12-31T23:00:00", FormatDatetime(TruncMicros(-1, PartHour)))
}

func TestCastAndCompare(t *testing.T) {
	v, err := Cast(StringValue("2024-01-02T00:00:00Z"), Timestamp)
	require.NoError(t, err)
	require.Equal(t, Timestamp, v.T)
	_, err = Cast(StringValue("soon"), Timestamp)
	require.ErrorIs(t, err, ErrBadCast)
	// BigQuery's float → INT64 rounds halfway cases away from zero.
	for _, c := range []struct {
		in   float64
		want int64
	}{{2.5, 3}, {-2.5, -3}, {0.5, 1}, {-0.5, -1}, {1.4999, 1}, {3.5, 4}, {-1.6, -2}, {9.2e18, 9200000000000000000}} {
		i, err := Cast(FloatValue(c.in), Int64)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, i.I, c.in)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 9223372036854775808, -9.3e18} {
		_, err := Cast(FloatValue(bad), Int64)
		require.ErrorIs(t, err, ErrBadCast, bad)
	}
	// STRING → INT64: decimal or 0x hex, with a sign; a leading zero is not octal.
	for in, want := range map[string]int64{"017": 17, "-12": -12, "+7": 7, "0x1F": 31, "-0x10": -16, " 42 ": 42} {
		i, err := Cast(StringValue(in), Int64)
		require.NoError(t, err, in)
		require.Equal(t, want, i.I, in)
	}
	for _, bad := range []string{"0b101", "0o17", "1_000", "", "--1", "1.5", "0x", "12a"} {
		_, err := Cast(StringValue(bad), Int64)
		require.ErrorIs(t, err, ErrBadCast, bad)
	}
	// STRING → FLOAT64: float literals and [+-]inf/infinity/nan in any case.
	for in, want := range map[string]float64{"1.5": 1.5, "-2e3": -2000, ".5": 0.5, "+Inf": math.Inf(1), "-infinity": math.Inf(-1), "7": 7} {
		f, err := Cast(StringValue(in), Float64)
		require.NoError(t, err, in)
		require.Equal(t, want, f.F, in)
	}
	f, err := Cast(StringValue("NaN"), Float64)
	require.NoError(t, err)
	require.True(t, math.IsNaN(f.F))
	for _, bad := range []string{"0x1p-2", "-0X10", "1_0.5", "one", ""} {
		_, err := Cast(StringValue(bad), Float64)
		require.ErrorIs(t, err, ErrBadCast, bad)
	}
	c, ok := Compare(IntValue(3), FloatValue(2.5))
	require.True(t, ok)
	require.Equal(t, 1, c)
	_, ok = Compare(IntValue(3), StringValue("3"))
	require.False(t, ok)
	st, ok := Supertype(String, Timestamp)
	require.True(t, ok)
	require.Equal(t, KindTimestamp, st.Kind)
}

// TIME's text form, both ways; expected values written by hand.
func TestParseFormatTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		us   int64 // -1: an error
		text string
	}{
		{"00:00:00", 0, "00:00:00"},
		{"12:34:56", 45296 * Second, "12:34:56"},
		{"1:2:3", 3723 * Second, "01:02:03"},
		{"23:59:59.999999", Day - 1, "23:59:59.999999"},
		{"01:02:03.25", 3723*Second + 250000, "01:02:03.250000"},
		{"23:59:60", 0, "00:00:00"}, // a leap second: the next one
		{" 12:34:56 ", -1, ""},
		{"12:34", -1, ""},
		{"12:34:56.1234567", -1, ""},
		{"24:00:00", -1, ""},
		{"12:60:00", -1, ""},
		{"12:00:00Z", -1, ""},
		{"noon", -1, ""},
	} {
		us, err := ParseTime(c.in)
		if c.us < 0 {
			require.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.us, us, c.in)
		require.Equal(t, c.text, FormatTime(us), c.in)
	}
}

package types

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Canonical text both ways and ISO 8601, checked against BigQuery's
// documented examples and by hand.
func TestParseFormatInterval(t *testing.T) {
	for _, c := range []struct {
		in, want string // want "" for an error
	}{
		{"1-2 3 4:5:6.789", "1-2 3 4:5:6.789"},
		{"-1-2 -3 -4:5:6", "-1-2 -3 -4:5:6"},
		{"0-0 0 0:0:0.000001", "0-0 0 0:0:0.000001"},
		{"0-0 0 36:34:56.789", "0-0 0 36:34:56.789"},
		{"P1Y2M3DT4H5M6.5S", "1-2 3 4:5:6.500"},
		{"P-1Y2W", "-1-0 14 0:0:0"},
		{"PT-90M", "0-0 0 -1:30:0"},
		{"PT10H20M30,456S", "0-0 0 10:20:30.456"}, // ISO 8601's decimal comma (the conversion reference's example)
		{"PT1,5M", ""}, // only seconds have a fraction
		{"PT1,2,3S", ""},
		{"PT30,S", ""}, // digits on both sides of the point, as ZetaSQL reads them
		{"PT,5S", ""},
		{"PT30.S", ""},
		{"PT.5S", ""},
		{"PT-0.5S", "0-0 0 -0:0:0.500"},
		{"P", ""},
		{"1 day", ""},
		{"1-2 3", "1-2 3 0:0:0"},
		{"1-2", "1-2 0 0:0:0"},
		{"10:20:30", "0-0 0 10:20:30"},
		{"3 10:20:30", "0-0 3 10:20:30"},
		{"-3 4 5", "-0-3 4 5:0:0"},
		{"10:20", ""},
		{"3 4", ""},
		{"5124095577:0:0", ""},
		{"PT5124095577H", ""},
		{"1-2 3 4:5:6.1234567", ""},
		{"10001-0 0 0:0:0", ""},
	} {
		v, err := ParseInterval(c.in)
		if c.want == "" {
			require.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, FormatInterval(v), c.in)
	}
}

func TestParseIntervalParts(t *testing.T) {
	for _, c := range []struct {
		in       string
		from, to DatePart
		want     string
	}{
		{"10:20:30", PartHour, PartSecond, "0-0 0 10:20:30"},
		{"-1:30", PartHour, PartMinute, "0-0 0 -1:30:0"},
		{"2-11", PartYear, PartMonth, "2-11 0 0:0:0"},
		{"3 4", PartDay, PartHour, "0-0 3 4:0:0"},
		{"-5 -6:7", PartDay, PartMinute, "0-0 -5 -6:7:0"},
		{"1.5", PartSecond, PartSecond, "0-0 0 0:0:1.500"},
		{"-7", PartWeek, PartWeek, "0-0 -49 0:0:0"},
		{"2", PartQuarter, PartQuarter, "0-6 0 0:0:0"},
		{"10:20", PartHour, PartSecond, ""},
		{"1-2", PartDay, PartHour, ""},
		{"x", PartDay, PartDay, ""},
	} {
		v, err := ParseIntervalParts(c.in, c.from, c.to)
		if c.want == "" {
			require.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, FormatInterval(v), c.in)
	}
}

// Intervals compare with a month as 30 days and a day as 24 hours.
func TestIntervalCompare(t *testing.T) {
	month, _ := IntervalOf(1, 0, 0)
	days30, _ := IntervalOf(0, 30, 0)
	hours25, _ := IntervalOf(0, 0, 25*Hour)
	day, _ := IntervalOf(0, 1, 0)
	c, ok := Compare(month, days30)
	require.True(t, ok)
	require.Zero(t, c)
	c, _ = Compare(day, hours25)
	require.Negative(t, c)
	c, _ = Compare(month, hours25)
	require.Positive(t, c)
}

// An out-of-range interval's error names the text it read.
func TestIntervalOverflowMessage(t *testing.T) {
	for _, in := range []string{"PT5124095577H", "5124095577:0:0"} {
		_, err := ParseInterval(in)
		require.ErrorIs(t, err, ErrIntervalOverflow, in)
		require.Contains(t, err.Error(), in)
	}
}

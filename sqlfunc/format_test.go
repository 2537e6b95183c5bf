package sqlfunc

import (
	"strings"
	"testing"

	"logq/types"
)

// FORMAT never panics, whatever the format and the arguments' kinds, and a
// format that passes the load-time check (kinds only) fails at run time
// only for a value the check cannot see (a negative %x, a * width or
// precision past its limit, a result past 1 MiB).
func FuzzFormat(f *testing.F) {
	for _, s := range []string{"%d", "%'d|%x", "%*.*f", "%-*s", "%#o %T %t", "%", "%5.2%", "%.*g", "%p%P", "%'X", "%0*d"} {
		f.Add(s, int64(-42), 3.5, "ab")
	}
	f.Fuzz(func(t *testing.T, format string, i int64, x float64, s string) {
		args := []types.Value{types.IntValue(i), types.FloatValue(x), types.StringValue(s),
			types.NullOf(types.Int64), types.IntValue(3), types.Value{T: types.Bytes, S: s}}
		for n := 0; n <= len(args); n++ {
			kinds := make([]types.Kind, n)
			for k := range kinds {
				kinds[k] = args[k].T.Kind
			}
			_, _, checkErr := formatSQL(format, nil, kinds)
			_, _, runErr := formatSQL(format, args[:n], kinds)
			if checkErr != nil && runErr == nil {
				t.Fatalf("%q with %d arguments: refused at load (%v) but ran", format, n, checkErr)
			}
			// Passing the check, a run fails only for what the kinds do not
			// show: a negative %o/%x, a * width or precision, or the length.
			if checkErr == nil && runErr != nil {
				msg := runErr.Error()
				if !strings.Contains(msg, "cannot format the negative value") &&
					!strings.Contains(msg, "longer than FORMAT's limit") &&
					!strings.Contains(msg, "a precision of") {
					t.Fatalf("%q with %d arguments: passed the check but failed at run: %v", format, n, runErr)
				}
			}
		}
	})
}

// A decimal's %f %e %g digits, by hand: half away from zero, carries that
// add a digit, zero, and the # flag (keeps the point and %g's zeros).
func TestDecimalDigitsFormat(t *testing.T) {
	for _, c := range []struct {
		in   string
		verb byte
		prec int
		alt  bool
		want string
	}{
		{"99.96", 'f', 1, false, "100.0"},
		{"99.95", 'f', 1, false, "100.0"},
		{"99.94", 'f', 1, false, "99.9"},
		{"-2.5", 'f', 0, false, "3"}, // |x|: the caller writes the sign
		{"0.5", 'f', 0, false, "1"},
		{"0.49", 'f', 0, false, "0"},
		{"0.004", 'f', 2, false, "0.00"},
		{"0", 'f', 3, false, "0.000"},
		{"0", 'e', 2, false, "0.00e+00"},
		{"0", 'g', 6, false, "0"},
		{"0", 'g', 3, true, "0.00"},
		{"9.995", 'e', 2, false, "1.00e+01"},
		{"123456789", 'e', 3, false, "1.235e+08"},
		{"0.000123", 'e', 1, true, "1.2e-04"},
		{"7", 'e', 0, true, "7.e+00"},
		{"123456", 'g', 6, false, "123456"},
		{"1234567", 'g', 6, false, "1.23457e+06"},
		{"0.0001", 'g', 6, false, "0.0001"},
		{"0.00001", 'g', 6, false, "1e-05"},
		{"1.5", 'g', 6, true, "1.50000"},
		{"100", 'g', 2, false, "1e+02"},
		{"100", 'g', 3, false, "100"},
		{"12", 'f', 0, true, "12."},
	} {
		d := types.SigDigitsOf(c.in)
		if got := d.Format(c.verb, c.prec, c.alt); got != c.want {
			t.Errorf("%s by %%%s.%d%c: got %q, want %q", c.in, map[bool]string{true: "#"}[c.alt], c.prec, c.verb, got, c.want)
		}
	}
}

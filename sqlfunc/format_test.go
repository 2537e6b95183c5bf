package sqlfunc

import (
	"testing"

	"logq/types"
)

// FORMAT never panics, whatever the format and the arguments' kinds, and a
// format that passes the load-time check (kinds only) fails at run time
// only for a value the check cannot see (a negative %x, a * out of range).
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
		}
	})
}

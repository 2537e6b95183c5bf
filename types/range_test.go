package types

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// RANGE text both ways, and the order: lower bounds first (unbounded
// first), then upper bounds (unbounded last). Expected values by hand.
func TestRangeTextAndOrder(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[2020-01-01, 2020-01-02)", "[2020-01-01, 2020-01-02)"},
		{"[unbounded, Null)", "[UNBOUNDED, UNBOUNDED)"},
		{"[2020-5-24, UNBOUNDED)", "[2020-05-24, UNBOUNDED)"},
	} {
		v, err := ParseRange(Date, c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, FormatRange(v))
	}
	ts, err := ParseRange(Timestamp, "[2020-01-01 12:00:00+02, 2020-01-01 12:00:00.5)")
	require.NoError(t, err)
	require.Equal(t, "[2020-01-01 10:00:00+00, 2020-01-01 12:00:00.500+00)", FormatRange(ts))
	// ZetaSQL's strict format (functions/range.cc ParseRangeBoundaries):
	// no space but the one after the comma.
	for _, bad := range []string{"2020-01-01, 2020-01-02", "[2020-01-02, 2020-01-01)", "[2020-01-01, 2020-01-01)", "[2020-01-01)", "[x, y)", "[2020-01-01, 2020-01-02]",
		"[2020-01-01,2020-01-02)", "[2020-01-01,  2020-01-02)", " [2020-01-01, 2020-01-02)", "[ 2020-01-01, 2020-01-02)", "[2020-01-01, 2020-01-02 )", "[a, b, c)"} {
		_, err := ParseRange(Date, bad)
		require.ErrorIs(t, err, ErrRange, bad)
	}
	r := func(s string) Value { v, err := ParseRange(Date, s); require.NoError(t, err); return v }
	sorted := []Value{r("[UNBOUNDED, 2020-01-01)"), r("[UNBOUNDED, UNBOUNDED)"), r("[2020-01-01, 2020-01-02)"), r("[2020-01-01, 2020-01-03)"), r("[2020-01-01, UNBOUNDED)"), r("[2020-01-02, 2020-01-03)")}
	for i := range sorted {
		for j := range sorted {
			c, ok := Compare(sorted[i], sorted[j])
			require.True(t, ok)
			require.Equal(t, compareInt(int64(i), int64(j)), c, "%s vs %s", FormatRange(sorted[i]), FormatRange(sorted[j]))
		}
	}
}

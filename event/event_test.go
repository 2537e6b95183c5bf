package event

import (
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitBodyForms(t *testing.T) {
	for body, want := range map[string]int{
		`[{"a":1},{"a":2}]`:                 2,
		`{"batch":[{"a":1},{"a":2}]}`:       2,
		`{"a":1}`:                           1,
		"{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n": 3,
		`{"batch":[{"a":1}],"x":1}`:         1,
		`[]`:                                0,
	} {
		evs, err := Split([]byte(body))
		require.NoError(t, err, body)
		require.Len(t, evs, want, body)
	}
	for _, bad := range []string{``, `nope`, `[{"a":1}`, `{"a":1} x`, `[1,]`} {
		_, err := Split([]byte(bad))
		require.ErrorIs(t, err, ErrJSON, bad)
	}
}

// SplitMarking marks the events whose top-level object has one of the keys:
// written plainly, or with an escape (which may spell one); a key nested
// deeper, in a value, or in a longer name is not one; a non-object element
// is marked (the caller decides).
func TestSplitMarking(t *testing.T) {
	keys := []string{"log_entry", "message"}
	for _, c := range []struct {
		body string
		want []bool
	}{
		{`[{"message":1},{"a":{"message":2}},{"x":"message"},{"my_message":3},{"b":1,"log_entry":"l"},{"mess\u0061ge":4},{"\u0061":5},7]`,
			[]bool{true, false, false, false, true, true, true, true}},
		{"{\"a\":1}\n{\"message\":2}\n", []bool{false, true}},
		{`{"batch":[{"a":1},{"message":2}]}`, []bool{false, true}},
		{`{"message":1}`, []bool{true}},
		{`[]`, []bool{}},
	} {
		evs, marked, err := SplitMarking([]byte(c.body), keys)
		require.NoError(t, err, c.body)
		require.Equal(t, c.want, marked, c.body)
		plain, err := Split([]byte(c.body))
		require.NoError(t, err, c.body)
		require.Equal(t, plain, evs, c.body)
	}
}

// Timestamps: ISO 8601 text, or integers whose digit count gives the unit.
func TestParseTime(t *testing.T) {
	const us = int64(1_700_000_000_123_456) // 2023-11-14T22:13:20.123456Z
	for raw, want := range map[string]int64{
		`"2023-11-14T22:13:20.123456Z"`:      us,
		`"2023-11-14T23:13:20.123456+01:00"`: us,
		`1700000000`:                         1_700_000_000_000_000,
		`1700000000123`:                      1_700_000_000_123_000,
		`1700000000123456`:                   us,
		`1700000000123456789`:                us,
		`1700000000.5`:                       1_700_000_000_500_000,
	} {
		got, ok := ParseTime([]byte(raw))
		require.True(t, ok, raw)
		require.Equal(t, want, got, raw)
	}
	for _, raw := range []string{``, `"yesterday"`, `17000`, `null`, `true`, `-1700000000.5`} {
		_, ok := ParseTime([]byte(raw))
		require.False(t, ok, raw)
	}
}

func TestSanitizeKey(t *testing.T) {
	for in, want := range map[string]string{
		"status_code":  "status_code",
		"x-request-id": "x_request_id",
		"1st":          "_1st",
		"":             "_",
		"a.b c":        "a_b_c",
		"é":            "__", // two bytes, each replaced
	} {
		require.Equal(t, want, SanitizeKey([]byte(in)), in)
		require.Equal(t, in == want, SafeKey([]byte(in)), in)
	}
}

// Generated ids are UUIDs (version 4 layout), distinct within a chunk, and
// the same for the same seed and index (a WAL replay).
func TestUUID(t *testing.T) {
	seed := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i := uint64(0); i < 1000; i++ {
		id := UUID(seed, i)
		require.Regexp(t, re, id)
		require.False(t, seen[id], id)
		seen[id] = true
		require.Equal(t, id, UUID(seed, i))
	}
	// The seed's bytes, with the version and variant bits set.
	require.Equal(t, "01020304-0506-4708-890a-0b0c0d0e0f10", UUID(seed, 0))
}

func TestScalarText(t *testing.T) {
	for raw, want := range map[string]string{`"a\nb"`: "a\nb", `"\u00e9"`: "é", `12.5`: "12.5", `true`: "true", `null`: "null"} {
		require.Equal(t, want, ScalarText([]byte(raw)), raw)
	}
	require.True(t, IsNull([]byte("null")))
	require.False(t, IsNull([]byte(`"null"`)))
}

// Split never panics, and each event it returns is one JSON object that
// splits to itself.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`[{"a":1},{"b":[1,2,{"c":"\u00e9"}]}]`, `{"batch":[{"a":1}]}`, "{\"a\":1}\n{\"a\":2}", `{"a":"\"\\"}`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		evs, err := Split(body)
		if err != nil {
			return
		}
		for _, ev := range evs {
			if len(ev) == 0 || ev[0] != '{' {
				continue // an array's elements need not be objects; ingest refuses them per event
			}
			again, err := Split(ev)
			if err != nil {
				t.Fatalf("event %q of %q does not split again: %v", ev, body, err)
			}
			if len(again) != 1 && !isBatch(ev) {
				t.Fatalf("event %q split into %d", ev, len(again))
			}
		}
	})
}

// isBatch reports an object whose only key is "batch" (Split unwraps it).
func isBatch(ev []byte) bool {
	_, ok, _ := (&splitter{}).batchField(ev)
	return ok
}

// ParseInt reads every INT64, the extremes included, and refuses what is
// past them or not an integer.
func TestParseInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"-12", -12, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"-9223372036854775805", math.MinInt64 + 3, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"1.5", 0, false},
		{"-", 0, false},
	} {
		got, ok := ParseInt([]byte(c.in))
		require.Equal(t, c.ok, ok, c.in)
		if ok {
			require.Equal(t, c.want, got, c.in)
		}
	}
}

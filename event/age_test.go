package event

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An event older than its chunk's arrival minus MaxAge is refused, by
// Shred and by AppendBody alike, with the retention in the reason; one at
// the boundary, a newer one, and any event when MaxAge is 0 are taken.
func TestEventsOlderThanTheRetentionAreRefused(t *testing.T) {
	arrival := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	cases := []struct {
		name   string
		ev     string
		maxAge time.Duration
		reason string // "" when taken
	}{
		{"nine months old", `{"timestamp":"2026-03-05T12:00:00Z","event_message":"x"}`, 90 * day,
			"the event's timestamp 2026-03-05T12:00:00Z is older than the retention of 90d"},
		// 2026-09-06T12:00:00Z is exactly 90 days before the arrival.
		{"at the boundary", `{"timestamp":"2026-09-06T12:00:00Z"}`, 90 * day, ""},
		{"a microsecond past it", `{"timestamp":"2026-09-06T11:59:59.999999Z"}`, 90 * day,
			"the event's timestamp 2026-09-06T11:59:59.999999Z is older than the retention of 90d"},
		// 1700000000 s after the epoch is 2023-11-14T22:13:20Z.
		{"epoch microseconds", `{"timestamp":1700000000000000}`, 7 * day,
			"the event's timestamp 2023-11-14T22:13:20Z is older than the retention of 7d"},
		{"a retention in hours", `{"timestamp":"2026-12-04T11:00:00Z"}`, 36 * time.Hour, ""},
		{"past a retention in hours", `{"timestamp":"2026-12-03T23:00:00Z"}`, 36 * time.Hour,
			"the event's timestamp 2026-12-03T23:00:00Z is older than the retention of 36h0m0s"},
		{"no timestamp: the arrival", `{"event_message":"x"}`, 90 * day, ""},
		{"no retention", `{"timestamp":"2001-01-01T00:00:00Z"}`, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Origin{Arrival: arrival.UnixMicro(), MaxAge: c.maxAge.Microseconds()}
			_, serr := NewTree(0).Shred([]byte(c.ev), o, &recorder{got: map[string]string{}})
			_, _, _, berr := AppendBody(nil, []byte(c.ev), o)
			if c.reason == "" {
				require.NoError(t, serr)
				require.NoError(t, berr)
				return
			}
			for _, err := range []error{serr, berr} {
				require.EqualError(t, err, c.reason)
				require.True(t, errors.Is(err, ErrTooOld))
				r := RejectOf(3, err)
				require.True(t, r.TooOld)
				require.Equal(t, "event 3: "+c.reason, r.String())
			}
		})
	}
	require.False(t, RejectOf(0, errors.New("an event must be a JSON object")).TooOld)
}

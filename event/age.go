package event

import (
	"errors"
	"fmt"
	"time"
)

// ErrTooOld is the reason an event older than the retention is refused: a
// storage engine would drop it at its next retention pass, so it is never
// stored and the sender is told, in the 406 that lists refused events,
// instead of being answered 200 for rows nobody will see.
var ErrTooOld = errors.New("older than the retention")

// checkAge refuses an event whose timestamp ts is older than its chunk's
// arrival minus the retention. Measured from the arrival, not the clock,
// so that a replay of the chunk (and a drain or a tail reading it back)
// refuses the same events that the ingest did.
func (o Origin) checkAge(ts int64) error {
	if o.MaxAge > 0 && ts < o.Arrival-o.MaxAge {
		return fmt.Errorf("the event's timestamp %s is %w of %s", time.UnixMicro(ts).UTC().Format(time.RFC3339Nano), ErrTooOld, AgeText(o.MaxAge))
	}
	return nil
}

// AgeText writes an age in µs as the --retention flag takes it: whole days
// as "90d", anything else as a Go duration ("36h0m0s").
func AgeText(us int64) string {
	d := time.Duration(us) * time.Microsecond
	if day := 24 * time.Hour; d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}

package event

import (
	"errors"
	"fmt"
)

// Reject is one refused event: its position in the request (0-based,
// counting every event or non-empty line of the body) and why. Body
// decoding (package ingest) and storage engines both refuse events, and
// api answers both in one 406 list, so there is one type for both.
type Reject struct {
	Index  int
	Reason string
	TooOld bool // refused for being older than the retention (counted apart)
}

// RejectOf is the Reject of event i refused with err.
func RejectOf(i int, err error) Reject {
	return Reject{Index: i, Reason: err.Error(), TooOld: errors.Is(err, ErrTooOld)}
}

func (r Reject) String() string { return fmt.Sprintf("event %d: %s", r.Index, r.Reason) }

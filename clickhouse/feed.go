package clickhouse

import (
	"logq/storage"
)

// The feed (storage.Feed) of a ClickHouse-backed instance is a Ring of the
// chunks this instance acknowledged: every instance delivers to the drains
// what it ingested, from memory. A reader that falls further behind than
// FeedBytes loses what it missed (counted), and a crash or restart of the
// instance loses what it had acknowledged and not yet delivered; nothing is
// delivered twice by one instance, and no instance delivers another's
// events (docs/drains.md). The ring is made on the first read, so an
// instance nobody follows copies nothing.

// FeedBytes bounds the ring.
const FeedBytes = 64 << 20

func (e *Engine) feed() *storage.Ring {
	e.feedMu.Lock()
	defer e.feedMu.Unlock()
	if e.ring == nil {
		e.ring = storage.NewRing(FeedBytes, e.cfg.Retention)
	}
	return e.ring
}

func (e *Engine) feedIfUsed() *storage.Ring {
	e.feedMu.Lock()
	defer e.feedMu.Unlock()
	return e.ring
}

// FeedHead implements storage.Feed.
func (e *Engine) FeedHead(source string) storage.Pos { return e.feed().FeedHead(source) }

// ReadFeed implements storage.Feed.
func (e *Engine) ReadFeed(source string, from storage.Pos, maxEvents int) ([]storage.Record, storage.Pos, int64, error) {
	return e.feed().ReadFeed(source, from, maxEvents)
}

// FeedBacklog implements storage.Feed.
func (e *Engine) FeedBacklog(source string, from storage.Pos) (int64, error) {
	return e.feed().FeedBacklog(source, from)
}

// FeedChanged implements storage.Feed.
func (e *Engine) FeedChanged() <-chan struct{} { return e.feed().FeedChanged() }

// FeedHolds implements storage.Feed: nothing is held.
func (e *Engine) FeedHolds() *storage.Holds { return nil }

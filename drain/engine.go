package drain

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"logq/drain/dest"
	"logq/event"
	"logq/lql"
	"logq/storage"
)

// The engine runs one stream per (backend, source) that some rule joins:
// a goroutine that reads the source's feed from its position, builds each
// event's body (event.AppendBody), keeps those a rule of the pair matches,
// sends them in batches (at most dest.MaxBatch events, or what came in
// BatchWait) and moves its position past a batch only once the destination
// answered 2xx. A failed batch is sent again after a backoff that doubles
// up to MaxBackoff (a Retry-After is heeded), as long as it takes; one the
// destination refuses for good (a 4xx that retrying cannot fix) is logged,
// counted and passed. A stream holds one batch at a time, so its memory is
// bounded however long a destination is down; the backlog stays in the
// feed (a durable store's WAL, spooled for it).
//
// Positions are saved at most every PositionEvery (and at Close), so a
// crash repeats at most that much; never does a saved position pass an
// event not yet delivered.

// streamKey names a stream.
type streamKey struct{ token, source string }

// stream delivers one source's events to one backend.
type stream struct {
	key     streamKey
	name    string // the backend's name, for logs
	e       *Engine
	cancel  context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex // guards dest and rules, which a config change replaces
	dst     dest.Destination
	rules   []*lql.Query
	version string // the backend's config and rules, as last applied

	committed atomic.Pointer[storage.Pos]
	// oldest is the arrival (µs) of the oldest event read and not yet
	// delivered, 0 when none.
	oldest atomic.Int64
	stats  streamStats
}

type streamStats struct {
	delivered, batches, failed, retried, refused, lost atomic.Int64
	lastError                                          atomic.Pointer[string]
	lastErrorAt                                        atomic.Int64
}

// Engine runs the streams.
type Engine struct {
	opts    *Options
	mu      sync.Mutex
	streams map[streamKey]*stream
	dirty   atomic.Bool // positions changed since the last save
	stop    chan struct{}
	wg      sync.WaitGroup
}

func newEngine(opts *Options) *Engine {
	e := &Engine{opts: opts, streams: map[streamKey]*stream{}, stop: make(chan struct{})}
	if opts.Positions != nil {
		e.wg.Add(1)
		go e.savePositions()
	}
	return e
}

func (e *Engine) log() *slog.Logger { return e.opts.Logger }

// sync makes the running streams those cfg's rules ask for: new ones start
// (at the feed's head, or the position saved for them), changed ones take
// their new destination and rules, and those no rule asks for any more stop
// and forget their position.
func (e *Engine) sync(cfg *Config) {
	type want struct {
		b     Backend
		rules []string
	}
	wants := map[streamKey]*want{}
	for _, r := range cfg.Rules {
		b := cfg.backendByID(r.BackendID)
		if b == nil || r.Source == "" {
			continue
		}
		k := streamKey{b.Token, r.Source}
		w := wants[k]
		if w == nil {
			w = &want{b: *b}
			wants[k] = w
		}
		w.rules = append(w.rules, r.LQL)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	started := false
	defer func() {
		// A new stream's starting position is saved before the change is
		// answered: a crash right after it must not move the drain to the
		// head of the feed, past what was acknowledged meanwhile.
		if started && e.opts.Positions != nil {
			if err := e.opts.Positions.save(); err != nil {
				e.log().Error("drain positions not saved", "err", err)
			}
		}
	}()
	for k, s := range e.streams {
		if wants[k] == nil {
			s.cancel()
			<-s.done
			delete(e.streams, k)
			e.opts.Feed.FeedHolds().Release(k.source, k.token)
			if e.opts.Positions != nil {
				e.opts.Positions.forget(k.token, k.source)
				e.dirty.Store(true)
			}
		}
	}
	for k, w := range wants {
		sort.Strings(w.rules)
		version := configVersion(w.b, w.rules)
		s := e.streams[k]
		if s != nil && s.version == version {
			continue
		}
		dst, err := dest.New(w.b.Type, w.b.Config, e.opts.Dest)
		if err != nil {
			e.log().Error("a drain's destination cannot be made; its events wait", "drain", w.b.Name, "err", err)
			continue
		}
		var rules []*lql.Query
		for _, text := range w.rules {
			q, err := lql.Parse(text)
			if err != nil {
				e.log().Error("a drain rule does not parse; it is skipped", "drain", w.b.Name, "lql", text, "err", err)
				continue
			}
			rules = append(rules, q)
		}
		if s != nil {
			s.mu.Lock()
			s.dst, s.rules, s.version, s.name = dst, rules, version, w.b.Name
			s.mu.Unlock()
			continue
		}
		e.start(k, w.b.Name, dst, rules, version)
		started = true
	}
}

// configVersion identifies what a stream runs with.
func configVersion(b Backend, rules []string) string {
	out := b.Type + "\x00" + canonicalJSON(b.Config)
	for _, r := range rules {
		out += "\x00" + r
	}
	return out
}

// start runs a new stream. Called with mu held.
func (e *Engine) start(k streamKey, name string, dst dest.Destination, rules []*lql.Query, version string) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{key: k, name: name, e: e, cancel: cancel, done: make(chan struct{}), dst: dst, rules: rules, version: version}
	pos, ok := storage.Pos{}, false
	if e.opts.Positions != nil {
		pos, ok = e.opts.Positions.get(k.token, k.source)
	}
	if !ok {
		pos = e.opts.Feed.FeedHead(k.source) // a new drain delivers what comes from now on
	}
	s.commit(pos)
	e.streams[k] = s
	go s.run(ctx)
}

// close stops every stream and saves the positions.
func (e *Engine) close() {
	e.mu.Lock()
	for _, s := range e.streams {
		s.cancel()
	}
	for _, s := range e.streams {
		<-s.done
	}
	e.mu.Unlock()
	close(e.stop)
	e.wg.Wait()
	if e.opts.Positions != nil {
		if err := e.opts.Positions.save(); err != nil {
			e.log().Error("drain positions not saved", "err", err)
		}
	}
}

// savePositions writes the positions every PositionEvery while they change.
func (e *Engine) savePositions() {
	defer e.wg.Done()
	t := time.NewTicker(e.opts.PositionEvery)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if e.dirty.Swap(false) {
				if err := e.opts.Positions.save(); err != nil {
					e.dirty.Store(true)
					e.log().Error("drain positions not saved; retrying", "err", err)
				}
			}
		}
	}
}

// commit records that every event before pos is delivered (or needs no
// delivery).
func (s *stream) commit(pos storage.Pos) {
	p := pos
	s.committed.Store(&p)
	s.e.opts.Feed.FeedHolds().Set(s.key.source, s.key.token, pos)
	if s.e.opts.Positions != nil {
		s.e.opts.Positions.set(s.key.token, s.key.source, pos)
		s.e.dirty.Store(true)
	}
}

// batch is the events being gathered for one request.
type batch struct {
	events  []dest.Event // each Body a slice of bufs (or of an array bufs grew out of: never written again)
	bufs    []byte
	first   time.Time // when its first event was added
	arrival int64     // its first event's arrival (µs)
}

func (b *batch) reset() {
	b.events, b.bufs = b.events[:0], b.bufs[:0]
}

// flight is a batch being sent, on its own goroutine, while the stream
// builds the next one: at most one request is under way, and positions
// move in order.
type flight struct {
	done   chan bool   // true once delivered (or refused for good); false when the stream stops first
	upTo   storage.Pos // committed once it is done
	oldest int64       // arrival of its first event
}

// run is the stream's loop.
func (s *stream) run(ctx context.Context) {
	defer close(s.done)
	o := s.e.opts
	feed := o.Feed
	read := *s.committed.Load() // where reading goes on
	b, spare := &batch{}, &batch{}
	var fl *flight
	// finish waits for the batch in flight and commits past it; false when
	// the stream is stopping.
	finish := func() bool {
		if fl == nil {
			return true
		}
		ok := <-fl.done
		if ok {
			s.commit(fl.upTo)
		}
		fl = nil
		if len(b.events) > 0 {
			s.oldest.Store(b.arrival) // what waits now is the batch being built
		} else {
			s.oldest.Store(0)
		}
		return ok
	}
	// launch sends b once the batch before it is done; the events read so
	// far are delivered once it is, up to upTo.
	launch := func(upTo storage.Pos) bool {
		if !finish() {
			return false
		}
		f := &flight{done: make(chan bool, 1), upTo: upTo, oldest: s.oldest.Load()}
		fl = f
		go func(bt *batch) { f.done <- s.deliver(ctx, bt) }(b)
		b, spare = spare, b
		b.reset()
		return true
	}
	// idle records that every event read is delivered or needs no
	// delivery once the batch in flight is: nothing waits in b.
	idle := func(p storage.Pos) {
		if fl != nil {
			fl.upTo = p
			s.oldest.Store(fl.oldest)
			return
		}
		s.commit(p)
		s.oldest.Store(0)
	}
	defer func() {
		// The batch under way ends within stopGrace (deliver); delivered,
		// it is committed, so a clean stop repeats nothing received.
		if fl != nil && <-fl.done {
			s.commit(fl.upTo)
		}
	}()
	// doneUpTo is where the events read so far are delivered once b is:
	// the end of the last record read whole.
	var doneUpTo storage.Pos
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		changed := feed.FeedChanged()
		recs, next, lost, err := feed.ReadFeed(s.key.source, read, o.ReadEvents)
		lost += feed.FeedHolds().TakeLost(s.key.source, s.key.token)
		if lost > 0 {
			s.stats.lost.Add(lost)
			s.e.log().Warn("events dropped from the feed before a drain delivered them", "drain", s.name, "source", s.key.source, "events", lost)
		}
		if err != nil {
			s.fail("reading the feed: " + err.Error())
			backoff = nextBackoff(backoff, o.MaxBackoff)
			if !sleep(ctx, backoff) {
				return
			}
			continue
		}
		backoff = 0
		if len(recs) == 0 {
			read = next // past files dropped meanwhile
			if len(b.events) == 0 {
				idle(read)
			}
			// Caught up: send what waits once it is BatchWait old, or wait
			// for more (or for the batch in flight, to commit past it).
			wait := o.BatchWait
			if len(b.events) > 0 {
				wait = o.BatchWait - time.Since(b.first)
				if wait <= 0 {
					if !launch(read) {
						return
					}
					continue
				}
			}
			var flown chan bool
			if fl != nil {
				flown = fl.done
			}
			select {
			case <-ctx.Done():
				return
			case ok := <-flown:
				fl.done <- ok // finish reads it
				if !finish() {
					return
				}
				if len(b.events) == 0 {
					idle(read)
				}
			case <-changed:
			case <-time.After(wait):
			}
			continue
		}
		for _, rec := range recs {
			if len(b.events) == 0 && fl == nil {
				s.oldest.Store(rec.Arrival) // a batch starts: the oldest event not yet delivered
			}
			for i, ev := range rec.Events {
				start := len(b.bufs)
				var body []byte
				var ts int64
				var msg string
				body, ts, msg, err = event.AppendBody(b.bufs, ev, rec.Origin(i))
				if err != nil {
					continue // refused when it was ingested too
				}
				b.bufs = body
				if !s.matches(b.bufs[start:]) {
					b.bufs = b.bufs[:start]
					continue
				}
				if len(b.events) == 0 {
					b.first = time.Now()
					b.arrival = rec.Arrival
				}
				b.events = append(b.events, dest.Event{Timestamp: ts, Message: msg})
				b.events[len(b.events)-1].Body = b.bufs[start:len(b.bufs):len(b.bufs)]
				if len(b.events) >= o.MaxBatch {
					// Full in the middle of this record (or at its end): the
					// record counts as delivered once its last event is.
					upTo := doneUpTo
					if i == len(rec.Events)-1 {
						upTo = rec.Next
					}
					if !launch(upTo) {
						return
					}
				}
			}
			doneUpTo = rec.Next
			read = rec.Next
			if len(b.events) == 0 {
				idle(read)
			}
		}
	}
}

// matches reports whether some rule of the stream matches body.
func (s *stream) matches(body []byte) bool {
	s.mu.Lock()
	rules := s.rules
	s.mu.Unlock()
	for _, q := range rules {
		if q.Match(body) {
			return true
		}
	}
	return false
}

// deliver sends b, as often as it takes: true once the destination took
// it (or refused it for good), false when the stream is stopping first.
func (s *stream) deliver(ctx context.Context, b *batch) bool {
	o := s.e.opts
	backoff := time.Duration(0)
	for {
		s.mu.Lock()
		dst := s.dst
		s.mu.Unlock()
		// A stop (ctx) leaves the request under way stopGrace to finish:
		// cut short, a batch the destination had received would be sent
		// again after a restart.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.SendTimeout)
		stopping := context.AfterFunc(ctx, func() { time.AfterFunc(stopGrace, cancel) })
		err := dst.Send(sctx, dest.Batch{Source: s.key.source, Events: b.events})
		stopping()
		cancel()
		if err == nil {
			s.stats.delivered.Add(int64(len(b.events)))
			s.stats.batches.Add(1)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		var se *dest.SendError
		if errors.As(err, &se) && !se.Retry {
			s.stats.failed.Add(1)
			s.stats.refused.Add(int64(len(b.events)))
			s.fail(err.Error())
			s.e.log().Error("a drain's destination refused a batch for good; it is passed", "drain", s.name, "source", s.key.source, "events", len(b.events), "err", err)
			return true
		}
		s.stats.failed.Add(1)
		s.stats.retried.Add(1)
		s.fail(err.Error())
		backoff = nextBackoff(backoff, o.MaxBackoff)
		wait := backoff
		if se != nil && se.RetryAfter > wait {
			wait = min(se.RetryAfter, 5*time.Minute)
		}
		s.e.log().Warn("a drain's batch failed; retrying", "drain", s.name, "source", s.key.source, "events", len(b.events), "in", wait, "err", err)
		if !sleep(ctx, wait) {
			return false
		}
	}
}

// stopGrace bounds how long a stopping stream waits for the request under
// way (a drain deleted, a shutdown).
const stopGrace = 2 * time.Second

// fail records a stream's last error.
func (s *stream) fail(msg string) {
	s.stats.lastError.Store(&msg)
	s.stats.lastErrorAt.Store(time.Now().UnixMicro())
}

// nextBackoff doubles the wait, from 500 ms up to max.
func nextBackoff(d, max time.Duration) time.Duration {
	if d == 0 {
		return 500 * time.Millisecond
	}
	return min(2*d, max)
}

// sleep waits d, or reports false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

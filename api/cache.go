package api

import (
	"context"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// resultCache holds encoded results of cached endpoints (CONTRACT.md §6).
//
// An entry lives ttl from its creation; reads never extend it. Every warm
// interval it is re-run in the background whether or not anyone reads it; a
// successful refresh replaces it (a new creation), a failed one drops it.
// Readers never wait for a refresh. Identical misses share one run. Errors are
// never stored. The number of entries is bounded by an LRU.
type resultCache struct {
	clock   Clock
	mu      sync.Mutex
	entries *lru.Cache[string, *cacheEntry]
	flights map[string]*flight
	// refreshed is told the outcome of each background refresh (metrics).
	refreshed func(endpoint string, ok bool)
	wg        sync.WaitGroup
	closed    bool
}

type runFunc func(ctx context.Context) (encoded, error)

// encoded is a response body and the number of rows it holds (for the log
// line; counting them again in the body cost as much as writing it).
type encoded struct {
	body []byte
	rows int
}

type cacheEntry struct {
	body     encoded
	created  time.Time
	ttl      time.Duration
	warm     time.Duration
	timer    Timer
	run      runFunc
	endpoint string
}

type flight struct {
	done chan struct{}
	body encoded
	err  error
}

func newResultCache(size int, clock Clock, refreshed func(string, bool)) *resultCache {
	c := &resultCache{clock: clock, flights: map[string]*flight{}, refreshed: refreshed}
	c.entries, _ = lru.NewWithEvict(size, func(_ string, e *cacheEntry) {
		if e.timer != nil {
			e.timer.Stop()
		}
	})
	return c
}

// get returns the body for key: from a live entry (hit), from a run already
// under way for the same key, or from a new run (miss).
func (c *resultCache) get(ctx context.Context, key, endpoint string, ttl, warm time.Duration, run runFunc) (body encoded, hit bool, err error) {
	c.mu.Lock()
	if e, ok := c.entries.Get(key); ok {
		if c.clock.Now().Sub(e.created) < e.ttl {
			c.mu.Unlock()
			return e.body, true, nil
		}
		c.entries.Remove(key)
	}
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
			return f.body, false, f.err
		case <-ctx.Done():
			return encoded{}, false, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	c.flights[key] = f
	c.mu.Unlock()

	f.body, f.err = run(ctx)

	c.mu.Lock()
	delete(c.flights, key)
	if f.err == nil && !c.closed {
		e := &cacheEntry{body: f.body, created: c.clock.Now(), ttl: ttl, warm: warm, run: run, endpoint: endpoint}
		c.schedule(key, e)
		c.entries.Add(key, e)
	}
	c.mu.Unlock()
	close(f.done)
	return f.body, false, f.err
}

// schedule arms the entry's next background refresh. Called with mu held.
func (c *resultCache) schedule(key string, e *cacheEntry) {
	if e.warm <= 0 {
		return
	}
	e.timer = c.clock.AfterFunc(e.warm, func() { c.refresh(key, e) })
}

func (c *resultCache) refresh(key string, e *cacheEntry) {
	c.mu.Lock()
	if cur, ok := c.entries.Peek(key); !ok || cur != e || c.closed {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1)
	c.mu.Unlock()
	defer c.wg.Done()
	body, err := e.run(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.entries.Peek(key); !ok || cur != e {
		return // evicted or replaced meanwhile
	}
	if err != nil {
		c.entries.Remove(key)
		if c.refreshed != nil {
			c.refreshed(e.endpoint, false)
		}
		return
	}
	fresh := &cacheEntry{body: body, created: c.clock.Now(), ttl: e.ttl, warm: e.warm, run: e.run, endpoint: e.endpoint}
	c.schedule(key, fresh)
	c.entries.Add(key, fresh) // the old entry's timer has fired; eviction stops nothing live
	if c.refreshed != nil {
		c.refreshed(e.endpoint, true)
	}
}

// close stops background refreshes and waits for running ones.
func (c *resultCache) close() {
	c.mu.Lock()
	c.closed = true
	for _, k := range c.entries.Keys() {
		if e, ok := c.entries.Peek(k); ok && e.timer != nil {
			e.timer.Stop()
		}
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// len reports the number of entries.
func (c *resultCache) len() int { return c.entries.Len() }

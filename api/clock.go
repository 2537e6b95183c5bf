package api

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time source of the result cache, injectable so tests can move
// time without sleeping.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once, d from now, in its own goroutine (or, for a
	// FakeClock, in the goroutine that advances past it).
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface{ Stop() bool }

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// FakeClock is a manual clock for tests: Advance moves time and runs the
// callbacks that fall due, in order, before returning.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

// NewFakeClock starts a fake clock at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
	c       *FakeClock
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f at Now()+d.
func (c *FakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f, c: c}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves time forward by d, running every callback that falls due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var next *fakeTimer
		for len(c.timers) > 0 {
			t := c.timers[0]
			if t.stopped {
				c.timers = c.timers[1:]
				continue
			}
			if !t.at.After(end) {
				next = t
				c.timers = c.timers[1:]
				c.now = t.at
			}
			break
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		next.stopped = true
		c.mu.Unlock()
		next.f()
	}
}

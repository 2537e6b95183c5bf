package exec

import (
	"math"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// byteLRU is a process-wide cache bounded by the bytes charged for what it
// keeps: the least recently used go first. The kept values are not changed
// afterwards, or only under a lock of their own (a mask's answers, which
// recharge counts again) or atomically (a kept quantile group's answer,
// computed once). One value may take at most a quarter of the budget, so
// that it does not push out most of the others. The dictionary masks
// (local_maskcache.go), the segments' partial aggregates
// (local_partials.go) and the records' JSON texts (local_late_json.go) are
// kept in one each.
type byteLRU[K comparable, V comparable] struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[K, charged[V]]
	bytes  int64
	budget int64
}

type charged[V any] struct {
	v     V
	bytes int64
}

func newByteLRU[K comparable, V comparable](budget int64) *byteLRU[K, V] {
	c := &byteLRU[K, V]{budget: budget}
	c.lru, _ = simplelru.NewLRU[K, charged[V]](math.MaxInt32, func(_ K, e charged[V]) {
		c.bytes -= e.bytes
	})
	return c
}

// get returns the value kept under k.
func (c *byteLRU[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(k)
	return e.v, ok
}

// add keeps v under k, charged bytes (replacing what two callers made at
// once), and reports false, keeping nothing, when v alone would take more
// than a quarter of the budget.
func (c *byteLRU[K, V]) add(k K, v V, bytes int64) bool {
	if bytes > c.budget/4 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(k); ok {
		c.bytes -= old.bytes
	}
	c.lru.Add(k, charged[V]{v, bytes})
	c.bytes += bytes
	c.evict()
	return true
}

// recharge counts v, kept under k, as bytes now (it grew); nothing when k
// holds v no more.
func (c *byteLRU[K, V]) recharge(k K, v V, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.lru.Peek(k)
	if !ok || cur.v != v {
		return
	}
	c.bytes += bytes - cur.bytes
	c.lru.Add(k, charged[V]{v, bytes})
	c.evict()
}

func (c *byteLRU[K, V]) evict() {
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

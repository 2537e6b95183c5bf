package exec

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"logq/expr"
	"logq/logstore"
	"logq/types"
)

// A sealed segment never changes, so a value predicate's answer per entry
// of one of its dictionaries (an eager dictMask, local_scan_dict.go) is the
// same every time a query meets that segment with that predicate. Saved
// queries are called again and again with the same parameters (Studio
// polls its charts), and over a window of mostly distinct values that
// answer is most of a query's work: api-counts' REGEXP_CONTAINS(req.url,
// @project) over the last hour's ~60k URLs at 10M events costs ~1.3 ms of
// its ~2.3 ms of CPU. So the answer is kept across queries, as one bit per
// entry, keyed by the segment, the field and the predicate with its
// constants, in a process-wide LRU bounded by bytes. ClickHouse's query
// condition cache keeps the same kind of answer per granule.
//
// Only predicates whose answer depends on the entry alone are kept
// (predKey): columns, scalar constants, CASE, and calls of functions that
// take arguments and are not volatile. An evaluation that failed is never
// kept (its predicate goes to the row filter). A segment merged away or
// dropped is never asked for again (the key holds it weakly) and its masks
// age out.

// maskCacheBytes bounds the masks kept: 4 MiB is ~1,100 masks of a
// 30k-entry dictionary, beside a sidecar's 64 MiB column cache.
const maskCacheBytes = 4 << 20

type maskKey struct {
	seg  weak.Pointer[logstore.Segment]
	path string
	pred string
}

type maskCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[maskKey, []uint64]
	bytes  int64
	budget int64
	hits   int64 // masks answered from the cache (tests)
}

var dictMasks = newMaskCache(maskCacheBytes)

func newMaskCache(budget int64) *maskCache {
	c := &maskCache{budget: budget}
	c.lru, _ = simplelru.NewLRU[maskKey, []uint64](math.MaxInt32, func(_ maskKey, bits []uint64) {
		c.bytes -= maskBytes(bits)
	})
	return c
}

func maskBytes(bits []uint64) int64 { return int64(len(bits))*8 + 64 }

func (c *maskCache) get(k maskKey) ([]uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	bits, ok := c.lru.Get(k)
	if ok {
		c.hits++
	}
	return bits, ok
}

// put keeps bits (which no one changes afterwards) under k.
func (c *maskCache) put(k maskKey, bits []uint64) {
	if maskBytes(bits) > c.budget/4 {
		return // one mask would push out most of the others
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(k); ok { // two queries answered it at once
		c.bytes -= maskBytes(old)
	}
	c.lru.Add(k, bits)
	c.bytes += maskBytes(bits)
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

// predKey writes e as a key that two predicates share only when they
// answer alike for every value; false when e's answer may depend on more
// than its column's value (a volatile or argument-less call, a subquery, a
// constant that is not a scalar).
func predKey(e expr.Expr, b *strings.Builder) bool {
	switch x := e.(type) {
	case *expr.ColRef:
		b.WriteString("#")
		b.WriteString(strconv.Itoa(x.Idx))
		return typeKey(x.T, b)
	case *expr.Const:
		if x.V.L != nil {
			return false
		}
		b.WriteString("k")
		if !typeKey(x.V.T, b) {
			return false
		}
		if x.V.Null {
			b.WriteString("N")
			return true
		}
		b.WriteString(strconv.FormatInt(x.V.I, 10))
		b.WriteString(",")
		b.WriteString(strconv.FormatUint(math.Float64bits(x.V.F), 16))
		b.WriteString(",")
		b.WriteString(strconv.Itoa(int(x.V.Months)))
		b.WriteString(",")
		b.WriteString(strconv.Itoa(int(x.V.Days)))
		b.WriteString(",")
		b.WriteString(strconv.Itoa(len(x.V.S)))
		b.WriteString(":")
		b.WriteString(x.V.S)
		return true
	case *expr.Call:
		f := x.Resolve()
		if f == nil || f.Volatile || len(x.Args) == 0 {
			return false
		}
		b.WriteString(x.Fn)
		b.WriteString("/")
		b.WriteString(strconv.Itoa(int(x.Unit)))
		b.WriteString("/")
		b.WriteString(strconv.Itoa(x.Idx))
		if x.Safe {
			b.WriteString("/safe")
		}
		if !typeKey(x.T, b) {
			return false
		}
		return exprsKey(x.Args, b)
	case *expr.Case:
		b.WriteString("case")
		if !typeKey(x.T, b) {
			return false
		}
		for _, w := range x.Whens {
			if !exprsKey([]expr.Expr{w.Cond, w.Then}, b) {
				return false
			}
		}
		return exprsKey([]expr.Expr{x.Else}, b)
	}
	return false
}

func exprsKey(es []expr.Expr, b *strings.Builder) bool {
	b.WriteString("(")
	for _, a := range es {
		if !predKey(a, b) {
			return false
		}
		b.WriteString(";")
	}
	b.WriteString(")")
	return true
}

// typeKey writes t with its collation; a collation inside a compound type,
// which String does not show, is not keyed.
func typeKey(t types.Type, b *strings.Builder) bool {
	if t.Collated() && t.Kind != types.KindString {
		return false
	}
	b.WriteString("<")
	b.WriteString(t.String())
	if c := t.Collation(); c != "" {
		b.WriteString(" collate ")
		b.WriteString(strconv.Quote(c))
	}
	b.WriteString(">")
	return true
}

// boolsToBits packs keep by code.
func boolsToBits(keep []bool) []uint64 {
	bits := make([]uint64, (len(keep)+63)/64)
	for i, k := range keep {
		if k {
			bits[i>>6] |= 1 << (i & 63)
		}
	}
	return bits
}

func bitSet(bits []uint64, i uint32) bool { return bits[i>>6]&(1<<(i&63)) != 0 }

package exec

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

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
// A lazy mask (the open segment, or a short window over a sealed one) asks
// only for the entries its rows hold; those answers are kept the same way,
// by code, and a later query asks the kept answers first. A short window
// over a sealed segment whose every entry was answered takes that mask. An open
// segment's dictionaries only grow while it is open, so its views share
// one set of answers, keyed by the live segment (logstore's Live); sealed,
// it is another key, so that nothing relies on sealing keeping its codes.
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

// Kinds of kept answers.
const (
	maskEager      uint8 = iota // every entry of a sealed segment's dictionary
	maskLazySealed              // entries asked for, of a sealed segment
	maskLazyOpen                // entries asked for, of an open segment's views
)

type maskKey struct {
	seg  weak.Pointer[logstore.Segment]
	path string
	pred string
	kind uint8
}

// maskEntry is what is kept under a key: bits (eager, never changed once
// kept), or answers by code (codeKeep, codeDrop; codeUnknown not asked
// yet), which grow under mu as queries ask for more entries.
type maskEntry struct {
	bits    []uint64
	mu      sync.Mutex
	answers []uint8
}

func (e *maskEntry) bytes() int64 { return int64(len(e.bits))*8 + int64(cap(e.answers)) + 96 }

type maskCache struct {
	*byteLRU[maskKey, *maskEntry]
	// What the cache answered (tests): eager masks, and lazy answers.
	hits, recalled atomic.Int64
}

var dictMasks = newMaskCache(maskCacheBytes)

func newMaskCache(budget int64) *maskCache {
	return &maskCache{byteLRU: newByteLRU[maskKey, *maskEntry](budget)}
}

// get returns the eager mask kept under k for a dictionary of n entries,
// or nil.
func (c *maskCache) get(k maskKey, n int) []uint64 {
	e, ok := c.byteLRU.get(k)
	if !ok || len(e.bits) != (n+63)/64 {
		return nil
	}
	c.hits.Add(1)
	return e.bits
}

// put keeps bits (which no one changes afterwards) under k.
func (c *maskCache) put(k maskKey, bits []uint64) {
	e := &maskEntry{bits: bits}
	c.add(k, e, e.bytes())
}

// answers returns the lazy answers kept under k, made empty if there are
// none.
func (c *maskCache) answers(k maskKey) *maskEntry {
	if e, ok := c.byteLRU.get(k); ok {
		return e
	}
	e := &maskEntry{}
	c.add(k, e, e.bytes())
	return e
}

// recall copies into state the kept answers of pending codes and returns
// the codes still to answer (pending's own memory).
func (e *maskEntry) recall(pending []uint32, state []uint8) []uint32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	still := pending[:0]
	for _, c := range pending {
		if int(c) < len(e.answers) && e.answers[c] != codeUnknown {
			state[c] = e.answers[c]
			continue
		}
		still = append(still, c)
	}
	return still
}

// record keeps the answers state holds for codes; it returns the entry's
// bytes.
func (e *maskEntry) record(codes []uint32, state []uint8) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range codes {
		if int(c) >= len(e.answers) {
			e.answers = append(e.answers, make([]uint8, int(c)+1-len(e.answers))...)
		}
		e.answers[c] = state[c]
	}
	return e.bytes()
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

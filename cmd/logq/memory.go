package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// parseSize reads a byte size: a whole number with an optional unit, binary
// (KiB, MiB, GiB, TiB; also K, M, G, T and Ki, Mi, Gi, Ti, powers of 1024 as
// Docker and Kubernetes read them) or decimal (KB, MB, GB, TB).
func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	if num == "" {
		return 0, fmt.Errorf("invalid size %q: want a number with a unit such as 512MiB or 2GiB", v)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a number with a unit such as 512MiB or 2GiB", v)
	}
	mult := map[string]int64{
		"": 1, "B": 1,
		"K": 1 << 10, "KI": 1 << 10, "KIB": 1 << 10, "KB": 1000,
		"M": 1 << 20, "MI": 1 << 20, "MIB": 1 << 20, "MB": 1000 * 1000,
		"G": 1 << 30, "GI": 1 << 30, "GIB": 1 << 30, "GB": 1000 * 1000 * 1000,
		"T": 1 << 40, "TI": 1 << 40, "TIB": 1 << 40, "TB": 1000 * 1000 * 1000 * 1000,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", v, unit)
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q: too large", v)
	}
	return n * mult, nil
}

// machineMemory is the memory this process may use: the cgroup's limit
// (v2, then v1) when one is set, else the machine's total.
func machineMemory(read func(string) ([]byte, error)) int64 {
	if b, err := read("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	if b, err := read("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err == nil {
		// v1 says "no limit" with a huge number near 2^63.
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < 1<<60 {
			return n
		}
	}
	if b, err := read("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				f := strings.Fields(rest)
				if len(f) == 2 && f[1] == "kB" {
					if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						return n << 10
					}
				}
			}
		}
	}
	return 4 << 30 // unknown: assume a small machine
}

var readFile = os.ReadFile

// sidecarMemory is the default --memory-limit with a data directory or
// ClickHouse: logq runs beside the service whose logs it keeps, and the
// events live on disk. What memory holds then is bounded by the budget
// itself (the open segments, the column cache, one query's rows), so a
// fixed size serves any volume; half the machine, the default before, let
// the heap grow to a gigabyte after a 1M + 1M load where 266 MiB was used
// (docs/performance.md, "A sidecar's memory").
const sidecarMemory = 512 << 20

// defaultMemoryLimit is --memory-limit when none is given: sidecarMemory,
// or half the machine's (or container's) memory if that is less, and half
// the machine when every event is kept in memory (--in-memory, --demo),
// where the limit is what the store can hold.
func defaultMemoryLimit(machine int64, inMemory bool) int64 {
	if inMemory {
		return machine / 2
	}
	return min(machine/2, sidecarMemory)
}

// memoryBudget splits the memory limit among what holds memory: Go's soft
// limit (90%: the rest is headroom for what the runtime does not manage), the
// column cache (1/4: under the default limit, 128 MiB holds the columns
// invocation-stats reads over 7 days of 10M relay events, which 64 MiB
// re-read from their files on every call, at twice the time), each source's
// open segment (1/16, at least 8 MiB, past which it is sealed early) and one
// query's rows (1/4, at least 16 MiB).
type memoryBudget struct {
	limit, goLimit, cache, openPerSource, query int64
}

func budgetFor(limit int64) memoryBudget {
	return memoryBudget{limit: limit, goLimit: limit / 10 * 9, cache: limit / 4, openPerSource: max(limit/16, 8<<20), query: max(limit/4, 16<<20)}
}

// watchMemory samples the runtime's memory four times a second and reports,
// through the returned flag, whether it is above 95% of the limit: Go's soft
// limit (90%) has not held it, so ingest must slow down.
func watchMemory(limit int64) *atomic.Bool {
	over := &atomic.Bool{}
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	go func() {
		for range time.Tick(250 * time.Millisecond) {
			metrics.Read(samples)
			held := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64())
			over.Store(held > limit/100*95)
		}
	}()
	return over
}

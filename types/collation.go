package types

import (
	"fmt"
	"sync"
)

// Collations are known here by their spec alone ('und:ci', 'binary', …):
// package collation parses a spec and interns it with InternCollation,
// recording whether it compares bytes, and a Type carries the interned
// spec's index. Nothing here links a collation's tables, so the packages
// that only type and plan queries do not either.

var collations sync.Map // spec → *Collation

// The specs a Type may carry, interned: a Type holds the index (0: none).
var (
	specMu    sync.RWMutex
	specs     = []string{""}
	specIndex = map[string]uint16{"": 0}
	// binarySpecs are the interned specs that compare bytes.
	binarySpecs = map[string]bool{"": true}
)

// maxCollations bounds the distinct specs one process interns.
const maxCollations = 1 << 16

func collationSpec(i uint16) string {
	if i == 0 {
		return "" // no collation: the common case, without the lock
	}
	specMu.RLock()
	defer specMu.RUnlock()
	return specs[i]
}

// collationIndex is spec's index; a spec collation.Parse never accepted has
// none and is dropped (it cannot reach here: COLLATE parses its spec).
func collationIndex(spec string) uint16 {
	specMu.RLock()
	defer specMu.RUnlock()
	return specIndex[spec]
}

// InternCollation records spec, which package collation accepted, for
// Types to carry, and whether it compares bytes (code point order).
func InternCollation(spec string, binary bool) error {
	specMu.Lock()
	defer specMu.Unlock()
	if _, ok := specIndex[spec]; ok {
		return nil
	}
	if len(specs) == maxCollations {
		return fmt.Errorf("too many distinct collations (%d)", maxCollations)
	}
	specIndex[spec] = uint16(len(specs))
	specs = append(specs, spec)
	if binary {
		binarySpecs[spec] = true
	}
	return nil
}

// CollationBinary reports whether spec, interned by InternCollation (""
// for none), compares bytes; a spec never interned is not binary.
func CollationBinary(spec string) bool {
	specMu.RLock()
	defer specMu.RUnlock()
	return binarySpecs[spec]
}

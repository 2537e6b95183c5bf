package hll

import (
	"encoding/binary"

	farm "github.com/dgryski/go-farm"
)

// HashInt64 is the hash an INT64 is counted by: FarmHash Fingerprint64 of
// its 8 little-endian bytes.
func HashInt64(v int64) uint64 {
	return farm.Fingerprint64(binary.LittleEndian.AppendUint64(nil, uint64(v)))
}

// HashBytes is the hash a STRING or BYTES value is counted by.
func HashBytes(b []byte) uint64 { return farm.Fingerprint64(b) }

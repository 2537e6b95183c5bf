package hll

import "encoding/binary"

// HashInt64 is the hash an INT64 is counted by, as BigQuery counts it:
// Fingerprint2011 of its 8 little-endian bytes.
func HashInt64(v int64) uint64 {
	return fingerprint2011(binary.LittleEndian.AppendUint64(nil, uint64(v)))
}

// HashBytes is the hash a STRING (its UTF-8) or BYTES value is counted by.
func HashBytes(b []byte) uint64 { return fingerprint2011(b) }

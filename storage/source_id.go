package storage

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
)

// A source is named; Logflare's clients also address it by a UUID (its
// token: ?source=<uuid>, the management API's /api/sources/<token>) and
// an integer id (the management API's source_id). logq derives both from
// the name, so they are the same after a restart, on every instance over
// ClickHouse, and need no state.

// sourceHash is the SHA-1 of the name in the URL namespace, as UUID version
// 5 takes it.
func sourceHash(name string) [20]byte {
	ns := [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte("logq:source:" + name))
	var out [20]byte
	copy(out[:], h.Sum(nil))
	return out
}

// SourceUUID is the stable UUID (version 5 in the URL namespace of
// "logq:source:<name>") by which a named source can also be addressed.
func SourceUUID(name string) string {
	h := sourceHash(name)
	var u [16]byte
	copy(u[:], h[:16])
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// SourceID is the stable integer id of a named source: 48 bits of the same
// hash (JavaScript clients read it exactly), never 0.
func SourceID(name string) int64 {
	h := sourceHash(name)
	id := int64(binary.BigEndian.Uint64(h[12:20]) >> 16)
	if id == 0 {
		id = 1
	}
	return id
}

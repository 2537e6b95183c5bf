package event

import "encoding/binary"

// ScalarText renders a raw JSON scalar as text: a string unquoted, anything
// else as written.
func ScalarText(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		sc := Scanner{b: raw}
		if s, err := sc.Str(); err == nil {
			return string(s)
		}
	}
	return string(raw)
}

// IsNull reports whether a raw JSON value is the literal null.
func IsNull(raw []byte) bool { return string(raw) == "null" }

// UUID returns the UUID (version 4 layout) of the index-th event of a
// chunk whose random seed is seed: random across chunks, and the same again
// when the chunk is replayed from the WAL. The index is added to the seed's
// first eight bytes, read little-endian: it changes bytes 0–5 (for any
// chunk of fewer than 2⁴⁸ events), which the version and variant bits (in
// bytes 6 and 8) leave alone, so ids within a chunk are distinct.
func UUID(seed [16]byte, index uint64) string { return string(AppendUUID(nil, seed, index)) }

// AppendUUID appends UUID(seed, index) to dst.
func AppendUUID(dst []byte, seed [16]byte, index uint64) []byte {
	b := seed
	binary.LittleEndian.PutUint64(b[:8], binary.LittleEndian.Uint64(b[:8])+index)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hex[c>>4], hex[c&15])
	}
	return dst
}

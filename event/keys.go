package event

// Keys are made SQL-safe as Logflare makes them: every byte outside
// [A-Za-z0-9_] becomes '_', and a key starting with a digit (or empty) gets a
// leading '_'.

// SafeKey reports whether a key needs no sanitising.
func SafeKey(b []byte) bool {
	if len(b) == 0 || (b[0] >= '0' && b[0] <= '9') {
		return false
	}
	for _, c := range b {
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// SanitizeKey makes a key SQL-safe as Logflare does.
func SanitizeKey(b []byte) string {
	if SafeKey(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+1)
	if len(b) == 0 || (b[0] >= '0' && b[0] <= '9') {
		out = append(out, '_')
	}
	for _, c := range b {
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			out = append(out, c)
		} else {
			out = append(out, '_')
		}
	}
	return string(out)
}

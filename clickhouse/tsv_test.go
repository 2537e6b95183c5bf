package clickhouse

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ClickHouse's escaping, written by hand for each special byte, and read
// back by tsvUnescape for every byte value.
func TestEscaping(t *testing.T) {
	require.Equal(t, `a\\b\tc\nd\re\0f\bg\fh'i`, tsvEscape([]byte("a\\b\tc\nd\re\x00f\bg\fh'i")))
	require.Equal(t, `'it\'s \\ \n'`, quote("it's \\ \n"))
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	require.Equal(t, all, tsvUnescape([]byte(tsvEscape(all))))
}

// tsvEscape writes bytes as a TabSeparated field.
func tsvEscape(b []byte) string { return string(appendEscaped(nil, b, false)) }

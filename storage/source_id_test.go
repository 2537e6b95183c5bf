package storage

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The UUID is version 5 of "logq:source:<name>" in the URL namespace, and
// the id 48 bits of the same SHA-1 (bytes 12..17), as Python's uuid and
// hashlib compute them.
func TestSourceIDs(t *testing.T) {
	require.Equal(t, "f8ee8a0d-fdac-543c-96a3-5e430b53abff", SourceUUID("cloudflare.logs.prod"))
	require.Equal(t, int64(12453995867343), SourceID("cloudflare.logs.prod"))
	require.Equal(t, "01fd61e7-ce71-5f38-8f35-9a38f473d3f2", SourceUUID("b.src"))
	require.Equal(t, int64(268778314320820), SourceID("b.src"))
	require.Less(t, SourceID("b.src"), int64(1)<<53, "exact in a JavaScript number")
}

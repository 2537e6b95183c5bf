package exec

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The executor knows one storage engine only in its local_ files: the
// operators, vectors and kernels see storage through the interfaces exec
// defines (Storage, Dict, lateRows), so another engine needs none of them.
func TestOnlyLocalFilesImportTheLocalStore(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	local := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path != "logq/logstore" {
				continue
			}
			require.True(t, strings.HasPrefix(name, "local"), "%s imports logq/logstore but is not a local_ file", name)
			local++
		}
	}
	require.Positive(t, local) // the local engine's files are here
}

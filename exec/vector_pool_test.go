package exec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"logq/types"
)

// A vector given back keeps its storage but nothing it pointed to, and
// comes back empty: no type, no NULLs, no dictionary, no late reader.
func TestReleasedVectorKeepsNothing(t *testing.T) {
	v := takeVector()
	v.T = types.String
	v.resize(3)
	v.S[0], v.S[1], v.S[2] = "a", "b", "c"
	v.freshNulls(3)[1] = true
	v.codes = append(v.codes, 1, 2, 3)
	v.Lazy = &lazyField{}
	s := v.S
	releaseVector(v)
	require.Equal(t, []string{"", "", ""}, s[:3], "the strings are cleared")
	require.Zero(t, v.T)
	require.Nil(t, v.Null)
	require.Nil(t, v.Lazy)
	require.Nil(t, v.dict)
	require.Len(t, v.S, 0)
	require.Len(t, v.codes, 0)

	w := &Vector{T: types.ArrayOf(types.Int64)}
	w.resize(2)
	w.V[0] = types.Value{T: w.T, L: []types.Value{types.IntValue(1)}}
	vals := w.V
	releaseVector(w)
	require.Nil(t, vals[0].L, "nested values are cleared")
}

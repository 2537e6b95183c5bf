package planner

import (
	"logq/expr"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every node type reports its inputs and takes replacements for them, so
// generic passes (mapInputs, Inputs) need no type switch.
func TestChildrenWithChildren(t *testing.T) {
	leaf := func() Node { return &Values{} }
	a, b, c := leaf(), leaf(), leaf()
	cases := []struct {
		n    Node
		kids []Node
	}{
		{&Scan{}, nil},
		{&Values{}, nil},
		{&Filter{In: a}, []Node{a}},
		{&Project{In: a}, []Node{a}},
		{&Unnest{In: a}, []Node{a}},
		{&Aggregate{In: a}, []Node{a}},
		{&Sort{In: a}, []Node{a}},
		{&Limit{In: a}, []Node{a}},
		{&Join{Left: a, Right: b}, []Node{a, b}},
		{&Union{Inputs: []Node{a, b, c}}, []Node{a, b, c}},
		{&SetOp{Left: a, Right: b}, []Node{a, b}},
	}
	for _, tc := range cases {
		require.Equal(t, tc.kids, tc.n.Children(), "%T", tc.n)
		repl := make([]Node, len(tc.kids))
		for i := range repl {
			repl[i] = &Values{Rows: make([][]expr.Expr, i+1)} // distinguishable
		}
		require.Same(t, tc.n, tc.n.WithChildren(repl), "%T", tc.n)
		require.ElementsMatch(t, repl, tc.n.Children(), "%T", tc.n)
		for i, k := range tc.n.Children() {
			require.Same(t, repl[i], k, "%T child %d", tc.n, i)
		}
		require.Panics(t, func() { tc.n.WithChildren(append(repl, leaf())) }, "%T", tc.n)
	}
	// mapInputs applies f to each input.
	j := &Join{Left: a, Right: b}
	mapInputs(j, func(n Node) Node { return &Filter{In: n} })
	require.Equal(t, a, j.Left.(*Filter).In)
	require.Equal(t, b, j.Right.(*Filter).In)
}

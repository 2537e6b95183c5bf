package planner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// scanFields lists the field paths the plan's scans read.
func scanFields(n Node) []string {
	var out []string
	if s, ok := n.(*Scan); ok {
		for _, f := range s.Fields {
			out = append(out, f.Path)
		}
	}
	for _, in := range Inputs(n) {
		out = append(out, scanFields(in)...)
	}
	return out
}

// A CTE that filters one source and lists its columns is merged into the
// caller's query: one scan, with the CTE's WHERE still applied. (That UNNEST
// of its object column then binds as a path: exec/view_merge_test.go.)
func TestSimpleCTEIsMerged(t *testing.T) {
	plan, err := planSandboxed(t, "select t.id from base t where t.event_message = 'x'")
	require.NoError(t, err)
	require.Equal(t, []string{"src.a"}, scans(plan))
	fields := scanFields(plan)
	require.Contains(t, fields, "project", "the CTE's WHERE (project = @project) is applied")
	require.Contains(t, fields, "event_message")

	// `later` reads `base`, a CTE: not a source, so later is bound as a plan.
	plan, err = planSandboxed(t, "select id from later")
	require.NoError(t, err)
	require.Equal(t, []string{"src.a"}, scans(plan))
}

// Merging shows the caller only the CTE's columns, never the source's.
func TestMergedCTEShowsOnlyItsColumns(t *testing.T) {
	for _, caller := range []string{
		"select t.project from base t",
		"select project from base",
		"select t.id from base t where project = 'p'",
	} {
		_, err := planSandboxed(t, caller)
		require.Error(t, err, caller)
		require.Regexp(t, `no column project|unrecognized name project`, err.Error(), caller)
	}
}

// A CTE on a side of an outer join stays a plan of its own: its WHERE must
// filter before the join.
func TestCTEBesideAnOuterJoinIsNotMerged(t *testing.T) {
	plan, err := planSandboxed(t, "select b.id from base b left join other o on b.id = o.id")
	require.NoError(t, err)
	var projects int
	var walk func(Node)
	walk = func(n Node) {
		if _, ok := n.(*Project); ok {
			projects++
		}
		for _, in := range Inputs(n) {
			walk(in)
		}
	}
	walk(plan)
	require.GreaterOrEqual(t, projects, 2, "each side keeps the CTE's own projection")
}

package planner

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/sqlparse"
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
// caller's query: UNNEST of its object column binds as stored paths (no
// Unnest operator; the scan reads metadata.response.status_code, not the
// whole metadata), and the CTE's WHERE still holds. Bound as a plan of its
// own, the CTE would put an Unnest over the whole metadata in this plan.
func TestSimpleCTEIsMerged(t *testing.T) {
	endpoint := "with e as (select t.id, t.metadata from `src.a` as t where t.project = @project) select id from e"
	q, err := sqlparse.Parse(endpoint)
	require.NoError(t, err)
	caller := "select count(*) as n from e cross join unnest(e.metadata) as m cross join unnest(m.response) as r where r.status_code >= 500"
	cq, err := sqlparse.ParseSelect(caller)
	require.NoError(t, err)
	plan, err := Plan(q, endpoint, Options{Catalog: testCatalog{}, Params: map[string]string{"project": "p"}, Now: planNow.UnixMicro(),
		Sandbox: &Sandbox{Query: cq, Src: caller, Params: Params(q)}})
	require.NoError(t, err)
	require.Zero(t, unnests(plan), "UNNEST over the CTE's metadata binds as paths")
	fields := scanFields(plan)
	require.Contains(t, fields, "metadata.response.status_code")
	require.NotContains(t, fields, "metadata", "the whole object is not read")
	require.Contains(t, fields, "project", "the CTE's WHERE (project = @project) is applied")
}

// unnests counts the Unnest operators of a plan.
func unnests(n Node) int {
	c := 0
	if _, ok := n.(*Unnest); ok {
		c++
	}
	for _, in := range Inputs(n) {
		c += unnests(in)
	}
	return c
}

// Merging shows the caller only the CTE's columns, never the source's (as
// a CTE bound as a plan does: this guards the merged form).
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

// A CTE on a side of an outer join that pads it with NULLs: its WHERE must
// filter before the join, on that side, never the join's result (which
// would drop the unmatched rows of the other side).
func TestCTEBesideAnOuterJoinFiltersItsSide(t *testing.T) {
	plan, err := planSandboxed(t, "select o.id from other o left join base b on b.id = o.id")
	require.NoError(t, err)
	var join *Join
	var walk func(Node)
	walk = func(n Node) {
		if j, ok := n.(*Join); ok && join == nil {
			join = j
		}
		for _, in := range Inputs(n) {
			walk(in)
		}
	}
	walk(plan)
	require.NotNil(t, join)
	require.Equal(t, JoinLeft, join.Kind, "the WHERE of base did not make the join inner")
	require.Contains(t, Explain(join.Right), `project="p"`, "base's WHERE filters base")
	require.NotContains(t, Explain(join.Left), "project")
	full := Explain(plan)
	above := full[:strings.Index(full, "LeftJoin")]
	require.NotContains(t, above, "project", "nothing above the join filters on it")
}

package planner

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/sqlparse"
)

// endpointSQL stands for a sandboxed endpoint: two CTEs over two sources, the
// second reading the first.
const endpointSQL = `with
  base as (select timestamp, id, event_message from ` + "`src.a`" + ` where project = @project),
  later as (select id, timestamp from base where timestamp > '2024-01-01'),
  other as (select id, timestamp from ` + "`src.b`" + `),
  broken as (select nosuch(id) as x from other)
select id from later`

func planSandboxed(t *testing.T, caller string) (Node, error) {
	t.Helper()
	q, err := sqlparse.Parse(endpointSQL)
	require.NoError(t, err)
	cq, err := sqlparse.ParseSelect(caller)
	if err != nil {
		return nil, err
	}
	return Plan(q, endpointSQL, Options{Catalog: testCatalog{}, Params: map[string]string{"project": "p"}, Now: planNow.UnixMicro(),
		Sandbox: &Sandbox{Query: cq, Src: caller, Params: Params(q)}})
}

// scans lists the sources a plan reads.
func scans(n Node) []string {
	var out []string
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok {
			out = append(out, s.Source)
		}
		for _, in := range Inputs(n) {
			walk(in)
		}
	}
	walk(n)
	return out
}

func TestSandboxScopes(t *testing.T) {
	for _, c := range []struct {
		caller string
		reads  []string
	}{
		{"select id from later", []string{"src.a"}},
		{"select id from other", []string{"src.b"}},
		// A caller CTE named like an endpoint CTE shadows it for the caller;
		// the endpoint's `later` still reads the endpoint's `base`.
		{"with base as (select id, timestamp from other) select id from base", []string{"src.b"}},
		{"with base as (select id, timestamp from other) select l.id from later l, base b", []string{"src.a", "src.b"}},
		{"select x.id from (select id from later union all select id from other) as x", []string{"src.a", "src.b"}},
		{"select @project as p", nil},
	} {
		plan, err := planSandboxed(t, c.caller)
		require.NoError(t, err, c.caller)
		require.Equal(t, c.reads, scans(plan), c.caller)
	}
}

func TestSandboxRefusals(t *testing.T) {
	for _, c := range []struct{ caller, err string }{
		{"select id from `src.a`", "1:16: table src.a is not allowed: a sandboxed query may read only these CTEs: base, broken, later, other"},
		{"with mine as (select 1 as x)\nselect x from mine, nowhere", "2:21: table nowhere is not allowed: a sandboxed query may read only these CTEs: base, broken, later, mine, other"},
		{"with mine as (select id from `src.b`) select id from mine", "1:30: table src.b is not allowed"},
		{"select * from later", "1:8: SELECT * is not allowed"},
		{"select l.* from later as l", "1:8: l.* is not allowed"},
		{"select @secret from later", "1:8: unknown parameter @secret; this endpoint's parameters are @project"},
		{"select nosuch(id) from later", "1:8: unknown function nosuch"},
		// An error inside an endpoint CTE is placed where the caller reads it.
		{"select 1 as one,\n  x from broken", "2:10: in the endpoint's CTE broken (its 5:21): unknown function nosuch"},
	} {
		_, err := planSandboxed(t, c.caller)
		require.Error(t, err, c.caller)
		require.True(t, strings.HasPrefix(err.Error(), c.err), "%s: got %v", c.caller, err)
	}
}

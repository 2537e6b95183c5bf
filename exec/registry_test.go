package exec

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"logq/exec/golden"
	"logq/expr"
	"logq/planner"
	"logq/sqlparse"
)

// goldenFunctions collects the functions the golden cases call, from their
// bound plans: every scalar, aggregate and analytic function (and alias)
// the binder binds a call to, before constants fold (planner.Options.Bound),
// and every call of the optimised plans (the rewrites' own, such as the
// AND of pushed filters or a collation's keys).
func goldenFunctions(t *testing.T) map[string]bool {
	cases, err := golden.All()
	require.NoError(t, err)
	seen := map[string]bool{}
	var visitNode func(n planner.Node)
	visitExpr := func(e expr.Expr) {
		expr.MapExpr(e, func(x expr.Expr) expr.Expr {
			switch x := x.(type) {
			case *expr.Call:
				seen[x.Fn] = true
			case *planner.Subquery:
				visitNode(x.Plan)
			}
			return x
		})
	}
	visitNode = func(n planner.Node) {
		for _, e := range n.Expressions() {
			visitExpr(e)
		}
		for _, in := range planner.Inputs(n) {
			visitNode(in)
		}
	}
	for _, c := range cases {
		store := goldenStore(t, "memory", c.Sources, c.Inputs)
		ast, err := sqlparse.Parse(c.Query)
		if err != nil {
			continue // a parse error's case binds nothing
		}
		plan, _ := planner.Plan(ast, c.Query, planner.Options{
			Catalog: Local(store).View(), Params: c.Params, Now: goldenNow.UnixMicro(),
			Bound: func(name string) { seen[name] = true },
		})
		if plan != nil {
			visitNode(plan)
		}
	}
	return seen
}

// TestEveryFunctionIsDefinedAndTested lists every registered function: each
// has a row evaluation (its kernel of last resort), every vectorised kernel
// belongs to a registered function, and a golden case calls it (and each
// alias, and every aggregate and analytic function).
func TestEveryFunctionIsDefinedAndTested(t *testing.T) {
	called := goldenFunctions(t)
	names := map[string]string{}
	for name := range expr.Funcs() {
		names[name] = name
	}
	for a, target := range expr.Aliases() {
		names[a] = target
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var vec, missing []string
	for _, name := range sorted {
		f := expr.LookupFunc(name)
		require.NotNil(t, f, name)
		require.NotNil(t, f.Eval, "%s has no evaluation", name)
		if kernels[f.Name] != nil && f.Name == name {
			vec = append(vec, name)
		}
		if !called[name] {
			missing = append(missing, name)
		}
	}
	for _, name := range append(expr.AggregateNames(), expr.AnalyticNames()...) {
		if !called[name] {
			missing = append(missing, name)
		}
	}
	require.Empty(t, missing, "functions no golden case calls")
	for name := range kernels {
		f := expr.LookupFunc(name)
		require.True(t, f != nil && f.Name == name, "kernel for unregistered %s", name)
	}
	// Every aggregate has its state, and every state an aggregate.
	aggs := map[string]bool{}
	for _, name := range expr.AggregateNames() {
		aggs[name] = true
		require.NotNil(t, aggStates[name], "aggregate %s has no state", name)
	}
	for name := range aggStates {
		require.True(t, aggs[name], "state for %s, which is not an aggregate", name)
	}
	// Every analytic function has its computation, and every computation
	// a function.
	analytic := map[string]bool{}
	for _, name := range expr.AnalyticNames() {
		analytic[name] = true
		require.NotNil(t, windowFuncs[name], "analytic function %s has no computation", name)
	}
	for name := range windowFuncs {
		require.True(t, analytic[name], "computation for %s, which is not an analytic function", name)
	}
	t.Logf("%d functions, vectorised: %s", len(sorted), strings.Join(vec, " "))
}

// A kernel for a name that is not registered (a misspelling, or an alias)
// fails at start-up instead of never being used.
func TestKernelForUnknownNamePanics(t *testing.T) {
	k := func(*evaluator, *expr.Call, *Batch) (*Vector, bool, error) { return nil, false, nil }
	require.Panics(t, func() { vectorised(k, "regexp_contain") })
	require.Panics(t, func() { vectorised(k, "ifnull") })
	require.Panics(t, func() { vectorised(k, "coalesce") }) // already has one
}

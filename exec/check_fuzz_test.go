package exec

import (
	"context"
	"testing"
	"time"

	"logq/exec/golden"
	"logq/logstore"
	"logq/planner"
	"logq/sqlparse"
)

// FuzzCheckNoStricterThanRun: the check a query gets before it ever runs
// (Prepare's planner.Check, with no schema: a saved endpoint's at load, an
// ad-hoc query's first) may refuse only what a check with the sources'
// schemas refuses too, which is what stands between a query and its run.
// A check stricter than that turns a good query into a 400 (a derived
// table's * over a source, a field of one of two joined sources, a
// correlated field were such cases). Its inputs are a golden case, whose
// sources the query reads, and a query: seeded with each case's own.
func FuzzCheckNoStricterThanRun(f *testing.F) {
	cases, err := golden.All()
	if err != nil {
		f.Fatal(err)
	}
	stores := make([]*logstore.Store, len(cases))
	for i, c := range cases {
		stores[i] = logstore.New(logstore.Options{})
		for _, src := range c.Sources {
			stores[i].Append(src, c.Inputs[src]) // a case's rejects are its own business
		}
		if !c.Has["error"] && len(c.Params) == 0 {
			f.Add(uint(i), c.Query)
		}
	}
	f.Fuzz(func(t *testing.T, i uint, sql string) {
		st := stores[i%uint(len(stores))]
		ast, err := sqlparse.Parse(sql)
		if err != nil {
			return
		}
		checkErr := planner.Check(ast, sql)
		if checkErr == nil {
			return
		}
		if err := planner.CheckAgainst(ast, sql, Local(st).View()); err == nil {
			// Confirm with the run: the schemas' check passing is not an answer.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			q := &Query{AST: ast, Source: sql, Params: planner.Params(ast)}
			if _, runErr := Run(ctx, Local(st), q, Request{Now: goldenNow, MaxRows: 100, MemoryBudget: 64 << 20}); runErr == nil {
				t.Fatalf("the check without schemas refused what the run answers:\n%s\ncheck: %v", sql, checkErr)
			}
		}
	})
}

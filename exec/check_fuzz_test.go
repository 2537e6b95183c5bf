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
	stores := make([]*logstore.Store, len(cases), len(cases)+1)
	for i, c := range cases {
		stores[i] = logstore.New(logstore.Options{})
		for _, src := range c.Sources {
			stores[i].Append(src, c.Inputs[src]) // a case's rejects are its own business
		}
		if !c.Has["error"] && len(c.Params) == 0 {
			f.Add(uint(i), c.Query)
		}
	}
	// And queries the check once refused though the run answers them (a
	// review's counterexamples), over sources with the fields they read:
	// each fails here if its fix is undone.
	own := logstore.New(logstore.Options{})
	own.Append("src", [][]byte{[]byte(`{"timestamp":"2024-05-01T10:00:00Z","a":1,"b":"x","c":"cx","n":[{"k":1,"v":2}],"arr":[1,2]}`)})
	own.Append("other", [][]byte{[]byte(`{"timestamp":"2024-05-01T10:00:00Z","a":1,"b":5,"c":"cx","k":1}`)})
	stores = append(stores, own)
	for _, sql := range []string{
		"select u.a from (select * from src) as u",
		"select distinct * except (id, timestamp, n, arr) from src order by a",
		"select a, k from src join other using (a)",
		"select (select sum(x) from unnest(arr) as x) from src",
		"with c as (select n from src) select k, v from (select * from c, unnest(c.n))",
		"with c as (select 1 as x) select a from (with c as (select * from src) select * from c)",
		"with a as (select * from src), b as (select * from a) select * from (with a as (select 1 as x) select b.a from b)",
		"select * except (id, timestamp, event_message) from other",
		"select (select count(*) from other where c = 'cx') from (select 1 as c)",
		"select * except (id, timestamp, n, arr, event_message) from src union all select 1, 'x', 'y'",
	} {
		f.Add(uint(len(stores)-1), sql)
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

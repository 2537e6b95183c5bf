// Package planner turns a parsed query into a logical plan: it binds names and
// types, folds constants, and rewrites the plan so the executor does little work.
//
// Two stages. Load (Check) binds a saved query against an empty catalog with
// every parameter unknown: it reports unknown CTEs, functions and names and
// wrong argument counts with line:col before the server starts. Call (Plan)
// binds again with the caller's parameters and the current schema of each log
// source. Log sources are schema-on-write, so a field's type is only known
// from data, and every parameter folds into a constant. Binding takes tens
// of microseconds, which for the small queries Studio sends most was most of
// a call; so a saved query is also bound once per parameter set as a
// Template (template.go), with the query's time left open and given per call,
// which the executor keeps while the sources' schemas hold
// (exec/plancache.go). A copy marks each aggregate whose only change from
// call to call is its scan's time bounds (Aggregate.Kept), so that the
// executor may keep its partial results per sealed segment.
//
// Name resolution follows BigQuery:
//   - a table name is a CTE of an enclosing WITH, else a log source (an
//     unknown source reads as empty); a CTE that is never read is never bound;
//   - `alias.path` reads a field of a table alias, of an UNNEST alias, or a
//     column of a subquery; a table alias alone is a STRUCT of its row;
//   - an unqualified name is a column of exactly one FROM item (ambiguity is an
//     error); with one log source in scope, an unknown name is a field no event
//     has yet, and reads NULL;
//   - GROUP BY and ORDER BY names resolve to SELECT aliases first, then to FROM
//     columns (inside ORDER BY and QUALIFY expressions and their windows too);
//     an integer literal there is a 1-based select-list ordinal;
//   - a column merged by JOIN … USING is one unqualified name (bind_using.go);
//   - inside a WITH expression its variables come before all of these
//     (bind_with.go).
//
// Set operations (bind_setop.go): UNION ALL is a Union, UNION DISTINCT an
// Aggregate over it, INTERSECT/EXCEPT DISTINCT a SetOp node; both inputs are
// coerced to common supertypes. RIGHT and FULL joins are Join kinds; WHERE is
// not pushed below them.
//
// Window functions (bind_window.go, plan_window.go): the analytic calls of a
// SELECT (select list, ORDER BY, QUALIFY) are collected like aggregates and
// computed by one Window node placed after the Aggregate and HAVING; QUALIFY
// is a Filter above it. A Window passes its input columns through and adds
// one column per call, so nothing above needs to know it is there.
//
// UNNEST of a stored nested object (always a one-element ARRAY<STRUCT>) is not
// executed: the alias becomes a prefix of field paths in the source's scan,
// with a presence filter for CROSS JOIN. Real arrays get an Unnest node.
//
// Rules, applied once per call after binding: constant folding (parameters and
// CURRENT_TIMESTAMP are constants, so `CASE @interval WHEN …` keeps one
// branch), inlining of constant single-row CTEs, dead-CTE elimination (by
// lazy binding), predicate pushdown through projections and joins (a LEFT JOIN
// whose right side is filtered by WHERE becomes inner), equi-join keys for
// hash joins, column pruning, ORDER BY + LIMIT as top-k with projections moved
// above it, time-range and equality predicates pushed into scans, a Window
// that a filter keeps the first k rows of marked TopN (windowTopN), and the
// STRING fields a top-k right above a scan only carries, or a first-rows
// Window partitions by as they are, marked Late (lateFields: read for the
// kept rows only; a partition key is grouped by its dictionary codes).
// Explain prints a plan for tests and debugging. Nodes and expressions walk
// and print themselves: every plan node implements Children/WithChildren
// (its inputs), Expressions/WithExpressions (the expressions it holds,
// plan_exprs.go), explain (its line, plan_explain.go) and prune (prune.go),
// and every expression Children/WithChildren, so Inputs, mapInputs,
// mapExpr, MapExprs, Explain and the rewrite passes built on them need no
// per-node type switch, and a new node type that lacks one does not compile.
//
// Subqueries in expressions (bind_subquery.go, subquery.go): (SELECT …),
// EXISTS, ARRAY(SELECT …) and x IN (SELECT …) are bound like derived tables
// with the CTEs in scope, optimised on their own and held by a Subquery
// expression (not a plan node: its plan reads its own rows, so the rewrites
// of the enclosing plan see only IN's left operand as a sub-expression, and
// column pruning cannot drop what the subquery reads). A constant one-row
// subquery folds. Names of an enclosing query are refused as correlated
// references (binder.outer), except columns of an inlined constant row,
// EXISTS correlated by one equality, which is decorrelated into an IN, IN
// correlated by one equality, into a set of values per key (Subquery.Key),
// and a scalar aggregate or plain value correlated by one equality,
// decorrelated into a keyed lookup of the aggregate grouped by its key or of
// the rows by their key (SubKeyed; bind_correlated.go).
// MapExprs reaches the expressions of any node through Expressions, so the
// executor can replace subqueries by their values in any node type.
//
// Sandboxed endpoints (sandbox.go): Options.Sandbox carries a caller's query
// that replaces the endpoint's final SELECT. It is bound inside the scope of
// the endpoint's WITH clause, its own WITH nested inside (so a caller CTE
// shadows an endpoint CTE of the same name for the caller only). Each CTE
// remembers who wrote it: in the caller's text a table name that is no CTE is
// refused, never read as a log source; the endpoint's CTE bodies read their
// sources as usual; an error inside one is located at the caller's reference
// to it, naming the CTE and its own line:col in the endpoint's text.
//
// Functions: the planner defines none. Expressions (expr.Expr), the
// definition of every function (expr.Func, expr.Agg, expr.Analytic), their
// registry, coercion and constant folding are package expr; the function
// library that registers them, each function's check and evaluation, is
// package sqlfunc, which the executor links and the planner does not (so
// planning links none of the runtime's dependencies: crypto, sketches,
// Unicode tables). The binder resolves each call to its function once
// (Call.Def; resolveCalls gives it to the calls the rewrites make), types
// it with the function's Check and folds it (expr.Fold). A name called in
// SQL must be registered (or an alias such as IFNULL) and not Internal (an
// operator's or syntax's entry); SAFE.f(…) sets Call.Safe and turns f's
// evaluation errors into NULL; other dotted names are refused. Aggregate
// calls are checked against their expr.Agg (arity, modifiers, type rule),
// analytic calls against their expr.Analytic, whose argument form
// (Analytic.Args) bind_analytic.go binds. The binder's own rules about a
// family of functions live in bind_* files: calendar units
// (bind_calendar.go), collation keys (bind_collation.go), BYTES as Latin-1
// text for LIKE and REGEXP_ (bind_bytes.go), type parameters
// (bind_typeparams.go). Options.Bound tells a test every function bound,
// before folding (the library's coverage test).
//
// Errors: a bind error is an *Error positioned at line:col (or naming the
// parameter whose value failed, from expr.ParamError). The binder stops at
// its first error by panicking with it (binder.fail, failErr,
// refuseCorrelated): binding is deeply recursive and an error anywhere ends
// it, so this is the one panic the code base uses for control flow. Plan and
// Check recover it at their entry (binder.recover) and return it; nothing
// else escapes, and any other panic is re-raised. tryDecorrelate recovers
// only a refused correlated reference (errCorrelated, told by errors.Is, not
// by its text) to fall back to running the subquery per outer row; the
// sandbox's cte re-raises an error in an endpoint's CTE located at the
// caller's reference.
//
// This package imports types, sqlparse and expr; it sees storage only
// through Catalog, and functions only through expr's registry.
package planner

// Package golden reads the golden cases of the executor
// (exec/testdata/golden/*.txtar): a query, its parameters, the events of
// each source it reads, and the answer worked out by hand. The executor's
// tests, the ClickHouse engine's (the same cases over both engines), the
// library's coverage test and the parser's fuzz seeds all read them here,
// so the format has one reader. Only tests import it.
//
// A case is a txtar archive:
//
//	-- query.sql --     the query
//	-- params --        name=value per line (optional)
//	-- input/NAME --    NDJSON events of source NAME (any number)
//	-- want --          result rows, one per line, values joined by " | "
//	-- error --         a regexp the error must match (instead of want)
//	-- plan --          the optimised plan, as Explain prints it (optional)
//
// This package imports golang.org/x/tools/txtar only.
package golden

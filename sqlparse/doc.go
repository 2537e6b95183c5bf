// Package sqlparse reads the BigQuery dialect that logq's saved queries are
// written in (CONTRACT.md §5) into an AST, and prints an AST back as SQL.
//
// It is hand-written: a lexer that yields positioned tokens and a
// recursive-descent parser with precedence climbing for expressions. A MySQL
// parser was measured and rejected: it reads `||` as OR, `--x` as minus minus,
// `a.b.c` as schema.table.column and comma joins with the wrong precedence.
//
// Every AST node records the byte offset where it starts, and errors are
// reported as "line:col: expected X, found Y" (see Error); parsing stops
// at the first one.
// Print(Parse(q)) parses back to the same tree, so the printer is a fixed point
// and can be used to compare queries in tests.
//
// The parser does not resolve names or types; that is the planner's job.
// Identifier paths such as `a.b.c` are kept as a list of parts because only the
// planner knows which part names a table, a column or a struct field.
//
// Postgres' `expr::type`, which Studio's self-hosted pages send, is read as
// CAST(expr AS type) with the Postgres name mapped (text → STRING, int,
// bigint → INT64, float, double precision → FLOAT64, bool, timestamp); it
// binds tighter than any operator, as in Postgres, and prints as CAST.
// ParseSelect reads a sandboxed caller's query: one statement, a SELECT.
//
// This package imports only the standard library.
package sqlparse

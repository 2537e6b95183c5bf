// Package collation orders and compares strings under a BigQuery collation
// (COLLATE 'und:ci', …) with the Unicode Collation Algorithm of
// golang.org/x/text. It is a package of its own so that only the function
// library (sqlfunc) links x/text's tables: the planner and types know a
// collation by its spec alone (types.InternCollation records each spec
// this package accepted, and whether it compares bytes).
//
// It imports types and golang.org/x/text.
package collation

// Package endpoint reads saved endpoint definitions (CONTRACT.md §4): YAML
// files with an id, a name, settings, parameter checks and a BigQuery-dialect
// query, which is parsed and checked when the file is loaded. Errors name the
// file, line and column, the query's own positions mapped into the file.
//
// It imports exec (to prepare queries), planner and sqlparse (for positions).
package endpoint

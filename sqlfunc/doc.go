// Package sqlfunc is the function library: every scalar function and
// operator, aggregate and analytic function of the dialect, each one an
// expr.Func (expr.Agg, expr.Analytic) registered into expr's registry when
// the package is initialised, with its argument check and its evaluation
// side by side. One file per family (funcs_time.go, funcs_string.go,
// funcs_json.go, funcs_ops.go for the operators, funcs_aggregates.go and
// funcs_analytic.go for the definitions whose computation the executor
// owns, …); funcs_library.go registers the families in order (an overload
// after the function it extends). A large family's checks and evaluations
// are named functions (checkTimestampTrunc, evalTimestampTrunc), so a stack
// trace names the function.
//
// The executor imports this package (and so links it into every program
// that runs queries); the planner does not: it binds through expr's
// registry, and planning links none of the dependencies the functions need
// (aead, hll, kll, collation and golang.org/x/text, idna, go-farm, golang-lru).
// A program that plans without executing imports it for its side effect.
//
// exec attaches optional vectorised kernels to registered names
// (exec/kernels.go), tested against the evaluations here; every function is
// called by a golden case of exec (its registry test).
//
// This package imports types, expr, collation, aead, hll, kll and the libraries
// named above.
package sqlfunc

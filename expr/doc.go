// Package expr is the expression model the planner binds and the executor
// evaluates: bound, typed expressions (Expr: ColRef, Const, Call, Case,
// With and WithVar for the WITH expression, and the aggregate call
// AggCall), the definition of every function (Func for a scalar function or
// operator, Agg for an aggregate, Analytic for a function
// that exists only with OVER) and their registry, implicit coercion
// (coerce.go), constant folding (fold.go) and the evaluation of one call on
// boxed values (Eval, EvalCall).
//
// A Func is the one definition of a function: its argument count, Check
// (argument typing and coercion, result type), Eval (one row; also constant
// folding and the executor's row path), NullSafe (whether NULL arguments
// reach Eval), Simplify (rewrites beyond evaluating constants, e.g. TRUE AND
// x → x), and whether it is Internal (an operator's or syntax's entry),
// NoFold or Volatile. Register adds one under its name, once; Alias gives
// it another spelling; Overload gives an operator a second form of
// arguments (NUMERIC arithmetic). The functions themselves are registered by
// package sqlfunc, the function library, one file per family: this package
// holds no function, so that what imports it (the planner) links none of
// their dependencies. Linked reports whether a library registered them.
//
// A Call names its function (Fn) and holds it once resolved (Def): the
// planner resolves every call of a plan when it builds it, and the executor
// evaluates rows with that Func, never looking a name up per row.
//
// What the binder and the library both read lives here too: the collation
// typing rules (collation.go: which calls take a collated STRING, and how
// each is rewritten; a collation is known by its spec and
// types.CollationBinary), the calendar units of INTERVAL, the modes of a
// multiway UNNEST and the range of dates and times (shared.go).
//
// Errors: a function's evaluation error is created by EvalErr and matches
// ErrEval; a parameter's value that a function cannot use is a ParamError.
//
// This package imports only types and the standard library.
package expr

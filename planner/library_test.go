package planner

// The planner types calls by the functions registered in expr; the library
// that registers them is linked by the executor, and here by the tests.
import _ "logq/sqlfunc"

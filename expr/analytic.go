package expr

import (
	"sort"
)

// Analytic defines a function that exists only with OVER (a numbering or a
// navigation function; an aggregate with OVER is an Agg): its arguments,
// what its window must have, whether it takes a frame and IGNORE NULLS,
// and the form of its arguments. The binder reads this table; exec attaches
// the computation of each (exec/op_window_funcs.go windowFuncs), and its
// registry test checks that the two name the same functions.
type Analytic struct {
	Name             string
	MinArgs, MaxArgs int
	NeedsOrder       bool // its window needs an ORDER BY
	NoOrder          bool // its window must not have one
	Framed           bool // it takes a window frame (else one is refused)
	IgnoreNulls      bool // it takes IGNORE NULLS
	RespectNulls     bool // it takes RESPECT NULLS (which it does anyway)
	// Args says how the binder binds the arguments into the call (the
	// value first, then the constants the executor reads) and types it.
	Args AnalyticArgs
	// PassesCollation: it passes a collated value on without comparing
	// it, so a collated argument is allowed.
	PassesCollation bool
}

// AnalyticArgs is the form of an analytic function's arguments; the
// binder (planner/bind_analytic.go) binds each form.
type AnalyticArgs int

const (
	// NumberingInt64 and NumberingFloat64: no arguments; the result is
	// an INT64 (ROW_NUMBER, RANK, …) or a FLOAT64 (PERCENT_RANK, CUME_DIST).
	NumberingInt64 AnalyticArgs = iota
	NumberingFloat64
	// BucketCount: NTILE(n), n a constant of at least 1.
	BucketCount
	// Percentile: PERCENTILE_CONT/DISC(x, p), p a constant from 0 to 1.
	Percentile
	// Navigation: LAG/LEAD(x [, offset [, default]]).
	Navigation
	// ValueArg: FIRST_VALUE/LAST_VALUE(x); the result has x's type.
	ValueArg
	// NthValue: NTH_VALUE(x, n), n a constant of at least 1.
	NthValue
)

var analytics = map[string]*Analytic{}

// registerAnalytic adds a to the analytic functions; a name is registered
// once.
func RegisterAnalytic(a *Analytic) {
	if analytics[a.Name] != nil {
		panic("expr: analytic function " + a.Name + " registered twice")
	}
	analytics[a.Name] = a
}

// LookupAnalytic returns the analytic function called name, or nil.
func LookupAnalytic(name string) *Analytic { return analytics[name] }

// IsAnalytic reports whether name is a function that exists only with OVER.
func IsAnalytic(name string) bool { return analytics[name] != nil }

// AnalyticNames lists the functions that exist only with OVER, sorted (for
// tests and docs).
func AnalyticNames() []string {
	out := make([]string, 0, len(analytics))
	for n := range analytics {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

package expr

import (
	"fmt"
	"sort"

	"logq/types"
)

// Agg defines one aggregate function, as Func defines a scalar one: its
// arguments, the modifiers it takes inside the call, its type rule, its
// value over no rows and whether it may be an analytic function. The binder
// (aggCall, aggModifiers, windowCall), the decorrelation of scalar
// subqueries and the executor read this table; exec attaches the state that
// computes each one (exec/op_agg.go aggStates), and its registry test checks
// that the two name the same functions and that a golden case calls each.
type Agg struct {
	Name             string
	MinArgs, MaxArgs int
	Star             bool // COUNT(*)
	// The modifiers taken inside the call (any other is refused, named).
	Distinct    bool // f(DISTINCT x): each distinct value once
	IgnoreNulls bool // IGNORE NULLS / RESPECT NULLS
	OrderLimit  bool // ORDER BY key [DESC] … and LIMIT n
	// Window: it may take OVER (…).
	Window bool
	// Check types a call whose arguments are bound (call.Args; with
	// symbolic, parameters are not constants yet) and returns its result
	// type; its errors are refusals at the call.
	Check func(call *AggCall, symbolic bool) (types.Type, error)
	// Zero: over no rows the result is 0 (COUNT), not NULL.
	Zero bool
}

// Empty is the aggregate's value over no rows.
func (a *Agg) Empty(t types.Type) types.Value {
	if a.Zero {
		return types.IntValue(0)
	}
	return types.NullOf(t)
}

// aggs is every aggregate, by name.
var aggs = map[string]*Agg{}

// registerAgg adds a to the aggregates; a name is registered once.
func RegisterAgg(a *Agg) {
	if aggs[a.Name] != nil {
		panic("expr: aggregate " + a.Name + " registered twice")
	}
	aggs[a.Name] = a
}

// LookupAgg returns the aggregate named name, or nil.
func LookupAgg(name string) *Agg { return aggs[name] }

// AggregateNames lists the aggregate functions, sorted (for tests and docs).
func AggregateNames() []string {
	out := make([]string, 0, len(aggs))
	for n := range aggs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool { return aggs[name] != nil }

// arity says how many arguments an aggregate takes, for messages.
func (a *Agg) Arity() string {
	switch {
	case a.MinArgs == a.MaxArgs:
		return fmt.Sprintf("%d argument(s)", a.MaxArgs)
	default:
		return fmt.Sprintf("%d to %d arguments", a.MinArgs, a.MaxArgs)
	}
}

// AggCall is one aggregate of an Aggregate node.
type AggCall struct {
	Fn       string // count, countif, sum, avg, min, max, approx_quantiles, …
	Args     []Expr // over the Aggregate's input
	Star     bool
	Distinct bool
	T        types.Type
	// Ranks, for approx_quantiles whose result is only read at constant
	// offsets within it, lists those ranks, ascending: the result array
	// then holds only them, in this order, and the reads were renumbered
	// to index it (planner's quantileRanks).
	Ranks []int
	// ARRAY_AGG and STRING_AGG modifiers (bind_aggmods.go): the ORDER BY
	// keys are the last len(Order) Args; HasLimit keeps the first Limit
	// values; IgnoreNulls drops NULL values.
	Order       []AggOrder
	Limit       int64
	HasLimit    bool
	IgnoreNulls bool
	// RespectNulls: APPROX_QUANTILES(x, n RESPECT NULLS) ranks NULLs
	// first (it ignores them otherwise).
	RespectNulls bool
	// HAVING MAX (1) or HAVING MIN (-1) expr: the aggregate reads only the
	// rows whose expr equals its maximum (minimum) in the group. The expr
	// is the last of Args.
	Having int8
	// Filtered: agg(x WHERE cond) (ZetaSQL's) reads only the rows where
	// cond, the last of Args (after HAVING's), is TRUE.
	Filtered bool
}

// AggOrder is the direction of one ORDER BY key inside an aggregate call.
type AggOrder struct{ Desc, NullsFirst bool }

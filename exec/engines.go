package exec

import (
	"logq/expr"
	"logq/types"
)

// What a storage engine outside this package needs to answer plan nodes
// with operators of its own (View.Build): vectors to fill, and exec's
// operators to put over them for what it does not compute itself.

// NewVector returns a vector of n rows of type t, none NULL.
func NewVector(t types.Type, n int) *Vector { return newVector(t, n) }

// Set stores x, converted to the vector's storage, as row i of n.
func (v *Vector) Set(i int, x types.Value, n int) { v.set(i, x, n) }

// SetNull makes row i of n NULL.
func (v *Vector) SetNull(i, n int) { v.setNull(i, n) }

// Filter keeps the rows of in for which cond is TRUE.
func (e *Env) Filter(in Operator, cond expr.Expr) Operator {
	return &filterOp{in: in, cond: cond, ev: e.ev}
}

// Project computes exprs over each row of in.
func (e *Env) Project(in Operator, exprs []expr.Expr) Operator {
	return &projectOp{in: in, exprs: exprs, ev: e.ev}
}

package planner

import (
	"fmt"

	"logq/sqlparse"
	"logq/types"
)

// ORDER BY x COLLATE 'spec' (a query's, a window's, or inside an
// aggregate call) sorts by collation_key(x, spec): BYTES that order as the
// collation orders x and are equal where it holds two strings equal, so the
// sort, its ties (RANK's peers) and a top-k need nothing else. The spec is
// read by types.ParseCollation; a binary one (”, 'binary', 'unicode')
// leaves the key as it is.
func registerCollationFuncs() {
	register("collation_key", def(2, 2, func(c *Call) (types.Type, error) {
		return types.Bytes, nil
	}, func(c *Call, a []types.Value) (types.Value, error) {
		coll, err := types.ParseCollation(a[1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		return types.Value{T: types.Bytes, S: string(coll.Key(nil, a[0].S))}, nil
	}, false))
}

// collateKey applies an ORDER BY item's COLLATE to its key e.
func (b *binder) collateKey(o *sqlparse.OrderItem, e Expr) Expr {
	if o.Collate == nil {
		return e
	}
	if t := e.Type(); t.Kind != types.KindString && t.Kind != types.KindNull {
		b.fail(o.Expr.Pos(), "COLLATE applies to a STRING, not %s", t)
	}
	coll, err := types.ParseCollation(*o.Collate)
	if err != nil {
		b.fail(o.Expr.Pos(), "%v", err)
	}
	if coll.Binary() {
		return e
	}
	x, err := coerceTo(e, types.String)
	if err != nil {
		b.fail(o.Expr.Pos(), "%v", fmt.Errorf("COLLATE: %w", err))
	}
	return &Call{Fn: "collation_key", Args: []Expr{x, &Const{V: types.StringValue(coll.Spec)}}, T: types.Bytes}
}

package sqlfunc

import (
	"fmt"

	"logq/collation"
	"logq/expr"
	"logq/types"
)

// x [NOT] LIKE ANY|ALL UNNEST(array) with an array that is not a literal
// (a column, ARRAY(SELECT …)): the internal like_any/like_all(x, patterns,
// negate). Each pattern is matched as LIKE matches it, negated for NOT
// LIKE; ANY is their OR and ALL their AND, in three-valued logic. An empty
// (or NULL) array is FALSE for LIKE and TRUE for NOT LIKE, ANY or ALL, even
// for a NULL x: the reference's rules for a pattern array, checked first. A
// literal array is expanded by the binder instead.
func registerLikeArrayFuncs() {
	check := func(c *expr.Call) (types.Type, error) {
		x, err := expr.CoerceTo(c.Args[0], types.String)
		if err != nil {
			return types.Type{}, fmt.Errorf("LIKE ANY/ALL: %w", err)
		}
		c.Args[0] = x
		if t := c.Args[1].Type(); t.Kind != types.KindNull && !(t.Kind == types.KindArray && (t.Elem.Kind == types.KindString || t.Elem.Kind == types.KindNull)) {
			return types.Type{}, fmt.Errorf("LIKE ANY/ALL UNNEST needs an ARRAY<STRING>, not %s", t)
		}
		return types.Bool, nil
	}
	quantified := func(all bool) func(c *expr.Call, a []types.Value) (types.Value, error) {
		return func(c *expr.Call, a []types.Value) (types.Value, error) {
			x, pats, negate := a[0], a[1], a[2].Bool()
			var coll *collation.Collation // a 4th argument: the collation's spec (funcs_collation.go)
			if len(a) == 4 {
				var err error
				if coll, err = collation.Parse(a[3].S); err != nil {
					return types.Value{}, expr.EvalErr("%v", err)
				}
			}
			if len(pats.L) == 0 {
				return types.BoolValue(negate), nil
			}
			unknown := false
			for _, p := range pats.L {
				if x.Null || p.Null {
					unknown = true
					continue
				}
				var ok bool
				if coll != nil {
					m, err := coll.Like(x.S, p.S)
					if err != nil {
						return types.Value{}, expr.EvalErr("%v", err)
					}
					ok = m
				} else {
					match, err := LikeMatcher(p.S)
					if err != nil {
						return types.Value{}, err
					}
					ok = match(x.S)
				}
				if ok != negate { // this pattern's answer is TRUE
					if !all {
						return types.BoolValue(true), nil
					}
				} else if all {
					return types.BoolValue(false), nil
				}
			}
			if unknown {
				return types.NullOf(types.Bool), nil
			}
			return types.BoolValue(all), nil
		}
	}
	expr.Register("like_any", def(3, 4, check, quantified(false), true))
	expr.Register("like_all", def(3, 4, check, quantified(true), true))
}

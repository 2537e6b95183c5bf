package sqlfunc

import (
	"fmt"

	"logq/expr"
	"logq/types"
)

// STRING(timestamp[, time_zone]) writes a TIMESTAMP as CAST does, in the zone
// (UTC by default) with its offset: "2014-02-28 19:20:30+01", "…+08:45".
// STRING of a DATE, DATETIME or TIME (ZetaSQL's) is its CAST to STRING.
// STRING(json) stays the JSON conversion (funcs_jsontype.go): this is an
// overload of it.
func registerTimeString() {
	expr.Registered("string").MaxArgs = 2
	isTime := func(t types.Type) bool {
		return t.Kind == types.KindTimestamp || t.Kind == types.KindDate || t.Kind == types.KindDatetime || t.Kind == types.KindTime
	}
	expr.Overload("string", func(c *expr.Call) (types.Type, bool, error) {
		t := c.Args[0].Type()
		switch {
		case isTime(t) && len(c.Args) == 2 && t.Kind != types.KindTimestamp:
			return types.Type{}, true, fmt.Errorf("STRING takes a time zone only for a TIMESTAMP, not %s", t)
		case isTime(t):
			return types.String, true, zoneArg(c, "STRING")
		case len(c.Args) == 2:
			return types.Type{}, true, fmt.Errorf("STRING(x, time_zone) needs a TIMESTAMP, not %s", t)
		}
		return types.Type{}, false, nil // STRING(json)
	}, func(c *expr.Call) bool { return isTime(c.Args[0].Type()) }, func(c *expr.Call, a []types.Value) (types.Value, error) {
		v := a[0]
		switch {
		case v.T.Kind == types.KindDate:
			return types.Cast(v, types.String)
		case len(a) == 2:
			loc, err := types.LoadLocation(a[1].S)
			if err != nil {
				return types.Value{}, expr.EvalErr("%v", err)
			}
			return types.StringValue(types.CastTimestampTextIn(v.I, loc)), nil
		}
		return types.StringValue(types.CastTimeText(v)), nil
	})
}

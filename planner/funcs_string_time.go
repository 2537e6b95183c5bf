package planner

import (
	"fmt"

	"logq/types"
)

// STRING(timestamp[, time_zone]) writes a TIMESTAMP as CAST does, in the zone
// (UTC by default) with its offset: "2014-02-28 19:20:30+01", "…+08:45".
// STRING of a DATE, DATETIME or TIME (ZetaSQL's) is its CAST to STRING.
// STRING(json) stays the JSON conversion (funcs_jsontype.go); this wraps it.
func registerTimeString() {
	f := funcs["string"]
	check, eval := f.Check, f.Eval
	f.MaxArgs = 2
	isTime := func(k types.Kind) bool {
		return k == types.KindTimestamp || k == types.KindDate || k == types.KindDatetime || k == types.KindTime
	}
	f.Check = func(c *Call) (types.Type, error) {
		k := c.Args[0].Type().Kind
		switch {
		case isTime(k) && len(c.Args) == 2 && k != types.KindTimestamp:
			return types.Type{}, fmt.Errorf("STRING takes a time zone only for a TIMESTAMP, not %s", c.Args[0].Type())
		case isTime(k):
			return types.String, zoneArg(c, "STRING")
		case len(c.Args) == 2:
			return types.Type{}, fmt.Errorf("STRING(x, time_zone) needs a TIMESTAMP, not %s", c.Args[0].Type())
		}
		return check(c)
	}
	f.Eval = func(c *Call, a []types.Value) (types.Value, error) {
		v := a[0]
		if !isTime(v.T.Kind) {
			return eval(c, a)
		}
		if v.T.Kind == types.KindDate {
			return types.Cast(v, types.String)
		}
		if len(a) < 2 || v.T.Kind != types.KindTimestamp {
			return types.StringValue(types.CastTimeText(v)), nil
		}
		loc, err := types.LoadLocation(a[1].S)
		if err != nil {
			return types.Value{}, evalErr("%v", err)
		}
		return types.StringValue(types.CastTimestampTextIn(v.I, loc)), nil
	}
}

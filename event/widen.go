package event

import (
	"strconv"

	"logq/types"
)

// Reading values stored before their field widened: every storage engine
// converts them by these rules, so that a widened field reads the same
// whichever engine holds it and whenever each value was written.

// Text is a scalar stored as kind k (BOOL and INT64 in i, FLOAT64 in f) as
// a field widened to STRING reads it: its JSON text.
func Text(k types.Kind, i int64, f float64) string {
	switch k {
	case types.KindBool:
		return strconv.FormatBool(i != 0)
	case types.KindFloat64:
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatInt(i, 10)
}

// Widened is v, stored as its own kind, read as a field of type to now has:
// an INT64 as FLOAT64 exactly, a scalar or an ARRAY as STRING by its text,
// an ARRAY of other elements with its elements as text (ArrayAsStrings).
func Widened(v types.Value, to types.Type) types.Value {
	if v.Null {
		return types.NullOf(to)
	}
	switch {
	case to.Kind == types.KindString && v.T.Kind == types.KindArray:
		return types.StringValue(v.String())
	case to.Kind == types.KindString && v.T.Kind != types.KindString:
		return types.StringValue(Text(v.T.Kind, v.I, v.F))
	case to.Kind == types.KindFloat64 && v.T.Kind == types.KindInt64:
		return types.FloatValue(float64(v.I))
	case to.Kind == types.KindArray && v.T.Kind == types.KindArray && to.Elem != nil && to.Elem.Kind == types.KindString && !v.T.Elem.Equal(types.String) && v.T.Elem.Kind != types.KindNull:
		return ArrayAsStrings(v)
	}
	return v
}

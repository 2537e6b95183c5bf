package sqlfunc

import (
	"regexp"
	"unicode/utf8"

	"logq/expr"
	"logq/types"
)

// REGEXP_INSTR(source, regexp[, position[, occurrence[, occurrence_position]]])
// as BigQuery has it: the 1-based (character) position of the occurrence-th
// non-overlapping match of regexp in source, searching from position; with
// occurrence_position 1, the position just after the match. A regexp with a
// capturing group reports the group's match (more than one group is an
// error). No such match: 0; a position past the end: 0. Errors: position or
// occurrence below 1, occurrence_position other than 0 or 1. A NULL argument
// gives NULL.
//
// Registered from this file's init so that adding it touches no shared file.
func init() {
	str, i64 := types.KindString, types.KindInt64
	expr.Register("regexp_instr", def(2, 5, func(c *expr.Call) (types.Type, error) {
		t, err := constPattern(sig(str, str, i64, i64, i64, i64))(c)
		if err == nil {
			if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null {
				_, err = instrRegexp(k.V.S)
			}
		}
		return t, err
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		re, err := instrRegexp(a[1].S)
		if err != nil {
			return types.Value{}, err
		}
		pos, occ, after := int64(1), int64(1), int64(0)
		if len(a) > 2 {
			pos = a[2].I
		}
		if len(a) > 3 {
			occ = a[3].I
		}
		if len(a) > 4 {
			after = a[4].I
		}
		if after != 0 && after != 1 {
			return types.Value{}, expr.EvalErr("REGEXP_INSTR: the occurrence position must be 0 or 1, got %d", after)
		}
		s := a[0].S
		m, found, err := regexpOccurrence("REGEXP_INSTR", re, s, pos, occ)
		switch {
		case err != nil:
			return types.Value{}, err
		case !found || a[1].S == "" || s == "":
			// An empty regular expression finds nothing, as GoogleSQL
			// documents, and nothing is found in '' (ZetaSQL: a position
			// past the length, as 1 is for '', gives 0).
			return types.IntValue(0), nil
		}
		start, end := m[0], m[1]
		if len(m) >= 4 {
			start, end = m[2], m[3]
			if start < 0 {
				return types.IntValue(0), nil // the group took no part in the match
			}
		}
		at := start
		if after == 1 {
			at = end
		}
		return types.IntValue(int64(utf8.RuneCountInString(s[:at])) + 1), nil
	}, false))
}

// instrRegexp compiles a REGEXP_INSTR pattern: at most one capturing group.
func instrRegexp(pattern string) (*regexp.Regexp, error) {
	re, err := CompileRegexp(pattern)
	if err != nil {
		return nil, err
	}
	if re.NumSubexp() > 1 {
		return nil, expr.EvalErr("REGEXP_INSTR: the regular expression %q has more than one capturing group", pattern)
	}
	return re, nil
}

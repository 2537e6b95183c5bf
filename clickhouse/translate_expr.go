package clickhouse

import (
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"logq/expr"
	"logq/types"
)

// Expressions in ClickHouse SQL. A value of each kind a column can carry
// has one encoding (sqlType): BOOL as UInt8 0/1, INT64 as Int64, FLOAT64
// as Float64, STRING as String, TIMESTAMP and DATETIME as Int64 µs; any of
// them Nullable. A function is written only where ClickHouse 18.16 computes
// exactly what exec does for every input, and where it does not the
// encoding says so:
//
//   - AND and OR are wrong with NULL operands in 18.16 (NULL AND 0 is NULL):
//     outside filter positions they are spelled out with multiIf;
//   - if() with a NULL condition is NULL in 18.16: IF and CASE are multiIf,
//     which takes NULL as false, as BigQuery does;
//   - a leading (?i) misses in 18.16 regexes, and ClickHouse matches bytes
//     where Go matches runes: a pattern is written from its parsed form
//     (flags become groups) and only when no part of it can tell bytes from
//     runes (no '.', no class reaching past ASCII);
//   - integer arithmetic wraps in ClickHouse and errors in BigQuery; float
//     arithmetic past FLOAT64's range is inf there and an error in
//     BigQuery; division by zero is inf there: none is written (exec
//     computes them), nor is anything else not listed below.

// chExpr writes e over cols. In a filter position (WHERE, a CASE condition,
// countIf) NULL and FALSE both reject, so AND and OR may be plain there.
func chExpr(cols []rcol, e expr.Expr, filter bool) (string, bool) {
	switch e := e.(type) {
	case *expr.ColRef:
		c := cols[e.Idx]
		return c.sql, c.sql != ""
	case *expr.Const:
		return constSQL(e.V)
	case *expr.Case:
		var args []string
		for _, w := range e.Whens {
			c, ok1 := chExpr(cols, w.Cond, true)
			t, ok2 := chExpr(cols, w.Then, false)
			if !ok1 || !ok2 {
				return "", false
			}
			args = append(args, c, t)
		}
		el, ok := chExpr(cols, e.Else, false)
		if !ok || !encodable(e.T) {
			return "", false
		}
		return "multiIf(" + strings.Join(append(args, el), ", ") + ")", true
	case *expr.Call:
		return call(cols, e, filter)
	}
	return "", false
}

// encodable says whether values of t have an encoding in SQL.
func encodable(t types.Type) bool {
	switch t.Kind {
	case types.KindNull, types.KindBool, types.KindInt64, types.KindFloat64, types.KindString, types.KindTimestamp, types.KindDatetime:
		return true
	}
	return false
}

// sqlType is the ClickHouse type of t's encoding, Nullable.
func sqlType(t types.Type) string {
	switch t.Kind {
	case types.KindBool:
		return "Nullable(UInt8)"
	case types.KindFloat64:
		return "Nullable(Float64)"
	case types.KindString:
		return "Nullable(String)"
	case types.KindInt64, types.KindTimestamp, types.KindDatetime:
		return "Nullable(Int64)"
	}
	return "Nullable(Nothing)"
}

// constSQL writes a constant in its kind's encoding.
func constSQL(v types.Value) (string, bool) {
	if !encodable(v.T) {
		return "", false
	}
	if v.Null {
		if v.T.Kind == types.KindNull {
			return "NULL", true
		}
		return "CAST(NULL AS " + sqlType(v.T) + ")", true
	}
	switch v.T.Kind {
	case types.KindBool:
		if v.I != 0 {
			return "toUInt8(1)", true
		}
		return "toUInt8(0)", true
	case types.KindInt64, types.KindTimestamp, types.KindDatetime:
		return intSQL(v.I), true
	case types.KindFloat64:
		switch {
		case math.IsNaN(v.F):
			return "nan", true
		case math.IsInf(v.F, 1):
			return "inf", true
		case math.IsInf(v.F, -1):
			return "-inf", true
		}
		return "toFloat64(" + strconv.FormatFloat(v.F, 'g', -1, 64) + ")", true
	case types.KindString:
		return quote(v.S), true
	}
	return "", false
}

// intSQL writes an Int64 constant (a bare negative literal would be a
// negated UInt64, and -2^63 has none).
func intSQL(i int64) string {
	if i < 0 {
		return "toInt64('" + strconv.FormatInt(i, 10) + "')"
	}
	return "toInt64(" + strconv.FormatInt(i, 10) + ")"
}

// call writes a function call, when it is one of those written exactly.
func call(cols []rcol, c *expr.Call, filter bool) (string, bool) {
	argFilter := false
	switch c.Fn {
	case "and", "or":
		argFilter = filter
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		s, ok := chExpr(cols, a, argFilter)
		if !ok {
			return "", false
		}
		args[i] = s
	}
	kind := func(i int) types.Kind { return c.Args[i].Type().Kind }
	switch c.Fn {
	case "=", "!=", "<", "<=", ">", ">=":
		a, b := args[0], args[1]
		switch ka, kb := kind(0), kind(1); {
		case ka == kb && comparable(ka):
		case ka == types.KindInt64 && kb == types.KindFloat64:
			a = "toFloat64(" + a + ")" // as types.Compare: the INT64 as a FLOAT64
		case ka == types.KindFloat64 && kb == types.KindInt64:
			b = "toFloat64(" + b + ")"
		case ka == types.KindNull || kb == types.KindNull:
			return "CAST(NULL AS Nullable(UInt8))", true
		default:
			return "", false
		}
		return "(" + a + " " + c.Fn + " " + b + ")", true
	case "and", "or":
		if filter {
			return "(" + args[0] + " " + strings.ToUpper(c.Fn) + " " + args[1] + ")", true
		}
		return logic(c.Fn, args[0], args[1]), true
	case "not":
		return "not(" + args[0] + ")", true
	case "is_null":
		return "isNull(" + args[0] + ")", true
	case "is_true":
		return "(ifNull(" + args[0] + ", 0) = 1)", true
	case "is_false":
		return "(ifNull(" + args[0] + ", 1) = 0)", true
	case "coalesce":
		if !encodable(c.T) {
			return "", false
		}
		return "coalesce(" + strings.Join(args, ", ") + ")", true
	case "if":
		if !encodable(c.T) {
			return "", false
		}
		cond, ok := chExpr(cols, c.Args[0], true)
		return "multiIf(" + cond + ", " + args[1] + ", " + args[2] + ")", ok
	case "||", "concat":
		return "concat(" + strings.Join(args, ", ") + ")", c.T.Kind == types.KindString
	case "length":
		return "toInt64(lengthUTF8(" + args[0] + "))", kind(0) == types.KindString
	case "regexp_contains":
		re, ok := constString(c.Args[1])
		if !ok {
			return "", false
		}
		pat, ok := byteSafeRegexp(re)
		return "match(" + args[0] + ", " + quote(pat) + ")", ok
	case "like", "starts_with", "ends_with":
		lit, ok := constString(c.Args[1])
		if !ok {
			return "", false
		}
		pat, ok := likeRegexp(c.Fn, lit)
		return "match(" + args[0] + ", " + quote(pat) + ")", ok
	case "timestamp_trunc":
		u := c.Unit.FixedMicros()
		if len(args) != 1 || u <= 0 || u > types.Day {
			return "", false // WEEK and longer: calendar arithmetic in exec
		}
		// The divisor typed Int64: 18.16 types Int64 % 3600000000 (a
		// UInt32 literal) as Int32, and wraps.
		us := intSQL(u)
		if ref, ok := c.Args[0].(*expr.ColRef); ok && cols[ref.Idx].nonNeg {
			// intDiv truncates toward 0, which is the floor here. (Small
			// queries spend most of their time in ClickHouse analysing
			// the SQL: the shorter form is measurably faster.)
			return "(intDiv(" + args[0] + ", " + us + ") * " + us + ")", true
		}
		return "(" + args[0] + " - modulo(modulo(" + args[0] + ", " + us + ") + " + us + ", " + us + "))", true
	case "datetime":
		if kind(0) != types.KindTimestamp || len(args) != 2 {
			return "", false
		}
		tz, ok := constString(c.Args[1])
		if !ok {
			return "", false
		}
		loc, err := types.LoadLocation(tz)
		return args[0], err == nil && loc == time.UTC // the same µs, as civil time in UTC
	case "cast":
		from := kind(0)
		switch {
		case from == c.T.Kind && encodable(c.T):
			return args[0], true
		case from == types.KindTimestamp && c.T.Kind == types.KindDatetime:
			return args[0], true
		case from == types.KindInt64 && c.T.Kind == types.KindFloat64:
			return "toFloat64(" + args[0] + ")", true
		case from == types.KindInt64 && c.T.Kind == types.KindString:
			return "toString(" + args[0] + ")", true
		}
	case "neg":
		if c.T.Kind == types.KindFloat64 {
			return "negate(" + args[0] + ")", true
		}
	}
	return "", false
}

// comparable lists the kinds compared alike in both engines: numbers and
// times as numbers (NaN unequal to all, as IEEE), strings by bytes.
func comparable(k types.Kind) bool {
	switch k {
	case types.KindBool, types.KindInt64, types.KindFloat64, types.KindString, types.KindTimestamp, types.KindDatetime:
		return true
	}
	return false
}

// logic writes three-valued AND or OR without 18.16's AND/OR on NULLs:
// FALSE (TRUE for OR) when either side is, else NULL when either is NULL.
func logic(fn, a, b string) string {
	if fn == "and" {
		return "multiIf((ifNull(" + a + ", 1) = 0) OR (ifNull(" + b + ", 1) = 0), toNullable(toUInt8(0)), isNull(" + a + ") OR isNull(" + b + "), CAST(NULL AS Nullable(UInt8)), toNullable(toUInt8(1)))"
	}
	return "multiIf((ifNull(" + a + ", 0) = 1) OR (ifNull(" + b + ", 0) = 1), toNullable(toUInt8(1)), isNull(" + a + ") OR isNull(" + b + "), CAST(NULL AS Nullable(UInt8)), toNullable(toUInt8(0)))"
}

func constString(e expr.Expr) (string, bool) {
	c, ok := e.(*expr.Const)
	if !ok || c.V.Null || c.V.T.Kind != types.KindString {
		return "", false
	}
	return c.V.S, true
}

// byteSafeRegexp is pattern as ClickHouse should be given it, when matching
// its bytes finds what Go's regexp finds matching runes: every literal and
// class within ASCII (case folding of ASCII letters stays ASCII, but for
// k and s, which Go also folds to the Kelvin sign and the long s), no '.'.
// It is written from the parsed pattern, so flags become groups ((?i)abc
// is (?i:abc)), which 18.16 matches right.
func byteSafeRegexp(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false // exec reports the error
	}
	ok := true
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
			ok = false
		case syntax.OpLiteral:
			for _, c := range r.Rune {
				if c >= utf8.RuneSelf || c == 0 || (r.Flags&syntax.FoldCase != 0 && strings.ContainsRune("kKsS", c)) {
					ok = false
				}
			}
		case syntax.OpCharClass:
			for _, c := range r.Rune {
				if c >= utf8.RuneSelf {
					ok = false
				}
			}
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return re.String(), ok
}

// likeRegexp is a LIKE pattern (or a STARTS_WITH/ENDS_WITH literal) as a
// regex over bytes: only '%' wildcards ('_' is a rune, which bytes cannot
// say; escapes are left to exec).
func likeRegexp(fn, lit string) (string, bool) {
	switch fn {
	case "starts_with":
		return `\A` + regexp.QuoteMeta(lit), !strings.ContainsRune(lit, 0)
	case "ends_with":
		return regexp.QuoteMeta(lit) + `\z`, !strings.ContainsRune(lit, 0)
	}
	if strings.ContainsAny(lit, "_\\\x00") {
		return "", false
	}
	parts := strings.Split(lit, "%")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return `(?s)\A` + strings.Join(parts, ".*") + `\z`, true
}

package sqlfunc

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"logq/expr"
	"logq/types"
)

// maxStringResult bounds strings that a function builds (LPAD, RPAD).
const maxStringResult = 1 << 20

// String functions. Positions and lengths count characters (runes), as
// BigQuery does for STRING.
func registerStringFuncs() {
	expr.Register("substr", def(2, 3, textSig(types.KindInt64), evalSubstr, false))
	expr.Alias("substring", "substr")
	expr.Register("instr", def(2, 4, checkInstr, evalInstr, false))
	expr.Register("replace", def(3, 3, textSig(types.KindString), evalReplace, false))
	expr.Register("trim", trim(strings.TrimFunc))
	expr.Register("ltrim", trim(strings.TrimLeftFunc))
	expr.Register("rtrim", trim(strings.TrimRightFunc))
	expr.Register("repeat", def(2, 2, textSig(types.KindInt64), evalRepeat, false))
	expr.Register("lpad", pad(true))
	expr.Register("rpad", pad(false))
	// SPLIT_SUBSTR(s, delim, start[, count]) (ZetaSQL's): the splits of s
	// at delim (not empty; left to right, not overlapping) from
	// the start-th (1-based; negative counts from the end; 0 or before
	// the first is the first; past the last is '') joined again by delim,
	// at most count of them (0 gives '', a negative count is an error).
	expr.Register("split_substr", def(3, 4, sig(types.KindString, types.KindString, types.KindInt64, types.KindInt64, types.KindString), evalSplitSubstr, false))
	// SPLIT of a STRING splits characters, of BYTES bytes (an empty
	// delimiter: each one); BYTES split with a BYTES delimiter (b',' when
	// none is given).
	expr.Register("split", def(1, 2, sig(types.KindString, types.KindString, types.KindNull), evalSplit, false))
	expr.Registered("split").Check = func(c *expr.Call) (types.Type, error) {
		t, err := textSig(types.KindString)(c)
		if err != nil {
			return types.Type{}, err
		}
		return types.ArrayOf(t), nil
	}
	expr.Register("array_to_string", def(2, 3, checkArrayToString, evalArrayToString, true))
	expr.Register("regexp_extract", def(2, 4, checkRegexpExtract, evalRegexpExtract, false))
	expr.Register("regexp_replace", def(3, 3, constPattern(sig(types.KindString, types.KindString, types.KindString)), evalRegexpReplace, false))
}

// TRIM of BYTES takes the bytes to trim (BigQuery has no default for
// them); of a STRING, white space by default.
func trim(f func(string, func(rune) bool) string) *expr.Func {
	return def(1, 2, func(c *expr.Call) (types.Type, error) {
		t, err := textSig(types.KindString)(c)
		if err == nil && t.Kind == types.KindBytes && len(c.Args) == 1 {
			err = fmt.Errorf("%s of BYTES needs the bytes to trim as its second argument", strings.ToUpper(c.Fn))
		}
		return t, err
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		if len(a) == 1 {
			return types.StringValue(f(a[0].S, unicode.IsSpace)), nil
		}
		if a[0].T.Kind == types.KindBytes {
			set := a[1].S
			return fromUnits(a[0], []rune(f(string(units(a[0])), func(r rune) bool { return strings.IndexByte(set, byte(r)) >= 0 }))), nil
		}
		set := a[1].S
		return types.StringValue(f(a[0].S, func(r rune) bool { return strings.ContainsRune(set, r) })), nil
	}, false)
}

func pad(left bool) *expr.Func {
	return def(2, 3, textSig(types.KindInt64, types.KindString), func(c *expr.Call, a []types.Value) (types.Value, error) {
		r := units(a[0])
		n := a[1].I
		p := []rune(" ")
		if len(a) == 3 {
			p = units(a[2])
		}
		switch {
		case n < 0:
			return types.Value{}, expr.EvalErr("%s: the length must not be negative, got %d", strings.ToUpper(c.Fn), n)
		case n > maxStringResult:
			return types.Value{}, expr.EvalErr("%s: the length %d is more than %d", strings.ToUpper(c.Fn), n, maxStringResult)
		case len(p) == 0:
			return types.Value{}, expr.EvalErr("%s: the pattern must not be empty", strings.ToUpper(c.Fn))
		case n <= int64(len(r)):
			return fromUnits(a[0], r[:n]), nil
		}
		fill := make([]rune, 0, n-int64(len(r)))
		for i := 0; int64(len(fill)) < n-int64(len(r)); i++ {
			fill = append(fill, p[i%len(p)])
		}
		if left {
			return fromUnits(a[0], append(fill, r...)), nil
		}
		return fromUnits(a[0], append(r, fill...)), nil
	}, false)
}

func evalSubstr(c *expr.Call, a []types.Value) (types.Value, error) {
	r := units(a[0])
	n := int64(len(r))
	pos := a[1].I
	if len(a) == 3 && a[2].I < 0 { // even when the position is past the end
		return types.Value{}, expr.EvalErr("SUBSTR: the length must not be negative, got %d", a[2].I)
	}
	switch {
	case pos > n:
		return fromUnits(a[0], nil), nil
	case pos > 0:
		pos--
	case pos == 0:
	default:
		pos = max(n+pos, 0)
	}
	end := n
	if len(a) == 3 {
		end = min(n, pos+a[2].I)
	}
	return fromUnits(a[0], r[pos:end]), nil
}

func checkInstr(c *expr.Call) (types.Type, error) {
	_, err := textSig(types.KindString, types.KindInt64, types.KindInt64)(c)
	return types.Int64, err
}

func evalInstr(c *expr.Call, a []types.Value) (types.Value, error) {
	pos, occ := int64(1), int64(1)
	if len(a) > 2 {
		pos = a[2].I
	}
	if len(a) > 3 {
		occ = a[3].I
	}
	if pos == 0 {
		return types.Value{}, expr.EvalErr("INSTR: the position must not be 0")
	}
	if occ <= 0 {
		return types.Value{}, expr.EvalErr("INSTR: the occurrence must be positive, got %d", occ)
	}
	return types.IntValue(instr(units(a[0]), units(a[1]), pos, occ)), nil // bytes count for BYTES
}

func evalReplace(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[1].S == "" {
		return a[0], nil
	}
	return types.Value{T: a[0].T, S: strings.ReplaceAll(a[0].S, a[1].S, a[2].S)}, nil
}

func evalRepeat(c *expr.Call, a []types.Value) (types.Value, error) {
	n := a[1].I
	switch {
	case n < 0:
		return types.Value{}, expr.EvalErr("REPEAT with a negative count: %d", n)
	case len(a[0].S) > 0 && n > maxStringResult/int64(len(a[0].S)):
		return types.Value{}, expr.EvalErr("REPEAT result past %d bytes", maxStringResult)
	}
	return types.Value{T: c.T, S: strings.Repeat(a[0].S, int(n))}, nil
}

func evalSplitSubstr(c *expr.Call, a []types.Value) (types.Value, error) {
	s, delim, start := a[0].S, a[1].S, a[2].I
	if delim == "" {
		return types.Value{}, expr.EvalErr("SPLIT_SUBSTR's delimiter must not be empty")
	}
	parts := strings.Split(s, delim)
	n := int64(len(parts))
	switch {
	case start < 0 && start >= -n: // (−start could overflow)
		start += n + 1
	case start <= 0:
		start = 1
	case start > n:
		return types.StringValue(""), nil
	}
	end := n
	if len(a) == 4 {
		if a[3].I < 0 {
			return types.Value{}, expr.EvalErr("SPLIT_SUBSTR with a negative count: %d", a[3].I)
		}
		if a[3].I < n-(start-1) { // start-1+count could overflow
			end = start - 1 + a[3].I
		}
	}
	return types.StringValue(strings.Join(parts[start-1:end], delim)), nil
}

func evalSplit(c *expr.Call, a []types.Value) (types.Value, error) {
	elem := *c.T.Elem
	sep := ","
	if len(a) == 2 {
		sep = a[1].S
	}
	var parts []string
	switch {
	case sep == "" && elem.Kind == types.KindBytes:
		for i := 0; i < len(a[0].S); i++ {
			parts = append(parts, a[0].S[i:i+1])
		}
	case sep == "":
		for _, r := range a[0].S {
			parts = append(parts, string(r))
		}
	default:
		parts = strings.Split(a[0].S, sep)
	}
	if len(parts) == 0 {
		parts = []string{""}
	}
	out := make([]types.Value, len(parts))
	for i, p := range parts {
		out[i] = types.Value{T: elem, S: p}
	}
	return types.ArrayValue(elem, out), nil
}

// ARRAY_TO_STRING(array, delimiter[, null_text]) joins an ARRAY<STRING>
// into a STRING, or an ARRAY<BYTES> (with BYTES delimiter and null_text)
// into BYTES.
func checkArrayToString(c *expr.Call) (types.Type, error) {
	t, out := c.Args[0].Type(), types.String
	switch {
	case t.Kind == types.KindArray && t.Elem.Kind == types.KindBytes:
		out = types.Bytes
	case t.Kind != types.KindNull && (t.Kind != types.KindArray || t.Elem.Kind != types.KindString):
		return types.Type{}, fmt.Errorf("ARRAY_TO_STRING needs an ARRAY<STRING> or ARRAY<BYTES>, not %s", t)
	}
	for i := 1; i < len(c.Args); i++ {
		e, err := expr.CoerceTo(c.Args[i], out)
		if err != nil {
			return types.Type{}, fmt.Errorf("argument %d of ARRAY_TO_STRING: %w", i+1, err)
		}
		c.Args[i] = e
	}
	return out, nil
}

func evalArrayToString(c *expr.Call, a []types.Value) (types.Value, error) {
	if a[0].Null || a[1].Null || (len(a) == 3 && a[2].Null) {
		return types.NullOf(c.T), nil
	}
	var parts []string
	for _, v := range a[0].L {
		switch {
		case !v.Null:
			parts = append(parts, v.S)
		case len(a) == 3:
			parts = append(parts, a[2].S)
		}
	}
	return types.Value{T: c.T, S: strings.Join(parts, a[1].S)}, nil
}

func checkRegexpExtract(c *expr.Call) (types.Type, error) {
	t, err := constPattern(sig(types.KindString, types.KindString, types.KindInt64, types.KindInt64, types.KindString))(c)
	if err == nil {
		if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null {
			_, err = extractRegexp(k.V.S)
		}
	}
	return t, err
}

func evalRegexpExtract(c *expr.Call, a []types.Value) (types.Value, error) {
	re, err := extractRegexp(a[1].S)
	if err != nil {
		return types.Value{}, err
	}
	// REGEXP_EXTRACT(value, regexp[, position[, occurrence]]): the
	// occurrence-th match searching from the position-th character.
	pos, occ := int64(1), int64(1)
	if len(a) > 2 {
		pos = a[2].I
	}
	if len(a) == 4 {
		occ = a[3].I
	}
	m, found, err := regexpOccurrence("REGEXP_EXTRACT", re, a[0].S, pos, occ)
	switch {
	case err != nil:
		return types.Value{}, err
	case !found:
		return types.NullOf(types.String), nil
	case len(m) == 4:
		if m[2] < 0 {
			return types.NullOf(types.String), nil // the group took no part
		}
		return types.StringValue(a[0].S[m[2]:m[3]]), nil
	}
	return types.StringValue(a[0].S[m[0]:m[1]]), nil
}

func evalRegexpReplace(c *expr.Call, a []types.Value) (types.Value, error) {
	re, err := CompileRegexp(a[1].S)
	if err != nil {
		return types.Value{}, err
	}
	tmpl, err := replacementTemplate(a[2].S, re.NumSubexp())
	if err != nil {
		return types.Value{}, err
	}
	return types.StringValue(re.ReplaceAllString(a[0].S, tmpl)), nil
}

// instr finds the occ-th occurrence of sub in s, searching forward from the
// 1-based position pos, or backward from it when pos is negative (counted
// from the end); the 1-based position of the match, or 0.
func instr(s, sub []rune, pos, occ int64) int64 {
	n, m := int64(len(s)), int64(len(sub))
	at := func(i int64) bool {
		if i < 0 || i+m > n {
			return false
		}
		for j := int64(0); j < m; j++ {
			if s[i+j] != sub[j] {
				return false
			}
		}
		return true
	}
	return instrAt(n, n-m, at, pos, occ, m == 0)
}

// instrAt is INSTR's search, in a string of n characters, over the starts
// 0…last (character positions) at which at reports a match: from pos
// (1-based; negative counts from the end and searches backward) the occ-th
// match, as a 1-based position, or 0. A backward search starts at the
// pos-th character from the end; an empty needle also matches just after
// it (ZetaSQL's rule: INSTR("a", "", -1) is 2, as INSTR("a", "", 2) is).
func instrAt(n, last int64, at func(i int64) bool, pos, occ int64, emptyNeedle bool) int64 {
	if pos > 0 {
		for i := pos - 1; i <= last; i++ {
			if at(i) {
				if occ--; occ == 0 {
					return i + 1
				}
			}
		}
		return 0
	}
	from := n + pos
	if emptyNeedle {
		from++
	}
	for i := min(from, last); i >= 0; i-- {
		if at(i) {
			if occ--; occ == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// extractRegexp compiles a REGEXP_EXTRACT pattern: at most one capturing group.
func extractRegexp(pattern string) (*regexp.Regexp, error) {
	re, err := CompileRegexp(pattern)
	if err != nil {
		return nil, err
	}
	if re.NumSubexp() > 1 {
		return nil, expr.EvalErr("REGEXP_EXTRACT: the regular expression %q has more than one capturing group", pattern)
	}
	return re, nil
}

// replacementTemplate turns BigQuery's replacement (\1 … \9 for groups, \0
// for the whole match, \\ for a backslash) into Go's ($ is literal).
func replacementTemplate(s string, groups int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '$':
			b.WriteString("$$")
		case ch == '\\':
			if i+1 == len(s) {
				return "", expr.EvalErr("REGEXP_REPLACE: the replacement %q ends with a lone backslash", s)
			}
			i++
			switch d := s[i]; {
			case d == '\\':
				b.WriteByte('\\')
			case d >= '0' && d <= '9':
				if int(d-'0') > groups {
					return "", expr.EvalErr("REGEXP_REPLACE: the replacement refers to group \\%c, but the pattern has %d", d, groups)
				}
				b.WriteString("${" + string(d) + "}")
			default:
				return "", expr.EvalErr("REGEXP_REPLACE: invalid escape \\%c in the replacement", d)
			}
		default:
			b.WriteByte(ch)
		}
	}

	return b.String(), nil
}

// registerArrayStringFuncs: REGEXP_EXTRACT_ALL and ARRAY_CONCAT.
func registerArrayStringFuncs() {
	expr.Register("regexp_extract_all", def(2, 2, func(c *expr.Call) (types.Type, error) {
		if _, err := constPattern(sig(types.KindString, types.KindString, types.KindString))(c); err != nil {
			return types.Type{}, err
		}
		if k, ok := c.Args[1].(*expr.Const); ok && !k.V.Null {
			if _, err := extractRegexp(k.V.S); err != nil {
				return types.Type{}, err
			}
		}
		return types.ArrayOf(types.String), nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		re, err := extractRegexp(a[1].S)
		if err != nil {
			return types.Value{}, err
		}
		out := []types.Value{}
		s := a[0].S
		for _, m := range extractAll(re, s) {
			at := len(m) - 2 // the group, else the whole match
			if m[at] < 0 {
				out = append(out, types.StringValue("")) // the group took no part
				continue
			}
			out = append(out, types.StringValue(s[m[at]:m[at+1]]))
		}
		return types.ArrayValue(types.String, out), nil
	}, false))
	expr.Register("array_concat", def(1, -1, func(c *expr.Call) (types.Type, error) {
		var t types.Type
		for i, a := range c.Args {
			at := a.Type()
			switch {
			case at.Kind == types.KindNull || at.Kind == types.KindArray && at.Elem.Kind == types.KindNull:
				continue // NULL, [] or [NULL]: any array type
			case at.Kind != types.KindArray:
				return types.Type{}, fmt.Errorf("argument %d of ARRAY_CONCAT: expected an ARRAY, found %s", i+1, at)
			case t.Kind == types.KindNull || t.Kind == 0:
				t = at
			case types.OnlyNullsDiffer(at, t): // [(NULL, true)] beside [(1, false)]
			case types.OnlyNullsDiffer(t, at):
				t = at
			default:
				return types.Type{}, fmt.Errorf("ARRAY_CONCAT cannot combine %s and %s", t, at)
			}
		}
		if t.Kind == 0 {
			for _, a := range c.Args {
				if a.Type().Kind == types.KindArray {
					return a.Type(), nil // only untyped arrays
				}
			}
			return types.Type{}, fmt.Errorf("ARRAY_CONCAT needs at least one ARRAY argument")
		}
		for i, a := range c.Args { // an array of untyped NULLs takes the others' type
			if at := a.Type(); at.Kind == types.KindArray && !at.Equal(t) {
				x, err := expr.CoerceTo(a, t)
				if err != nil {
					return types.Type{}, fmt.Errorf("argument %d of ARRAY_CONCAT: %w", i+1, err)
				}
				c.Args[i] = x
			}
		}
		return t, nil
	}, func(c *expr.Call, a []types.Value) (types.Value, error) {
		var out []types.Value
		for _, v := range a {
			out = append(out, v.L...)
		}
		return types.ArrayValue(*c.T.Elem, out), nil
	}, false))
}

// extractAll lists the matches of re in s as ZetaSQL's REGEXP_EXTRACT_ALL
// finds them: each search starts where the last match ended, an empty match
// moves on by one character, and no search starts at the end of s once a
// match has been found (so ” in 'abc' matches 3 times, not 4, and an empty
// match right after another match counts). Go's FindAll differs on those
// two points; it is kept for a pattern whose matches depend on what
// precedes the search's start (^, \A, \b, \B), which searching a suffix
// would change.
func extractAll(re *regexp.Regexp, s string) [][]int { return extractN(re, s, -1) }

// extractN is extractAll stopping after n matches (n < 0: all).
func extractN(re *regexp.Regexp, s string, n int) [][]int {
	if readsBefore(re.String()) {
		return re.FindAllStringSubmatchIndex(s, n)
	}
	var out [][]int
	for pos := 0; n < 0 || len(out) < n; {
		m := re.FindStringSubmatchIndex(s[pos:])
		if m == nil {
			return out
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += pos
			}
		}
		out = append(out, m)
		pos = m[1]
		if m[0] == m[1] && pos < len(s) {
			_, w := utf8.DecodeRuneInString(s[pos:])
			pos += w
		}
		if pos >= len(s) {
			return out
		}
	}
	return out
}

// readsBefore reports whether a pattern has an assertion about what precedes
// a position (^, \A, \b, \B), which searching a suffix would change. The
// answer is kept per pattern, as CompileRegexp keeps the compiled one.
func readsBefore(pattern string) bool {
	if v, ok := patternReadsBefore.Get(pattern); ok {
		return v
	}
	v := parseReadsBefore(pattern)
	patternReadsBefore.Add(pattern, v)
	return v
}

var patternReadsBefore, _ = lru.New[string, bool](512)

func parseReadsBefore(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return true
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		for _, sub := range r.Sub {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(re)
}

// regexpOccurrence is the search of REGEXP_EXTRACT and REGEXP_INSTR with a
// position and an occurrence: the occ-th match of re in s (as REGEXP_EXTRACT_ALL
// finds them, not overlapping) starting at the pos-th character; its
// submatch indices into s, and whether there is one (none when pos is past
// the end). pos or occ below 1 is an error. The search reads s cut at the
// position, as ZetaSQL does by default (its "legacy position behavior"):
// ^, \A and \b see the cut as the string's start, so REGEXP_EXTRACT('xyzabc',
// '^abc', 4) is 'abc'.
func regexpOccurrence(fn string, re *regexp.Regexp, s string, pos, occ int64) ([]int, bool, error) {
	switch {
	case pos < 1:
		return nil, false, expr.EvalErr("%s: the position must be positive, got %d", fn, pos)
	case occ < 1:
		return nil, false, expr.EvalErr("%s: the occurrence must be positive, got %d", fn, occ)
	}
	off := 0
	for n := int64(1); n < pos; n++ {
		if off >= len(s) {
			return nil, false, nil
		}
		_, w := utf8.DecodeRuneInString(s[off:])
		off += w
	}
	if off == len(s) && pos > 1 {
		return nil, false, nil // a position past the end: no match, even an empty one
	}
	ms := extractN(re, s[off:], int(min(occ, 1<<20)))
	if int64(len(ms)) < occ {
		return nil, false, nil
	}
	m := ms[occ-1]
	for i := range m {
		if m[i] >= 0 {
			m[i] += off
		}
	}
	return m, true, nil
}

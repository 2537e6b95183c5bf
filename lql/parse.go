package lql

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxClauses bounds a query, as Logflare does (it stops reading after 100).
const maxClauses = 100

// Query is a parsed LQL string: its filters, all of which must hold (AND).
// A Query from Parse is immutable and safe for concurrent use; Match and
// String need one from Parse (a Query built by hand matches nothing).
type Query struct {
	Filters []Filter

	keys [][]byte // distinct first path segments, as JSON strings ("name"); Filter.key indexes it
	rare []int    // the offset of each key's rarest byte
}

// Filter is one clause.
type Filter struct {
	// Path is where the filter looks in an event, one key a segment:
	// ["event_message"] for words, phrases and ~regexes,
	// ["metadata","request","path"] for m.request.path. The prefixes m. and
	// metadata. both become "metadata".
	Path []string
	// Op is what the filter tests.
	Op Op
	// Value is the value as written, quotes removed and escapes undone. It
	// is "NULL" for IsNull and empty for Range, whose ends are Lo and Hi.
	Value string
	// Lo and Hi are a Range's inclusive ends, as written.
	Lo, Hi string
	// Quoted reports that the value was written in quotes (or parentheses).
	Quoted bool
	// Negate reports a leading "-".
	Negate bool

	key      int            // index of Path[0] in Query.keys
	re       *regexp.Regexp // Regex, IncludesRegex
	matchAll bool           // re matches every string
	val      []byte         // Value, for bytes.Contains and bytes.Compare
	num      number         // Value as a number, when hasNum
	hasNum   bool
	lo, hi   number // Range
}

// Op is what a filter tests.
type Op int

// The operators. Each tries every element of an array it meets on its path.
const (
	// Eq is path:value: the value equals (numbers numerically).
	Eq Op = iota + 1
	// Contains is a bare word or "quoted phrase": a substring of event_message.
	Contains
	// Regex is ~re or path:~re: an unanchored RE2 match.
	Regex
	// Gt is path:>value.
	Gt
	// Ge is path:>=value.
	Ge
	// Lt is path:<value.
	Lt
	// Le is path:<=value.
	Le
	// Range is path:lo..hi, numeric and inclusive at both ends.
	Range
	// Includes is path:@>value: an array holds an element equal to value
	// (a scalar compares as Eq).
	Includes
	// IncludesRegex is path:@>~re: an element (or the scalar) matches re.
	IncludesRegex
	// IsNull is path:NULL: the value is JSON null.
	IsNull
)

var opNames = [...]string{
	Eq: "Eq", Contains: "Contains", Regex: "Regex", Gt: "Gt", Ge: "Ge", Lt: "Lt",
	Le: "Le", Range: "Range", Includes: "Includes", IncludesRegex: "IncludesRegex", IsNull: "IsNull",
}

// String returns the operator's Go name, such as "Eq" or "IncludesRegex".
func (o Op) String() string {
	if o > 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Error is a parse error at a byte offset of the input. Line and Col count
// from 1; Col counts characters (runes), not bytes.
type Error struct {
	Pos       int
	Line, Col int
	Msg       string
}

// Error returns "line:col: msg".
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

const (
	msgTimestamp = "timestamp filters are not supported in drain rules or tail filters; drains and the tail see events as they arrive"
	msgChart     = "chart clauses (c:) are not supported in drain rules or tail filters; they shape a search's chart"
	msgSelect    = "select clauses (s:) are not supported in drain rules or tail filters; drains and the tail pass whole events"
	msgFrom      = "from clauses (f:) are not supported in drain rules or tail filters; a rule belongs to its source"
)

type parser struct {
	src string
	i   int
}

func (p *parser) errorf(pos int, format string, args ...any) *Error {
	line, col := 1, 1
	for _, r := range p.src[:pos] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &Error{Pos: pos, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads an LQL string for a drain rule or a tail filter.
func Parse(s string) (*Query, error) {
	p := &parser{src: s}
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, p.errorf(i, "invalid UTF-8")
			}
			i += n
		}
	}
	q := &Query{}
	for {
		p.skipSpace()
		if p.i >= len(s) {
			break
		}
		if len(q.Filters) == maxClauses {
			return nil, p.errorf(p.i, "too many clauses: a query holds at most %d", maxClauses)
		}
		f, err := p.clause()
		if err != nil {
			return nil, err
		}
		q.Filters = append(q.Filters, f)
	}
	if len(q.Filters) == 0 {
		return nil, p.errorf(0, "empty query")
	}
	q.index()
	return q, nil
}

// index numbers the distinct first path segments, so that Match finds each
// top-level value once whatever the number of filters on it.
func (q *Query) index() {
	for i := range q.Filters {
		f := &q.Filters[i]
		f.key = -1
		for k, name := range q.keys {
			if string(name[1:len(name)-1]) == f.Path[0] {
				f.key = k
			}
		}
		if f.key < 0 {
			f.key = len(q.keys)
			q.keys = append(q.keys, []byte(`"`+f.Path[0]+`"`))
			q.rare = append(q.rare, rareByte(q.keys[f.key]))
		}
	}
}

func (p *parser) spaceAt(i int) bool {
	c := p.src[i]
	if c < utf8.RuneSelf {
		return asciiSpace[c]
	}
	r, _ := utf8.DecodeRuneInString(p.src[i:])
	return unicode.IsSpace(r)
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// atBoundary reports the end of the input or white space at p.i.
func (p *parser) atBoundary() bool { return p.i >= len(p.src) || p.spaceAt(p.i) }

func (p *parser) skipSpace() {
	for p.i < len(p.src) && p.spaceAt(p.i) {
		_, n := utf8.DecodeRuneInString(p.src[p.i:])
		p.i += n
	}
}

func (p *parser) clause() (Filter, error) {
	start := p.i
	f := Filter{Path: []string{"event_message"}}
	if p.src[p.i] == '-' {
		f.Negate = true
		p.i++
		if p.atBoundary() {
			return f, p.errorf(start, `"-" must touch the clause it negates, as in -error or -m.level:info`)
		}
	}
	switch p.src[p.i] {
	case '~':
		p.i++
		f.Op = Regex
		if p.atBoundary() {
			return f, p.errorf(p.i-1, `expected a regular expression after "~"`)
		}
		valStart := p.i
		var err error
		if p.src[p.i] == '"' {
			f.Value, err = p.quoted()
			f.Quoted = true
		} else {
			f.Value, err = p.word()
		}
		if err != nil {
			return f, err
		}
		if err := p.compile(&f, valStart); err != nil {
			return f, err
		}
	case '"':
		v, err := p.quoted()
		if err != nil {
			return f, err
		}
		f.Op, f.Value, f.Quoted = Contains, v, true
	default:
		if n := pathLen(p.src[p.i:]); n > 0 && p.i+n < len(p.src) && p.src[p.i+n] == ':' {
			if err := p.field(&f, start); err != nil {
				return f, err
			}
			break
		}
		v, err := p.word()
		if err != nil {
			return f, err
		}
		f.Op, f.Value = Contains, v
	}
	f.val = []byte(f.Value)
	return f, nil
}

// pathLen is the length of the run of path characters [A-Za-z0-9_.] that s
// begins with.
func pathLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '_' || c == '.') {
			return i
		}
	}
	return len(s)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// wordByte is Logflare's set of ASCII word characters.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0); c < utf8.RuneSelf; c++ {
		t[c] = isAlnum(c)
	}
	for _, c := range []byte(`._!%$^\+[]?(){}#&*-/<=>@;,|`) {
		t[c] = true
	}
	return t
}()

// scanWord returns the end of the word that starts at s[i:]: word
// characters, the pair \" kept as written, and letters, marks and digits
// beyond ASCII.
func scanWord(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\\' && i+1 < len(s) && s[i+1] == '"':
				i += 2
			case wordByte[c]:
				i++
			default:
				return i
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)) {
			return i
		}
		i += n
	}
	return i
}

// word reads a bare word (a search term, or a regex after "~").
func (p *parser) word() (string, error) {
	start := p.i
	p.i = scanWord(p.src, p.i)
	if !p.atBoundary() {
		r, _ := utf8.DecodeRuneInString(p.src[p.i:])
		switch r {
		case ':':
			end := p.i
			for end < len(p.src) && !p.spaceAt(end) && p.src[end] != '"' {
				end++
			}
			return "", p.errorf(p.i, `":" cannot appear in a word: quote the text (%q), or write a field as path:value with a path of letters, digits, "_" and "."`, p.src[start:end])
		case '"':
			return "", p.errorf(p.i, `unexpected '"' in a word: quote the whole text, writing \" for a quote inside it`)
		default:
			return "", p.errorf(p.i, "unexpected %q in a word: quote the text to search for it", r)
		}
	}
	return p.src[start:p.i], nil
}

// quoted reads a string in double quotes at p.i. Only \" and \\ are escapes;
// every other backslash is kept, so regexes keep \d.
func (p *parser) quoted() (string, error) {
	open := p.i
	p.i++
	start, esc := p.i, false
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case '\\':
			if p.i+1 < len(p.src) && (p.src[p.i+1] == '"' || p.src[p.i+1] == '\\') {
				esc = true
				p.i++
			}
		case '"':
			v := p.src[start:p.i]
			p.i++
			if !p.atBoundary() {
				return "", p.errorf(p.i, "expected white space after the closing quote, found %q", firstRune(p.src[p.i:]))
			}
			if esc {
				v = unescape(v)
			}
			return v, nil
		}
		p.i++
	}
	return "", p.errorf(open, `unterminated quoted string: no closing '"'`)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// field reads path:value; p.i is at the path and the clause began at start.
func (p *parser) field(f *Filter, start int) error {
	pathStart := p.i
	n := pathLen(p.src[p.i:])
	text := p.src[p.i : p.i+n]
	p.i += n + 1 // the path and ':'
	segs := strings.Split(text, ".")
	for _, s := range segs {
		if s == "" {
			return p.errorf(pathStart, "empty segment in path %q", text)
		}
	}
	switch text {
	case "t", "timestamp":
		return p.errorf(start, msgTimestamp)
	case "s", "select":
		return p.errorf(start, msgSelect)
	case "f", "from":
		return p.errorf(start, msgFrom)
	}
	if segs[0] == "m" && len(segs) > 1 {
		segs[0] = "metadata"
	}
	f.Path = segs

	rest := p.src[p.i:]
	f.Op = Eq
	for _, o := range fieldOps {
		if strings.HasPrefix(rest, o.text) {
			f.Op = o.op
			p.i += len(o.text)
			break
		}
	}
	written := p.src[pathStart:p.i] // "m.status:" or "m.x:>="
	if (text == "c" || text == "chart") && f.Op == Eq && chartAggregate(rest) {
		return p.errorf(start, msgChart)
	}
	if p.atBoundary() {
		return p.errorf(p.i, "expected a value after %q", written)
	}
	if doubledOp(p.src[p.i:]) {
		return p.errorf(p.i, "unexpected %q after %q: write one operator, or quote a value that begins with it", firstRune(p.src[p.i:]), written)
	}

	valStart := p.i
	regex := f.Op == Regex || f.Op == IncludesRegex
	var err error
	switch c := p.src[p.i]; {
	case c == '"':
		f.Value, err = p.quoted()
		f.Quoted = true
	case c == '(' && !regex:
		f.Value, err = p.parens()
		f.Quoted = true
	default:
		f.Value, err = p.bare()
	}
	if err != nil {
		return err
	}
	if regex {
		return p.compile(f, valStart)
	}
	if !f.Quoted {
		if f.Value == "NULL" {
			if f.Op != Eq && f.Op != Includes {
				return p.errorf(valStart, `NULL can only follow ":" (path:NULL), not %q`, written)
			}
			f.Op = IsNull
			return nil
		}
		lo, hi, kind := splitRange(f.Value)
		switch kind {
		case rangeNumbers:
			if f.Op != Eq {
				return p.errorf(valStart, `a range lo..hi can only follow ":", not %q`, written)
			}
			f.Op, f.Value, f.Lo, f.Hi = Range, "", lo, hi
			f.lo, _ = parseNumber(lo)
			f.hi, _ = parseNumber(hi)
			return nil
		case rangeBad:
			if len(segs) == 2 && segs[0] == "metadata" && segs[1] == "level" {
				return p.errorf(valStart, `level ranges such as %q are not supported: list the levels in a regex, as in m.level:~"^(info|warning|error)$"`, f.Value)
			}
			return p.errorf(valStart, `a range lo..hi needs a number at each end, found %q: use :>= and :<= for text, or quote the value to match it as written`, f.Value)
		}
	}
	f.num, f.hasNum = parseNumber(f.Value)
	return nil
}

var fieldOps = []struct {
	text string
	op   Op
}{
	{"@>~", IncludesRegex}, {"@>", Includes}, {">=", Ge}, {"<=", Le}, {">", Gt}, {"<", Lt}, {"~", Regex},
}

// doubledOp reports a value that begins like an operator (m.x::v, m.x:>>1),
// which is taken for a mistyped operator rather than read as text.
func doubledOp(v string) bool {
	return v != "" && strings.IndexByte(":<>~=", v[0]) >= 0 || strings.HasPrefix(v, "@>")
}

// chartAggregate reports a c: value that Logflare reads as a chart clause.
func chartAggregate(v string) bool {
	for _, a := range []string{"avg(", "countd(", "count(", "sum(", "max(", "p50(", "p95(", "p99(", "group_by("} {
		if strings.HasPrefix(v, a) {
			return true
		}
	}
	return false
}

// parens reads "(text)", which is quoted text without escapes.
func (p *parser) parens() (string, error) {
	open := p.i
	end := strings.IndexByte(p.src[p.i:], ')')
	if end < 0 {
		return "", p.errorf(open, `unterminated parenthesis: no closing ")"`)
	}
	v := p.src[p.i+1 : p.i+end]
	p.i += end + 1
	if !p.atBoundary() {
		return "", p.errorf(p.i, `expected white space after ")", found %q`, firstRune(p.src[p.i:]))
	}
	return v, nil
}

// bare reads an unquoted value: everything up to the next white space.
func (p *parser) bare() (string, error) {
	start := p.i
	for p.i < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.i:])
		switch {
		case unicode.IsSpace(r):
			return p.src[start:p.i], nil
		case r == '"':
			return "", p.errorf(p.i, `unexpected '"' inside a value: quote the whole value, writing \" for a quote inside it`)
		case unicode.IsControl(r):
			return "", p.errorf(p.i, "unexpected control character %U in a value", r)
		}
		p.i += n
	}
	return p.src[start:], nil
}

type rangeKind int

const (
	notRange rangeKind = iota
	rangeNumbers
	rangeBad
)

// splitRange classifies a bare value with "..": lo..hi with numbers at both
// ends is a range; with a number at one end only, or words (letters,
// digits, "_", "-", "+", ":") at both, it is a range that cannot be
// evaluated (info..error, 2020-01-01..2020-02-01, 1..); anything else
// (../x, /a/../b, v1..2.txt) is plain text.
func splitRange(v string) (lo, hi string, kind rangeKind) {
	i := strings.Index(v, "..")
	if i < 0 {
		return "", "", notRange
	}
	lo, hi = v[:i], v[i+2:]
	_, loNum := parseNumber(lo)
	_, hiNum := parseNumber(hi)
	switch {
	case loNum && hiNum:
		return lo, hi, rangeNumbers
	case loNum || hiNum || rangeWord(lo) && rangeWord(hi):
		return lo, hi, rangeBad
	}
	return "", "", notRange
}

func rangeWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isAlnum(c) || c == '_' || c == '-' || c == '+' || c == ':') {
			return false
		}
	}
	return s != ""
}

// compile compiles f.Value as f's regex; pos is where the value begins.
func (p *parser) compile(f *Filter, pos int) error {
	re, err := regexp.Compile(f.Value)
	if err != nil {
		reason := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			reason = fmt.Sprintf("%s: `%s`", se.Code, se.Expr)
		}
		hint := ""
		if unsupportedPerl(f.Value) {
			hint = "; Go's regular expressions (RE2) have no lookahead, lookbehind or backreferences"
		}
		return p.errorf(pos, "invalid regular expression %q: %s%s", f.Value, reason, hint)
	}
	f.re = re
	f.matchAll = matchesEverything(f.Value)
	return nil
}

func unsupportedPerl(re string) bool {
	for _, s := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
		if strings.Contains(re, s) {
			return true
		}
	}
	for i := 0; i+1 < len(re); i++ {
		if re[i] == '\\' {
			if c := re[i+1]; '1' <= c && c <= '9' || c == 'k' || c == 'g' {
				return true
			}
			i++
		}
	}
	return false
}

// matchesEverything reports a pattern that an unanchored search finds in
// every string (.*, .*?, ^, $, "", (?s)^.*$), so that Match need not run
// it. It may miss some, but never claims one wrongly: ^.*$ is not such a
// pattern, since "." stops at a newline.
func matchesEverything(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	re = re.Simplify()
	// A search tries the start and the end of every text.
	if emptyAt(re, false) || emptyAt(re, true) {
		return true
	}
	// (?s)^.*$: the star reaches the end of any text.
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return false
	}
	n := len(re.Sub)
	star := re.Sub[n-2]
	if re.Sub[n-1].Op != syntax.OpEndText || star.Op != syntax.OpStar || star.Sub[0].Op != syntax.OpAnyChar {
		return false
	}
	for _, s := range re.Sub[:n-2] {
		if !emptyAt(s, false) {
			return false
		}
	}
	return true
}

// emptyAt reports that re matches the empty string at the start (or, with
// end, the end) of any text: the only assertions it may need are those
// that hold there (^ and \A at the start, $ and \z at the end).
func emptyAt(re *syntax.Regexp, end bool) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpBeginText, syntax.OpBeginLine:
		return !end
	case syntax.OpEndText, syntax.OpEndLine:
		return end
	case syntax.OpRepeat:
		return re.Min == 0 || emptyAt(re.Sub[0], end)
	case syntax.OpPlus, syntax.OpCapture:
		return emptyAt(re.Sub[0], end)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !emptyAt(s, end) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if emptyAt(s, end) {
				return true
			}
		}
	}
	return false
}

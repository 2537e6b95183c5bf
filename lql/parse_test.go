package lql

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Builders for expected filters (exported fields only).

func word(v string) Filter { return Filter{Path: []string{"event_message"}, Op: Contains, Value: v} }

func phrase(v string) Filter { return quoted(word(v)) }

func regex(v string) Filter { return Filter{Path: []string{"event_message"}, Op: Regex, Value: v} }

func field(path string, op Op, v string) Filter {
	return Filter{Path: strings.Split(path, "."), Op: op, Value: v}
}

func between(path, lo, hi string) Filter {
	return Filter{Path: strings.Split(path, "."), Op: Range, Lo: lo, Hi: hi}
}

func isNull(path string) Filter { return field(path, IsNull, "NULL") }

func quoted(f Filter) Filter { f.Quoted = true; return f }

func not(f Filter) Filter { f.Negate = true; return f }

// exported copies filters without their unexported (compiled) parts.
func exported(fs []Filter) []Filter {
	out := make([]Filter, len(fs))
	for i, f := range fs {
		out[i] = Filter{Path: f.Path, Op: f.Op, Value: f.Value, Lo: f.Lo, Hi: f.Hi, Quoted: f.Quoted, Negate: f.Negate}
	}
	return out
}

type parseCase struct {
	name string // Pn: the report's parser case; Ln: Logflare's behaviour differs (see the comment)
	in   string
	want []Filter
}

// parseCases are queries that parse, with the filters expected. Pn names
// the research report's parser case (§3.1) the query comes from; "edge"
// cases come from its §1 and §3.2, and from logq's own rules. The report's
// timestamp, chart, select, from and level-range cases (P12, P16–P23,
// P25–P26, P33–P34, P41–P43, P51–P56) are refused: see errorCases. P37–P39
// need a source schema, which drain rules are not parsed with.
var parseCases = []parseCase{
	{"P2 field equals a bare value", `a:testing`, []Filter{field("a", Eq, "testing")}},
	// Logflare turns true/false into booleans; logq keeps the text and
	// compares it with JSON booleans when matching.
	{"P3 true", `a:true`, []Filter{field("a", Eq, "true")}},
	{"P3 false", `a:false`, []Filter{field("a", Eq, "false")}},
	{"P4 numbers keep their text", `a:1 b:1.1`, []Filter{field("a", Eq, "1"), field("b", Eq, "1.1")}},
	{"P6 nested path, quoted value", `a:testing b.c.d:"nested"`,
		[]Filter{field("a", Eq, "testing"), quoted(field("b.c.d", Eq, "nested"))}},
	{"P7 message regexes", `~new ~"user sign up" ~^error$`,
		[]Filter{regex("new"), quoted(regex("user sign up")), regex("^error$")}},
	{"P8 escaped quotes", `~"user \"sign\" up" ~^er\"ror`,
		[]Filter{quoted(regex(`user "sign" up`)), regex(`^er\"ror`)}},
	{"P9 ranges", `m.float:30.1..300.1 m.int:50..200`,
		[]Filter{between("metadata.float", "30.1", "300.1"), between("metadata.int", "50", "200")}},
	{"P10 negated comparison", `-m.int:>=100`, []Filter{not(field("metadata.int", Ge, "100"))}},
	{"P11 negated field regex", `-m.str:~a`, []Filter{not(field("metadata.str", Regex, "a"))}},
	{"P13 word and phrase", `unquoted "is quoted"`, []Filter{word("unquoted"), phrase("is quoted")}},
	{"P14 escaped backslashes in a regex", `m.context.address:~"\\d\\d\\d ST"`,
		[]Filter{quoted(field("metadata.context.address", Regex, `\d\d\d ST`))}},
	{"P14 single backslashes are kept", `m.context.address:~"\d\d\d ST"`,
		[]Filter{quoted(field("metadata.context.address", Regex, `\d\d\d ST`))}},
	{"P15 quoted text with a space", `m.context.file:"some module.ex"`,
		[]Filter{quoted(field("metadata.context.file", Eq, "some module.ex"))}},
	{"P15 integer", `m.context.line_number:100`, []Filter{field("metadata.context.line_number", Eq, "100")}},
	{"P24 NULL", `metadata.nullable:NULL`, []Filter{isNull("metadata.nullable")}},
	{"P27 includes a word", `m.arr:@>a`, []Filter{field("metadata.arr", Includes, "a")}},
	{"P27 includes quoted", `m.arr:@>"a"`, []Filter{quoted(field("metadata.arr", Includes, "a"))}},
	{"P28 includes an integer", `m.arr:@>1`, []Filter{field("metadata.arr", Includes, "1")}},
	{"P28 includes a quoted integer", `m.arr:@>"1"`, []Filter{quoted(field("metadata.arr", Includes, "1"))}},
	{"P29 includes a float", `m.arr:@>1.0`, []Filter{field("metadata.arr", Includes, "1.0")}},
	{"P29 includes a quoted float", `m.arr:@>"1.0"`, []Filter{quoted(field("metadata.arr", Includes, "1.0"))}},
	{"P30 includes regex, bare", `m.arr:@>~abc`, []Filter{field("metadata.arr", IncludesRegex, "abc")}},
	{"P30 includes regex, quoted", `m.arr:@>~"a c"`, []Filter{quoted(field("metadata.arr", IncludesRegex, "a c"))}},
	{"P30 includes regex, quoted number", `m.arr:@>~"1.0"`, []Filter{quoted(field("metadata.arr", IncludesRegex, "1.0"))}},
	{"P30 includes regex, number", `m.arr:@>~1`, []Filter{field("metadata.arr", IncludesRegex, "1")}},
	{"P31 less than, float range", `m.metric:<10.0 m.user:0.1..100.111`,
		[]Filter{field("metadata.metric", Lt, "10.0"), between("metadata.user", "0.1", "100.111")}},
	{"P32 booleans", `m.isAllowed:true m.isAllowed:false`,
		[]Filter{field("metadata.isAllowed", Eq, "true"), field("metadata.isAllowed", Eq, "false")}},
	// Logflare casts these by the schema's datetime type; logq compares the
	// text byte-wise (ISO 8601 text in one zone sorts by time) and numbers
	// numerically.
	{"P40 datetime text, unix range", `m.test_field:>=2026-03-17T14:47:02+02:00 m.test_field:1710683222..1710683822 m.test_field:<=1710683222000000`,
		[]Filter{field("metadata.test_field", Ge, "2026-03-17T14:47:02+02:00"),
			between("metadata.test_field", "1710683222", "1710683822"),
			field("metadata.test_field", Le, "1710683222000000")}},
	{"P46 c: without an aggregate is a field", `c:invalid(m.field)`, []Filter{field("c", Eq, "invalid(m.field)")}},
	{"P47 punctuation in quotes", `m.field:"!@#$%^&*()"`, []Filter{quoted(field("metadata.field", Eq, "!@#$%^&*()"))}},
	{"P47 Japanese in quotes", `m.field:"こんにちは"`, []Filter{quoted(field("metadata.field", Eq, "こんにちは"))}},
	{"P47 emoji in quotes", `m.field:"🚀"`, []Filter{quoted(field("metadata.field", Eq, "🚀"))}},
	{"P48 big integer", `m.field:999999999999999999999`, []Filter{field("metadata.field", Eq, "999999999999999999999")}},
	{"P49 range", `m.field:1..10`, []Filter{between("metadata.field", "1", "10")}},
	{"P49 reversed range is kept", `m.field:10..1`, []Filter{between("metadata.field", "10", "1")}},
	{"P49 one-value range", `m.field:1..1`, []Filter{between("metadata.field", "1", "1")}},
	{"P50 negated field", `-m.field:value`, []Filter{not(field("metadata.field", Eq, "value"))}},
	{"P50 negated regex", `-~pattern`, []Filter{not(regex("pattern"))}},
	{"P57 top-level field", `status:200`, []Filter{field("status", Eq, "200")}},
	{"P57 nested field regex", `user.name:~john`, []Filter{field("user.name", Regex, "john")}},
	{"P58 metadata field", `m.user_id:123`, []Filter{field("metadata.user_id", Eq, "123")}},
	{"P59 quoted dash", `cluster:"prod-c"`, []Filter{quoted(field("cluster", Eq, "prod-c"))}},
	// Logflare reads prod-c bare as cluster = "prod" AND NOT contains "c".
	{"P59 bare dash", `cluster:prod-c`, []Filter{field("cluster", Eq, "prod-c")}},
	{"P59 quoted space", `m.msg:"hello world"`, []Filter{quoted(field("metadata.msg", Eq, "hello world"))}},
	{"P59 at sign", `m.addr:test@example`, []Filter{field("metadata.addr", Eq, "test@example")}},
	{"P59 slash", `m.p:foo/bar`, []Filter{field("metadata.p", Eq, "foo/bar")}},
	{"P59 simple", `m.name:simple`, []Filter{field("metadata.name", Eq, "simple")}},
	{"P60 escaped quotes", `m.x:"hello \"world\""`, []Filter{quoted(field("metadata.x", Eq, `hello "world"`))}},
	{"P60 escaped backslashes", `m.x:"path\\to\\file"`, []Filter{quoted(field("metadata.x", Eq, `path\to\file`))}},
	{"P60 backslash before a quote", `m.x:"slash before quote: \\\""`,
		[]Filter{quoted(field("metadata.x", Eq, `slash before quote: \"`))}},
	{"P61 three words", `database connection failed`,
		[]Filter{word("database"), word("connection"), word("failed")}},
	{"P62 quoted regex", `~"error.*timeout"`, []Filter{quoted(regex("error.*timeout"))}},

	{"edge Studio's rule", `~".*?"`, []Filter{quoted(regex(".*?"))}},
	// Logflare keeps the path "m.x" (a top-level key "m") for one-letter names.
	{"edge m. always expands", `m.x:1`, []Filter{field("metadata.x", Eq, "1")}},
	{"edge metadata. written out", `metadata.x.y:1`, []Filter{field("metadata.x.y", Eq, "1")}},
	{"edge prefixes are case-sensitive", `M.xy:1 Metadata.xy:1`, []Filter{field("M.xy", Eq, "1"), field("Metadata.xy", Eq, "1")}},
	{"edge m alone is a key", `m:1`, []Filter{field("m", Eq, "1")}},
	// Logflare refuses a bare negative number.
	{"edge negative number", `m.xy:-5`, []Filter{field("metadata.xy", Eq, "-5")}},
	{"edge negative bound", `m.x:<-5`, []Filter{field("metadata.x", Lt, "-5")}},
	{"edge negative range", `m.x:-5..-1`, []Filter{between("metadata.x", "-5", "-1")}},
	// Logflare makes "200" the integer 200.
	{"edge quoted number stays text", `m.xy:"200"`, []Filter{quoted(field("metadata.xy", Eq, "200"))}},
	{"edge lower-case null is text", `m.xy:null`, []Filter{field("metadata.xy", Eq, "null")}},
	{"edge quoted NULL is text", `m.xy:"NULL"`, []Filter{quoted(field("metadata.xy", Eq, "NULL"))}},
	{"edge @>NULL is NULL", `m.arr:@>NULL`, []Filter{isNull("metadata.arr")}},
	{"edge NOT is a word", `NOT error`, []Filter{word("NOT"), word("error")}},
	{"edge OR is a word", `a OR b`, []Filter{word("a"), word("OR"), word("b")}},
	{"edge pipe is a word", `a | b`, []Filter{word("a"), word("|"), word("b")}},
	{"edge parentheses do not group", `(a b)`, []Filter{word("(a"), word("b)")}},
	{"edge parenthesised value", `m.xy:(a b)`, []Filter{quoted(field("metadata.xy", Eq, "a b"))}},
	{"edge empty parentheses", `m.x:()`, []Filter{quoted(field("metadata.x", Eq, ""))}},
	{"edge parentheses are not quotes after :~", `m.x:~(a|b)c`, []Filter{field("metadata.x", Regex, "(a|b)c")}},
	// Logflare separates clauses by space and newline only.
	{"edge tab separates", "a\tb", []Filter{word("a"), word("b")}},
	{"edge Unicode spaces separate", "a\u00a0b\u2003c\r\nd", []Filter{word("a"), word("b"), word("c"), word("d")}},
	{"edge surrounding space", " \n a \t", []Filter{word("a")}},
	// Logflare keeps "h" and drops the rest.
	{"edge non-ASCII letters", `héllo Straße 日本 ٣`, []Filter{word("héllo"), word("Straße"), word("日本"), word("٣")}},
	{"edge combining mark", "cafe\u0301", []Filter{word("cafe\u0301")}},
	{"edge event_message: is equality", `event_message:foo`, []Filter{field("event_message", Eq, "foo")}},
	{"edge event_message:~ is a regex", `event_message:~a:b`, []Filter{field("event_message", Regex, "a:b")}},
	{"edge empty phrase", `""`, []Filter{phrase("")}},
	{"edge empty regex", `~""`, []Filter{quoted(regex(""))}},
	// Logflare splits each of these into two clauses.
	{"edge path value", `m.path:api/v1`, []Filter{field("metadata.path", Eq, "api/v1")}},
	{"edge absolute path value", `m.path:/api/v1`, []Filter{field("metadata.path", Eq, "/api/v1")}},
	{"edge email", `m.x:foo@bar.com`, []Filter{field("metadata.x", Eq, "foo@bar.com")}},
	{"edge version", `m.v:1.2.3`, []Filter{field("metadata.v", Eq, "1.2.3")}},
	{"edge dash", `m.x:a-b`, []Filter{field("metadata.x", Eq, "a-b")}},
	{"edge exponent", `m.x:1e5`, []Filter{field("metadata.x", Eq, "1e5")}},
	{"edge bare regex", `m.x:~foo.*`, []Filter{field("metadata.x", Regex, "foo.*")}},
	{"edge anchored bare regex", `m.x:~^foo$`, []Filter{field("metadata.x", Regex, "^foo$")}},
	{"edge colon in a value", `m.a:b:c`, []Filter{field("metadata.a", Eq, "b:c")}},
	{"edge URL", `m.url:http://x.io/a?b=c`, []Filter{field("metadata.url", Eq, "http://x.io/a?b=c")}},
	{"edge URL at the top", `http://x`, []Filter{field("http", Eq, "//x")}},
	{"edge single quotes are text", `m.x:'a'`, []Filter{field("metadata.x", Eq, "'a'")}},
	{"edge dots that are no range", `m.path:../etc m.f:foo..bar.txt m.g:/a/../b`,
		[]Filter{field("metadata.path", Eq, "../etc"), field("metadata.f", Eq, "foo..bar.txt"), field("metadata.g", Eq, "/a/../b")}},
	{"edge text comparison", `m.date:>2020-01-01`, []Filter{field("metadata.date", Gt, "2020-01-01")}},
	{"edge text bound", `m.x:>abc`, []Filter{field("metadata.x", Gt, "abc")}},
	{"edge NULL as a regex is text", `m.x:~NULL`, []Filter{field("metadata.x", Regex, "NULL")}},
	{"edge double negation", `--a`, []Filter{not(word("-a"))}},
	{"edge negated phrase", `-"a b"`, []Filter{not(phrase("a b"))}},
	{"edge negated quoted regex", `-~"x"`, []Filter{not(quoted(regex("x")))}},
	{"edge negated NULL", `-m.x:NULL`, []Filter{not(isNull("metadata.x"))}},
	{"edge docs' regexes", `~server\_\d ~(?i)server\_\d ~some\"value`,
		[]Filter{regex(`server\_\d`), regex(`(?i)server\_\d`), regex(`some\"value`)}},
	{"edge backslash words", `my\string a\`, []Filter{word(`my\string`), word(`a\`)}},
	{"edge backslash at the end of quotes", `m.x:"a\\"`, []Filter{quoted(field("metadata.x", Eq, `a\`))}},
	{"edge other escapes kept", `m.x:"\d" m.y:"a\b"`, []Filter{quoted(field("metadata.x", Eq, `\d`)), quoted(field("metadata.y", Eq, `a\b`))}},
	{"edge newline in quotes", "\"a\nb\"", []Filter{phrase("a\nb")}},
	{"edge odd path names", `_x:1 1abc:2`, []Filter{field("_x", Eq, "1"), field("1abc", Eq, "2")}},
	{"edge c: with a plain value", `c:foo chart:x c:"count(*)"`,
		[]Filter{field("c", Eq, "foo"), field("chart", Eq, "x"), quoted(field("c", Eq, "count(*)"))}},
	{"edge metadata.timestamp is a field", `m.timestamp:>1 timestamps:1`,
		[]Filter{field("metadata.timestamp", Gt, "1"), field("timestamps", Eq, "1")}},
	{"edge a time needs quotes", `12:30`, []Filter{field("12", Eq, "30")}},
	{"edge @ value after @>", `m.x:@>@foo`, []Filter{field("metadata.x", Includes, "@foo")}},
	{"edge IP address", `m.request.headers.x_forwarded_for:"1.2.3.4"`,
		[]Filter{quoted(field("metadata.request.headers.x_forwarded_for", Eq, "1.2.3.4"))}},
	{"edge multi-line", "a\n-b\r\n  m.x:1", []Filter{word("a"), not(word("b")), field("metadata.x", Eq, "1")}},
	{"edge includes regex", `m.tags:@>~"^eu"`, []Filter{quoted(field("metadata.tags", IncludesRegex, "^eu"))}},
	{"edge match-all with flags", `~"(?s)^.*$"`, []Filter{quoted(regex("(?s)^.*$"))}},
}

func init() {
	// P5: one word for each special character between "my" and "string".
	for _, c := range `.?!@#$%^&*()-_=+[]{}|\/;,<>` {
		w := "my" + string(c) + "string"
		parseCases = append(parseCases, parseCase{"P5 " + w, w, []Filter{word(w)}})
	}
	// At most 100 clauses.
	many := strings.TrimSpace(strings.Repeat("x ", maxClauses))
	want := make([]Filter, maxClauses)
	for i := range want {
		want[i] = word("x")
	}
	parseCases = append(parseCases, parseCase{"edge 100 clauses", many, want})
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		t.Run(c.name, func(t *testing.T) {
			q, err := Parse(c.in)
			require.NoError(t, err, c.in)
			require.Equal(t, c.want, exported(q.Filters), c.in)
		})
	}
}

type errorCase struct {
	name string
	in   string
	at   string // "line:col"
	msg  string // a substring of Msg
}

var errorCases = []errorCase{
	// Logflare returns no rules.
	{"P1 empty", ``, "1:1", "empty query"},
	{"P1 all space", " \n\t\u00a0", "1:1", "empty query"},
	{"P12 negated timestamp range", `-t:2019-01-01T00:13:37..2019-02-01T00:23:34`, "1:1", msgTimestamp},
	{"P16 timestamp comparison", `t:>2019-01-01`, "1:1", "timestamp filters are not supported"},
	{"P17 timestamp with zone", `t:>=2026-03-17T14:47:02.000+02:00`, "1:1", "timestamp filters"},
	{"P18 unix range", `t:1710683222..1710683822`, "1:1", "timestamp filters"},
	{"P22 now", `timestamp:now`, "1:1", "timestamp filters"},
	{"P23 shorthand", `t:last@7d`, "1:1", "timestamp filters"},
	{"P34 timestamp value", `timestamp:>20`, "1:1", "timestamp filters"},
	{"P41 date range shorthand", `t:2020-{05..07}-01`, "1:1", "timestamp filters"},
	{"P52 timestamp after others", `m.level:error t:today`, "1:15", "timestamp filters"},
	// Logflare expands these into one equality per level, ANDed.
	{"P25 level range", `metadata.level:debug..critical`, "1:16", "level ranges"},
	{"P26 level range", `metadata.level:notice..warning`, "1:16", "level ranges"},
	{"P26 one-level range", `m.level:error..error`, "1:9", "level ranges"},
	{"P33 chart", `c:sum(m.metric) c:group_by(t::minute)`, "1:1", msgChart},
	{"P56 chart count", `chart:count(*)`, "1:1", "chart clauses"},
	{"P56 chart group_by", `x c:group_by(timestamp::hour)`, "1:3", "chart clauses"},
	{"P35 missing value", `metadata.user.emailAddress:`, "1:28", `expected a value after "metadata.user.emailAddress:"`},
	{"P35 missing value before a space", `m.status: x`, "1:10", `expected a value after "m.status:"`},
	{"P35 missing regex", `m.x:~`, "1:6", `expected a value after "m.x:~"`},
	{"P36 raw bytes", "\x00\x01\x02", "1:1", `unexpected '\x00' in a word`},
	{"P44 doubled >", `m.field:>>100`, "1:10", `unexpected '>' after "m.field:>"`},
	{"P44 doubled :", `m.field::value`, "1:9", `unexpected ':' after "m.field:"`},
	{"P44 >=<", `m.field:>=<100`, "1:11", `unexpected '<' after "m.field:>="`},
	{"P44 doubled ~", `m.field:~~pattern`, "1:10", `unexpected '~' after "m.field:~"`},
	// Logflare accepts these two, ignoring the second "~".
	{"P44 doubled ~ before quotes", `m.ab:~~"x"`, "1:7", "write one operator"},
	{"P44 > then ~", `m.ab:>~"x"`, "1:7", "write one operator"},
	{"P44 :=", `m.x:=5`, "1:5", "write one operator"},
	{"P44 @> twice", `m.x:@>@>1`, "1:7", "write one operator"},
	{"P45 unterminated phrase", `"unclosed quote`, "1:1", "unterminated quoted string"},
	{"P45 unterminated value", `m.x:"abc`, "1:5", "unterminated quoted string"},
	{"P45 escaped closing quote", `"abc\"`, "1:1", "unterminated quoted string"},
	{"P51 from", `f:my_table`, "1:1", msgFrom},
	{"P51 from long", `from:errors`, "1:1", "from clauses"},
	{"P51 from underscore", `f:_private_table`, "1:1", "from clauses"},
	{"P51 from with a dash", `f:my-table`, "1:1", "from clauses"},
	{"P52 from first", `f:events m.level:error t:today`, "1:1", "from clauses"},
	{"P53 select alias", `s:metadata.user.id@user_id`, "1:1", msgSelect},
	{"P54 select blank alias", `s:m.qty@`, "1:1", "select clauses"},
	{"P55 select star", `s:*`, "1:1", "select clauses"},
	{"P55 select long", `select:timestamp`, "1:1", "select clauses"},
	{"edge negated select", `-s:*`, "1:1", "select clauses"},
	{"edge tilde alone", `~`, "1:1", `expected a regular expression after "~"`},
	{"edge tilde before space", `a ~ b`, "1:3", `expected a regular expression after "~"`},
	{"edge doubled tilde", `~~x`, "1:2", `unexpected '~' in a word`},
	// Logflare raises.
	{"edge detached minus", `- error`, "1:1", `"-" must touch the clause`},
	{"edge minus alone", `a -`, "1:3", `"-" must touch the clause`},
	// Logflare reads the word user-agent and drops ":x".
	{"edge dash in a path", `user-agent:x`, "1:11", `":" cannot appear in a word: quote the text ("user-agent:x")`},
	{"edge dash in a metadata path", `m.a_b.c-d:1`, "1:10", `":" cannot appear in a word`},
	{"edge colon first", `:x`, "1:1", `":" cannot appear in a word`},
	// Logflare reads two clauses.
	{"edge text after a phrase", `"a"b`, "1:4", "expected white space after the closing quote, found 'b'"},
	{"edge text after a quoted value", `m.x:"a"b`, "1:8", "expected white space after the closing quote"},
	{"edge text after parentheses", `m.x:(a)b`, "1:8", `expected white space after ")"`},
	{"edge unterminated parentheses", `m.x:(abc`, "1:5", "unterminated parenthesis"},
	{"edge quote inside a value", `m.x:a"b"`, "1:6", `unexpected '"' inside a value`},
	{"edge quote inside a word", `ab"c"`, "1:3", `unexpected '"' in a word`},
	{"edge apostrophe", `don't`, "1:4", `unexpected '\'' in a word: quote the text`},
	{"edge emoji word", `🚀`, "1:1", `unexpected '🚀' in a word`},
	{"edge control character in a value", "m.x:a\x01", "1:6", "unexpected control character U+0001"},
	// Logflare parses these and crashes its router when it compiles them.
	{"edge invalid regex", `~"["`, "1:2", "invalid regular expression \"[\": missing closing ]: `[`"},
	{"edge invalid field regex", `m.x:~a(b`, "1:6", "invalid regular expression \"a(b\": missing closing )"},
	{"edge lookahead", `~"(?=x)"`, "1:2", "RE2) have no lookahead, lookbehind or backreferences"},
	{"edge negative lookahead", `m.x:~"a(?!b)"`, "1:6", "no lookahead"},
	{"edge lookbehind", `m.x:@>~"(?<=a)b"`, "1:8", "no lookahead"},
	{"edge backreference", `~"(a)\1"`, "1:2", "invalid escape sequence: `\\1`; Go's regular expressions (RE2)"},
	{"edge incomplete range", `m.x:1..`, "1:5", `a range lo..hi needs a number at each end, found "1.."`},
	{"edge range without a start", `m.x:..1`, "1:5", "needs a number at each end"},
	{"edge word range", `m.x:a..b`, "1:5", "needs a number at each end"},
	{"edge three-part range", `m.x:1..2..3`, "1:5", "needs a number at each end"},
	{"edge date range", `m.d:2020-01-01..2020-02-01`, "1:5", "use :>= and :<= for text"},
	{"edge range after >", `m.x:>1..5`, "1:6", `a range lo..hi can only follow ":", not "m.x:>"`},
	{"edge range after @>", `m.x:@>1..5`, "1:7", `can only follow ":"`},
	{"edge NULL after >", `m.x:>NULL`, "1:6", `NULL can only follow ":" (path:NULL), not "m.x:>"`},
	{"edge empty path segment", `a..b:1`, "1:1", `empty segment in path "a..b"`},
	{"edge empty metadata name", `x m.:1`, "1:3", `empty segment in path "m."`},
	{"edge leading dot", `.x:1`, "1:1", "empty segment"},
	{"edge too many clauses", strings.Repeat("x ", maxClauses) + "y", "1:201", "too many clauses: a query holds at most 100"},
	{"edge invalid UTF-8", "ab\xff", "1:3", "invalid UTF-8"},
	// Line and column: columns count characters, not bytes.
	{"edge second line", "error\nm.status:", "2:10", `expected a value after "m.status:"`},
	{"edge third line", "a\n\n  ~\"[\"", "3:4", "invalid regular expression"},
	{"edge columns count runes", "ééé m.x:", "1:9", "expected a value"},
}

func TestParseErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			q, err := Parse(c.in)
			require.Error(t, err, "%q parsed as %v", c.in, q)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Contains(t, e.Msg, c.msg, c.in)
			require.Equal(t, c.at+": "+e.Msg, err.Error(), c.in)
			require.True(t, e.Pos >= 0 && e.Pos <= len(c.in), "pos %d", e.Pos)
		})
	}
}

// The error message in the brief, word for word.
func TestErrorFormat(t *testing.T) {
	_, err := Parse(`a b m.status:`)
	require.EqualError(t, err, `1:14: expected a value after "m.status:"`)
	require.Equal(t, 13, err.(*Error).Pos)
}

// Every query that parses prints as LQL that parses to an equal query.
func TestRoundTrip(t *testing.T) {
	for _, c := range parseCases {
		q, err := Parse(c.in)
		require.NoError(t, err, c.in)
		s := q.String()
		q2, err := Parse(s)
		require.NoError(t, err, "%q printed as %q", c.in, s)
		require.Equal(t, exported(q.Filters), exported(q2.Filters), "%q printed as %q", c.in, s)
		require.Equal(t, s, q2.String(), "canonical form is stable")
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		`metadata.x:1  -m.int:>=100`:   `m.x:1 -m.int:>=100`,
		`m.xy:(a b)`:                   `m.xy:"a b"`,
		"a\tb\n\"c d\"":                `a b "c d"`,
		`~".*?"`:                       `~".*?"`,
		`m.x:"a\\b" m.y:"\d"`:          `m.x:"a\b" m.y:"\d"`,
		`m.x:"a\\"`:                    `m.x:"a\\"`,
		`m.x:"say \"hi\""`:             `m.x:"say \"hi\""`,
		`m.x:"a\\\"b"`:                 `m.x:"a\\\"b"`,
		`event_message:~a:b`:           `event_message:~a:b`,
		`event_message:~ab`:            `~ab`,
		`m.v:1..5 m.n:NULL m.a:@>~x`:   `m.v:1..5 m.n:NULL m.a:@>~x`,
		`m.arr:@>NULL`:                 `m.arr:NULL`,
		`--a`:                          `--a`,
		`metadata:x`:                   `metadata:x`,
		`m.x:~(a|b)c m.y:<=-1.5e3`:     `m.x:~(a|b)c m.y:<=-1.5e3`,
		`m.date:>2020-01-01T00:00:00Z`: `m.date:>2020-01-01T00:00:00Z`,
	} {
		q, err := Parse(in)
		require.NoError(t, err, in)
		require.Equal(t, want, q.String(), in)
	}
}

// A hand-built query still prints as LQL that parses: values that cannot be
// written bare are quoted.
func TestStringQuotesWhatItMust(t *testing.T) {
	q := &Query{Filters: []Filter{
		word("-a"), word("a b"), word(""), regex("a b"),
		field("metadata.x", Eq, "NULL"), field("metadata.x", Eq, "1..2"), field("metadata.x", Eq, "(a)"),
		field("metadata.x", Eq, ":a"), field("metadata.x", Gt, ""), field("metadata.x", Regex, `~x"`),
	}}
	s := q.String()
	require.Equal(t, `"-a" "a b" "" ~"a b" m.x:"NULL" m.x:"1..2" m.x:"(a)" m.x:":a" m.x:>"" m.x:~"~x\""`, s)
	q2, err := Parse(s)
	require.NoError(t, err)
	for i, f := range q2.Filters {
		require.Equal(t, q.Filters[i].Value, f.Value)
		require.Equal(t, q.Filters[i].Op, f.Op)
	}
}

func TestOpString(t *testing.T) {
	require.Equal(t, "Eq", Eq.String())
	require.Equal(t, "IncludesRegex", IncludesRegex.String())
	require.Equal(t, "IsNull", IsNull.String())
	require.Equal(t, "Op(0)", Op(0).String())
	require.Equal(t, "Op(99)", Op(99).String())
}

// The fast path for regexes that match every string: those it finds do
// match every string, and patterns that do not are never taken for them.
func TestMatchesEverything(t *testing.T) {
	samples := []string{"", "a", "\n", "a\nb", "xyz\n", "\u00e9\x00", " "}
	for re, want := range map[string]bool{
		``: true, `.*`: true, `.*?`: true, `^`: true, `^.*`: true, `(.*)`: true, `(?i).*`: true, `$`: true, `.*$`: true,
		`(?s)^.*$`: true, `(?s).*$`: true, `a*`: true, `x|.*`: true, `(?:)`: true, `\A`: true, `\z`: true, `a{0,3}`: true,
		`^.*$`: false, `.+`: false, `a`: false, `\b`: false, `.*a`: false, `^$`: false, `\A\z`: false, `^a*$`: false,
	} {
		require.Equal(t, want, matchesEverything(re), re)
		if want {
			r := regexp.MustCompile(re)
			for _, s := range samples {
				require.True(t, r.MatchString(s), "%q on %q", re, s)
			}
		}
	}
}

func TestParseNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-5": true, "007": true, "1.5": true, "1e5": true, "1E+5": true, "-1.5e-3": true,
		"999999999999999999999": true, "9223372036854775807": true, "-9223372036854775808": true,
		"": false, "-": false, "+5": false, ".5": false, "5.": false, "1e": false, "0x10": false,
		"Inf": false, "NaN": false, "1_000": false, "1.2.3": false, " 1": false, "1 ": false,
	} {
		_, ok := parseNumber(s)
		require.Equal(t, want, ok, s)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"12345678901234567891", "12345678901234567890", 1}, // beyond int64, still exact
		{"-12345678901234567891", "-12345678901234567890", -1},
		{"123456789012345678901", "99999999999999999999", 1},
		{"-5", "3", -1}, {"3", "-5", 1}, {"-5", "-3", -1}, {"007", "7", 0}, {"-0", "0", 0}, {"0", "-0.0", 0},
		{"1", "1.0", 0}, {"1e2", "100", 0}, {"1.5", "2", -1}, {"-1.5e3", "-1500", 0}, {"1e400", "99999999999999999999", 1},
		{"9223372036854775807", "9223372036854775806", 1}, {"12345678901234567890", "1.2345678901234567e19", 0},
	} {
		a, ok := parseNumber(c.a)
		require.True(t, ok, c.a)
		b, ok := parseNumber([]byte(c.b))
		require.True(t, ok, c.b)
		require.Equal(t, c.want, a.cmp(b), "%s vs %s", c.a, c.b)
		require.Equal(t, -c.want, b.cmp(a), "%s vs %s", c.b, c.a)
	}
}

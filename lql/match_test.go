package lql

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

type matchCase struct {
	name  string // Rn: the report's routing case (§3.3); "edge": its §3.4, or logq's own
	event string
	query string
	want  bool
}

// Events shared by several cases.
const (
	evLevel1 = `{"metadata":{"level1":[{"level2":[{"list_of_ints":[400,300]},{"list_of_ints":[100,200,2]}]},` +
		`{"level2":[{"list_of_ints":[2]},{"list_of_ints":[]},{"list_of_ints":[4]}]}]}}`
	evLines = `{"metadata":{"lines":[{"data":{"field1":[{"field2":[{"field3":"value"}]}]}},` +
		`{"data":{"field1":[{"field2":[{"field3":"other"}]}]}}]}}`
	evTags = `{"metadata":{"tags":["prod","eu-west"]}}`
)

// The rule set of R40–R43, one rule each.
var levelRules = []string{`level:info`, `level:warn`, `level:~"err.*"`, `level:1..5`, `-level:drop_me`, `level:1..5`}

var matchCases = []matchCase{
	{"R1 substring", `{"event_message":"testing123"}`, `testing`, true},
	{"R2 list includes", `{"metadata":{"list_of_ints":[1,2,5,0,-100,1000000]}}`, `m.list_of_ints:@>2`, true},
	{"R2 list includes a negative", `{"metadata":{"list_of_ints":[1,2,5,0,-100,1000000]}}`, `m.list_of_ints:@>-100`, true},
	{"R3 empty list", `{"metadata":{"list_of_ints":[]}}`, `m.list_of_ints:@>2`, false},
	{"R3 empty list, negated", `{"metadata":{"list_of_ints":[]}}`, `-m.list_of_ints:@>2`, true},
	{"R4 no null in the list", `{"metadata":{"list_of_ints":["2","6","0"]}}`, `m.list_of_ints:@>NULL`, false},
	{"R4 a null in the list", `{"metadata":{"list_of_ints":["2",null]}}`, `m.list_of_ints:@>NULL`, true},
	{"R5 includes on a scalar is equality", `{"user_agent":"HomeAssistant/2026.2.2 aiohttp/3.13.3 Python/3.13"}`, `user_agent:@>Chrome`, false},
	{"R6 includes on an equal scalar", `{"user_agent":"Chrome"}`, `user_agent:@>Chrome`, true},
	{"R7 includes regex", `{"metadata":{"list":["a","b","abc123"]}}`, `m.list:@>~"23"`, true},
	{"R8 not matched against the list's text", `{"metadata":{"list":["a","b","abc123"]}}`, `m.list:@>~"a\","`, false},
	{"R9 includes regex on a scalar", `{"metadata":{"list":"a, b, abc123"}}`, `m.list:@>~"b,"`, true},
	{"R10 includes regex, empty list", `{"metadata":{"list":[]}}`, `m.list:@>~"23"`, false},
	// R11–R13 test a substring rule on a path, which LQL cannot write: a
	// regex stands in.
	{"R11 path regex", `{"metadata":{"path":"log error string"}}`, `m.path:~error`, true},
	{"R12 path regex, no match", `{"metadata":{"path":"log info string"}}`, `m.path:~error`, false},
	{"R13 path regex, repeated", `{"metadata":{"path":"stringstring"}}`, `m.path:~string`, true},
	{"R14 word", `{"event_message":"ten three"}`, `ten`, true},
	{"R15 digit regex", `{"metadata":{"regex_string":"111"}}`, `m.regex_string:~"\d\d\d"`, true},
	{"R16 digit regex, no match", `{"metadata":{"regex_string":"11z"}}`, `m.regex_string:~"\d\d\d"`, false},
	{"R17 regex on a number", `{"metadata":{"num":123}}`, `m.num:~"123"`, true},
	{"R18 greater", `{"metadata":{"number":100}}`, `m.number:>1`, true},
	{"R19 less", `{"metadata":{"number":100}}`, `m.number:<200`, true},
	{"R20 at least", `{"metadata":{"number":1}}`, `m.number:>=1`, true},
	{"R20 at most", `{"metadata":{"number":1}}`, `m.number:<=1`, true},
	{"R20 not greater", `{"metadata":{"number":1}}`, `m.number:>1`, false},
	{"R20 not less", `{"metadata":{"number":1}}`, `m.number:<1`, false},
	{"R21 two filters", `{"field1":0,"field2":"string"}`, `field1:0 field2:~string`, true},
	{"R22 one fails", `{"field1":1,"field2":"string"}`, `field1:0 field2:~string`, false},
	{"R23 negated, fails", `{"field1":0,"field2":"string"}`, `-field1:0 field2:~string`, false},
	{"R24 negated, holds", `{"field1":1,"field2":"string"}`, `-field1:0 field2:~string`, true},
	{"R25 two negations, first fails", `{"level":"info"}`, `-level:info -level:error`, false},
	{"R26 two negations, second fails", `{"level":"error"}`, `-level:info -level:error`, false},
	{"R27 two negations hold", `{"level":"warn"}`, `-level:info -level:error`, true},
	{"R28 lists at every level", evLines, `m.lines.data.field1.field2.field3:value`, true},
	{"R28 lists at every level, other element", evLines, `m.lines.data.field1.field2.field3:other`, true},
	{"R28 lists at every level, no element", evLines, `m.lines.data.field1.field2.field3:none`, false},
	{"R29 list of objects", `{"metadata":{"lines":[{"data":"other_value"},{"data":"value"}]}}`, `m.lines.data:value`, true},
	{"R30 in range", `{"metadata":{"range":6}}`, `m.range:1..10`, true},
	{"R30 in range, negated", `{"metadata":{"range":6}}`, `-m.range:1..10`, false},
	{"R31 out of range", `{"metadata":{"range":100}}`, `m.range:101..500`, false},
	{"R31 out of range, negated", `{"metadata":{"range":100}}`, `-m.range:101..500`, true},
	{"R32 nested includes 2", evLevel1, `m.level1.level2.list_of_ints:@>2`, true},
	{"R32 nested includes 4", evLevel1, `m.level1.level2.list_of_ints:@>4`, true},
	{"R32 nested includes 400", evLevel1, `m.level1.level2.list_of_ints:@>400`, true},
	{"R33 nested includes 350", evLevel1, `m.level1.level2.list_of_ints:@>350`, false},
	{"R33 nested includes NULL", evLevel1, `m.level1.level2.list_of_ints:@>NULL`, false},
	// Logflare: no, by strict type. logq: "200" is a number, so equal to 200.
	{"R33 nested includes a quoted number", evLevel1, `m.level1.level2.list_of_ints:@>"200"`, true},
	{"R34 two filters, one fails", `{"metadata":{"ref":"invalid","level1":[{"int":2},{"int":300},{"int":2}]}}`, `m.level1.int:2 m.ref:valid`, false},
	{"R35 two filters hold", `{"metadata":{"ref":"valid","level1":[{"int":2},{"int":300},{"int":2}]}}`, `m.level1.int:2 m.ref:valid`, true},
	{"R36 equal", `{"project":"foo"}`, `project:foo`, true},
	{"R37 not equal", `{"project":"bar"}`, `project:foo`, false},
	{"R38 missing key", `{"other":"foo"}`, `project:foo`, false},
	{"R38 missing key, negated", `{"other":"foo"}`, `-project:foo`, false},
	{"R39 v0", `{"project":"v3"}`, `project:v0`, false},
	{"R39 v1", `{"project":"v3"}`, `project:v1`, false},
	{"R39 v2", `{"project":"v3"}`, `project:v2`, false},
	{"R39 v3", `{"project":"v3"}`, `project:v3`, true},
	{"R39 v4", `{"project":"v3"}`, `project:v4`, false},
	{"R44 rule A", `{"project":"foo","level":"error"}`, `project:foo`, true},
	{"R44 rule B", `{"project":"foo","level":"error"}`, `project:foo level:error`, true},
	{"R45 three filters", `{"project":"foo","level":"info","type":"trace"}`, `project:foo level:info type:trace`, true},
	{"R45 three filters, one fails", `{"project":"foo","level":"info","type":"log"}`, `project:foo level:info type:trace`, false},
	{"R46 status", `{"metadata":{"response":{"status":200}}}`, `m.response.status:200`, true},
	{"R46 other status", `{"metadata":{"response":{"status":500}}}`, `m.response.status:200`, false},
	{"R47 list at the metadata level", `{"metadata":[{"tag":"y"},{"tag":"x"}]}`, `m.tag:x`, true},
	{"R47 list at the metadata level, no match", `{"metadata":[{"tag":"y"},{"tag":"z"}]}`, `m.tag:x`, false},
	{"R48 two matching elements", `{"metadata":[{"tag":"x"},{"tag":"x"}]}`, `m.tag:x`, true},

	// §3.4
	{"edge words are case-sensitive", `{"event_message":"User Error: disk full"}`, `error`, false},
	{"edge (?i)", `{"event_message":"User Error: disk full"}`, `~"(?i)error"`, true},
	{"edge no message, match-all regex", `{"metadata":{}}`, `~".*"`, false},
	{"edge no message, word", `{"metadata":{}}`, `foo`, false},
	{"edge no message, negated word", `{"metadata":{}}`, `-foo`, false},
	{"edge no message, negated regex", `{"metadata":{}}`, `-~"x"`, false},
	// Logflare: no (the rule's value is the integer 200).
	{"edge numeric text equals a number", `{"metadata":{"ss":"200"}}`, `m.ss:200`, true},
	{"edge numeric text equals quoted", `{"metadata":{"ss":"200"}}`, `m.ss:"200"`, true},
	// Logflare: yes (any string is greater than any number in term order).
	{"edge numeric text compares as a number", `{"metadata":{"ss":"200"}}`, `m.ss:>300`, false},
	{"edge numeric text compares as a number, holds", `{"metadata":{"ss":"200"}}`, `m.ss:>100`, true},
	// Logflare's RulesTree: no (strict equality); Sequential: yes.
	{"edge 1 equals 1.0", `{"metadata":{"one":1.0}}`, `m.one:1`, true},
	// RulesTree: no; Sequential: yes. Every filter tries array elements.
	{"edge equality tries elements", evTags, `m.tags:prod`, true},
	// RulesTree: no (it tests a substring "^eu"); Sequential: yes.
	{"edge includes regex is a regex", evTags, `m.tags:@>~"^eu"`, true},
	// Sequential: yes (it negates each element). RulesTree: no.
	{"edge negation after the any-of", evTags, `-m.tags:@>prod`, false},
	{"edge negated equality on a list", evTags, `-m.tags:prod`, false},
	{"edge negated equality on a list, no element", evTags, `-m.tags:dev`, true},
	// RulesTree: yes; Sequential: no. A null value exists.
	{"edge negation on null", `{"metadata":{"nn":null}}`, `-m.nn:x`, true},
	{"edge NULL", `{"metadata":{"nn":null}}`, `m.nn:NULL`, true},
	{"edge negated NULL on null", `{"metadata":{"nn":null}}`, `-m.nn:NULL`, false},
	// Logflare: yes (null is greater than any number in term order).
	{"edge null is not greater", `{"metadata":{"nn":null}}`, `m.nn:>1`, false},
	{"edge missing, negated", `{"metadata":{}}`, `-m.ab:x`, false},
	{"edge missing, negated NULL", `{"metadata":{}}`, `-m.ab:NULL`, false},
	{"edge missing, NULL", `{"metadata":{}}`, `m.ab:NULL`, false},
	{"edge NULL on a number", `{"metadata":{"status":200}}`, `m.status:NULL`, false},
	{"edge negated NULL on a number", `{"metadata":{"status":200}}`, `-m.status:NULL`, true},
	// Logflare: yes (term order).
	{"edge number against text", `{"metadata":{"status":200}}`, `m.status:<abc`, false},
	// RulesTree raises.
	{"edge regex on a boolean", `{"metadata":{"flag":true}}`, `m.flag:~true`, true},
	{"edge boolean equals", `{"metadata":{"flag":true}}`, `m.flag:true`, true},
	{"edge boolean equals quoted", `{"metadata":{"flag":true}}`, `m.flag:"true"`, true},
	{"edge boolean differs", `{"metadata":{"flag":true}}`, `m.flag:false`, false},
	{"edge boolean is no number", `{"metadata":{"flag":true}}`, `m.flag:1`, false},
	{"edge boolean is not compared", `{"metadata":{"flag":true}}`, `m.flag:>0`, false},
	{"edge text true is no boolean", `{"metadata":{"flag":"true"}}`, `m.flag:true`, true},

	// Supabase Studio's rule and the match-all fast path.
	{"edge Studio, message", `{"event_message":"hello","id":"x"}`, `~".*?"`, true},
	{"edge Studio, empty message", `{"event_message":""}`, `~".*?"`, true},
	{"edge Studio, number message", `{"event_message":42}`, `~".*?"`, true},
	{"edge Studio, boolean message", `{"event_message":false}`, `~".*?"`, true},
	{"edge Studio, null message", `{"event_message":null}`, `~".*?"`, false},
	{"edge Studio, object message", `{"event_message":{"a":"b"}}`, `~".*?"`, false},
	{"edge Studio, empty list", `{"event_message":[]}`, `~".*?"`, false},
	{"edge Studio, list", `{"event_message":[null,"a"]}`, `~".*?"`, true},
	{"edge Studio, list of nulls", `{"event_message":[null,{}]}`, `~".*?"`, false},
	{"edge Studio, negated, null message", `{"event_message":null}`, `-~".*?"`, true},
	{"edge Studio, message last", `{"id":"x","metadata":[{"a":[1,{"b":"c"}]}],"event_message":"m"}`, `~".*?"`, true},
	{"edge ^.*$ stops at a newline", `{"event_message":"a\nb"}`, `~"^.*$"`, false},
	{"edge ^.*$ on one line", `{"event_message":"ab"}`, `~"^.*$"`, true},
	{"edge (?s)^.*$ crosses newlines", `{"event_message":"a\nb"}`, `~"(?s)^.*$"`, true},
	{"edge empty phrase", `{"event_message":"x"}`, `""`, true},
	{"edge empty phrase, null message", `{"event_message":null}`, `""`, false},
	{"edge empty regex on a path", `{"metadata":{"x":5}}`, `m.x:~""`, true},

	// Strings with escapes are compared unescaped.
	{"edge escaped quotes", `{"event_message":"say \"hi\" now"}`, `"say \"hi\""`, true},
	{"edge escaped backslash", `{"event_message":"C:\\temp\\d"}`, `\d`, true},
	{"edge unicode escape", `{"event_message":"caf\u00e9 ok"}`, `café`, true},
	{"edge escaped newline", `{"event_message":"first\nsecond"}`, `~"(?s)first.*second"`, true},
	// Keys are compared as written; no encoder escapes a plain letter.
	{"edge escaped key", `{"event\u005fmessage":"abc"}`, `abc`, false},
	{"edge equality on an escaped value", `{"metadata":{"p":"a\/b"}}`, `m.p:a/b`, true},

	// Numbers and text.
	{"edge number contains by its text", `{"event_message":12345}`, `234`, true},
	{"edge numeric text, numeric bound", `{"metadata":{"n":"10"}}`, `m.n:>9`, true},
	{"edge other text, numeric bound", `{"metadata":{"n":"9a"}}`, `m.n:>9`, false},
	{"edge text, text bound", `{"metadata":{"s":"10"}}`, `m.s:>9a`, false},
	{"edge text, text bound, holds", `{"metadata":{"s":"a"}}`, `m.s:>9a`, true},
	{"edge number, text bound", `{"metadata":{"n":5}}`, `m.n:<=abc`, false},
	{"edge text equality is exact", `{"metadata":{"x":"200.0"}}`, `m.x:200`, false},
	{"edge quoted text never equals a number", `{"metadata":{"x":1}}`, `m.x:"abc"`, false},
	{"edge 1.0 equals 1", `{"metadata":{"x":1}}`, `m.x:1.0`, true},
	{"edge exponent equals", `{"metadata":{"x":100}}`, `m.x:1e2`, true},
	{"edge negative zero", `{"metadata":{"x":0}}`, `m.x:-0`, true},
	{"edge big ids are exact", `{"metadata":{"id":12345678901234567890}}`, `m.id:12345678901234567891`, false},
	{"edge big ids equal", `{"metadata":{"id":12345678901234567890}}`, `m.id:"12345678901234567890"`, true},
	{"edge negative bound", `{"metadata":{"x":-7}}`, `m.x:<-5`, true},
	{"edge range low end", `{"metadata":{"x":1}}`, `m.x:1..5`, true},
	{"edge range high end", `{"metadata":{"x":5}}`, `m.x:1..5`, true},
	{"edge below range", `{"metadata":{"x":0}}`, `m.x:1..5`, false},
	{"edge above range", `{"metadata":{"x":5.5}}`, `m.x:1..5`, false},
	{"edge range on numeric text", `{"metadata":{"x":"3"}}`, `m.x:1..5`, true},
	{"edge range on text", `{"metadata":{"x":"abc"}}`, `m.x:1..5`, false},
	{"edge reversed range holds nothing", `{"metadata":{"x":3}}`, `m.x:5..1`, false},
	{"edge range of floats", `{"metadata":{"x":0.5}}`, `m.x:0.1..100.111`, true},
	{"edge dates as text", `{"metadata":{"d":"2020-01-15T10:00:00Z"}}`, `m.d:>=2020-01-01 m.d:<2020-02-01`, true},
	{"edge dates as text, after", `{"metadata":{"d":"2020-02-01"}}`, `m.d:>=2020-01-01 m.d:<2020-02-01`, false},

	// Paths.
	{"edge top-level field", `{"metadata":"x"}`, `metadata:x`, true},
	{"edge path through a string", `{"metadata":"x"}`, `m.a:x`, false},
	{"edge path through a string, negated", `{"metadata":"x"}`, `-m.a:x`, false},
	{"edge path through null, negated", `{"metadata":null}`, `-m.a:x`, false},
	{"edge object equals nothing", `{"metadata":{"o":{"a":1}}}`, `m.o:x`, false},
	{"edge object, negated", `{"metadata":{"o":{"a":1}}}`, `-m.o:x`, true},
	{"edge negated NULL on an empty list", `{"metadata":{"arr":[]}}`, `-m.arr:NULL`, true},
	// Logflare: no.
	{"edge list of lists", `{"metadata":{"a":[[1,2],[3]]}}`, `m.a:@>3`, true},
	{"edge lists on the way", `{"metadata":[[{"a":"x"}]]}`, `m.a:x`, true},
	{"edge key missing in every element", `{"metadata":[{"a":1},{"b":2}]}`, `-m.c:1`, false},
	{"edge key in some elements", `{"metadata":[{"a":1},{"b":2}]}`, `-m.a:2`, true},
	{"edge empty list on the way", `{"metadata":[]}`, `-m.a:1`, false},
	{"edge Supabase edge log", `{"metadata":[{"request":[{"path":"/rest/v1/todos","method":"GET"}],"response":[{"status_code":200}]}]}`,
		`m.request.path:~"^/rest" m.response.status_code:200 m.request.method:GET`, true},
	{"edge one-letter metadata key", `{"metadata":{"x":1},"m":{"x":2}}`, `m.x:1`, true},
	{"edge first of repeated keys", `{"event_message":"a","event_message":"b"}`, `a`, true},
	{"edge later repeated key ignored", `{"event_message":"a","event_message":"b"}`, `b`, false},
	{"edge nested repeated key", `{"metadata":{"x":1,"x":2}}`, `m.x:2`, false},
	{"edge JSON white space", "{ \"event_message\" : \"x\" ,\n \"metadata\" : { \"a\" : [ 1 , 2 ] } }", `x m.a:@>2`, true},
	{"edge filters on many keys", `{"a":1,"b":"two","c":[3],"event_message":"four"}`, `a:1 b:two c:3 four -five`, true},
	{"edge filters on many keys, one fails", `{"a":1,"b":"two","c":[3],"event_message":"four"}`, `a:1 b:two c:3 four -four`, false},

	// Finding a top-level key by its text: occurrences nested, inside
	// strings, or as values are not it, near the start or the end.
	{"edge key nested before", `{"metadata":{"event_message":"nested"},"event_message":"top"}`, `top`, true},
	{"edge key nested before, not it", `{"metadata":{"event_message":"nested"},"event_message":"top"}`, `nested`, false},
	{"edge key nested after", `{"event_message":"top","metadata":{"event_message":"nested"}}`, `-nested top`, true},
	{"edge key only nested", `{"metadata":{"event_message":"nested"},"x":1}`, `nested`, false},
	{"edge key only nested, near the end", `{"x":1,"metadata":{"event_message":"nested"}}`, `nested`, false},
	{"edge key only nested in a list, near the end", `{"x":1,"metadata":[{"event_message":"n"}]}`, `-n`, false},
	{"edge key text in a string", `{"a":"say \"event_message\": x","event_message":"top"}`, `top`, true},
	{"edge key text in a string only", `{"a":"say \"event_message\": x","b":2}`, `x`, false},
	{"edge key text as a value", `{"a":"event_message","event_message":"top"}`, `top`, true},
	{"edge key text as a value only", `{"b":1,"a":"event_message"}`, `event_message`, false},
	{"edge key after an escaped backslash", `{"a":"C:\\","event_message":"top"}`, `top`, true},
	{"edge key near the end, then more members", `{"x":1,"y":"long long long","event_message":"m", "z" : [1] }`, `m`, true},
	{"edge repeated key near the end", `{"x":1111111111,"event_message":"first","event_message":"second"}`, `first`, true},
	{"edge repeated key near the end, second", `{"x":1111111111,"event_message":"first","event_message":"second"}`, `second`, false},
	{"edge nested, then top near the end", `{"metadata":{"event_message":"n"},"event_message":"top"}`, `-n top`, true},
	{"edge two top-level keys", `{"metadata":{"event_message":"n","id":1},"id":2,"event_message":"top"}`, `id:2 top m.id:1 m.event_message:n`, true},

	// Not an object, or malformed.
	{"edge list event", `[{"event_message":"a"}]`, `a`, false},
	{"edge string event", `"a"`, `a`, false},
	{"edge empty event", ``, `a`, false},
	{"edge truncated event", `{"event_message":"a`, `a`, false},
	{"edge malformed after the message", `{"event_message":"a",`, `a`, true},
	// What no filter reads is stepped over, not checked.
	{"edge malformed before the message", `{"x":tru,"event_message":"a"}`, `a`, true},
	{"edge malformed list", `{"metadata":{"a":[1,}}`, `m.a:1`, true},
	{"edge malformed where read", `{"metadata":{"a":[1 2]}}`, `m.a:2`, false},
	{"edge malformed list, missing", `{"metadata":{"a":[1,}}`, `m.a:2`, false},
}

func init() {
	for i, want := range map[string][6]bool{
		`{"level":"info"}`:      {true, false, false, false, true, false},
		`{"level":"error_500"}`: {false, false, true, false, true, false},
		`{"level":3}`:           {false, false, false, true, true, true},
		`{"level":"drop_me"}`:   {false, false, false, false, false, false},
	} {
		for j, rule := range levelRules {
			matchCases = append(matchCases, matchCase{"R40-R43 " + i + " " + rule, i, rule, want[j]})
		}
	}
	// Deeper than event.MaxDepth: no match, no panic.
	deep := `{"metadata":` + strings.Repeat(`[`, 100) + `1` + strings.Repeat(`]`, 100) + `}`
	matchCases = append(matchCases, matchCase{"edge too deep", deep, `m.x:1`, false}, matchCase{"edge too deep, leaf", deep, `metadata:1`, false})
}

func TestMatch(t *testing.T) {
	for _, c := range matchCases {
		t.Run(c.name, func(t *testing.T) {
			q, err := Parse(c.query)
			require.NoError(t, err, c.query)
			require.Equal(t, c.want, q.Match([]byte(c.event)), "%s on %s", c.query, c.event)
		})
	}
}

func TestMatchWithoutFilters(t *testing.T) {
	var nilQuery *Query
	require.True(t, nilQuery.Match([]byte(`{}`)), "no filters: all of none hold")
	require.True(t, (&Query{}).Match([]byte(`{}`)))
	built := &Query{Filters: []Filter{word("a")}}
	require.False(t, built.Match([]byte(`{"event_message":"a"}`)), "a query not from Parse matches nothing")
}

// Match reads the event in place: the fast path, words and phrases on
// event_message (escaped or not) and metadata paths allocate nothing.
func TestMatchDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	escaped := `{"id":"x","event_message":"` + strings.Repeat(`a \"quoted\" line\n`, 100) + `"}`
	for _, c := range []struct{ query, event string }{
		{`~".*?"`, edgeEvent},
		{`GET -POST "200 |" ~"^GET \| \d+"`, edgeEvent},
		{`quoted "\"quoted\""`, escaped},
		{`m.request.path:~"^/rest" m.response.status_code:200 m.request.method:GET m.response.origin_time:>10`, edgeEvent},
		{`m.request.cf.asn:13335 m.request.headers.x_client_info:@>~supabase m.response.status_code:100..299`, edgeEvent},
		{`m.id:12345678901234567890`, `{"metadata":{"id":12345678901234567890.5}}`},
	} {
		q, err := Parse(c.query)
		require.NoError(t, err)
		ev := []byte(c.event)
		require.True(t, q.Match(ev), c.query)
		allocs := testing.AllocsPerRun(100, func() { q.Match(ev) })
		require.Zero(t, allocs, c.query)
	}
}

func TestMatchConcurrent(t *testing.T) {
	q, err := Parse(`m.request.path:~"^/rest" "200" -~"(?i)error"`)
	require.NoError(t, err)
	ev := []byte(edgeEvent)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				if !q.Match(ev) {
					t.Error("no match")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// Package lql reads the Logflare Query Language (LQL) as drain rules and
// live-tail filters use it, and tests events against it in memory.
//
// logq replaces Logflare, the log service of self-hosted Supabase. A drain
// (a rule that forwards a source's events to a webhook and the like) carries
// an LQL string; Supabase Studio sends ~".*?". Searches compile LQL to SQL
// elsewhere; this package owns the routing side only:
//   - parse.go: Parse, the grammar below, and every parse error (Error,
//     with a line and column).
//   - match.go, number.go, json.go: Query.Match, the routing semantics
//     below, read straight off an event's JSON without allocating. A
//     top-level key is found by searching for its text and checking that
//     the hit is at the top level; what no filter reads is stepped over
//     unchecked, strings eight bytes at a time (a drain's events are valid
//     JSON already); strings a filter reads are unescaped by event.Scanner.
//   - print.go: Query.String, canonical LQL that parses back to an equal
//     query.
//
// # Grammar
//
//	query   = { space } clause { space { space } clause } { space } .  (* 1 to 100 clauses, ANDed *)
//	clause  = [ "-" ] ( "~" ( quoted | word ) | quoted | field | word ) .
//	word    = wordch { wordch } .
//	wordch  = letter | digit | `\"` | "." | "_" | "!" | "%" | "$" | "^" | `\` | "+" | "[" | "]" | "?"
//	        | "(" | ")" | "{" | "}" | "#" | "&" | "*" | "-" | "/" | "<" | "=" | ">" | "@" | ";" | "," | "|" .
//	field   = path ":" [ op ] value .
//	path    = name { "." name } .                      (* name = [A-Za-z0-9_]+ ; m.x means metadata.x *)
//	op      = ">=" | "<=" | ">" | "<" | "~" | "@>~" | "@>" .
//	value   = quoted | "(" { char - ")" } ")" | "NULL" | number ".." number | bare .
//	bare    = char - space { char - space } .         (* no '"'; must not begin with : < > ~ = or @> *)
//	number  = [ "-" ] digit { digit } [ "." digit { digit } ] [ ( "e" | "E" ) [ "+" | "-" ] digit { digit } ] .
//	quoted  = '"' { `\"` | `\\` | char - '"' } '"' .   (* only \" and \\ are escapes; other backslashes stay *)
//
// A clause ends at white space or the end of the input; anything else
// glued to it is an error. A word is a case-sensitive substring of
// event_message, and so is a quoted phrase; ~ gives an unanchored regex
// (Go's RE2, compiled when parsed) on event_message. A field clause tests
// the value at a path with an operator: ":" equals, ":>" ":>=" ":<" ":<="
// compare, ":~" is a regex, ":@>" and ":@>~" test array elements, "lo..hi"
// is an inclusive numeric range and "NULL" (upper case, after ":" or
// ":@>") tests for JSON null. After ":~" and ":@>~" a bare value is a pattern read up to white
// space, so m.x:~(a|b)c works; elsewhere "(text)" is quoted text.
//
// Refused, with the position: timestamp clauses (t:, timestamp:; drains
// and the tail see events as they arrive), chart clauses (c:avg(…),
// c:group_by(…); c:foo stays a filter on a field c, as in Logflare),
// select (s:, select:) and from (f:, from:) clauses with any operator,
// ranges that are not numeric (metadata.level:info..error,
// 2020-01-01..2020-02-01, 1..; text containing ".." that is no such range,
// like ../etc, is plain text),
// unterminated quotes and parentheses, an operator without a value, a
// doubled operator (m.x::v, m.x:>>1), NULL after a comparison, an invalid
// regex (Go's reason is given, and a note that RE2 has no lookaround or
// backreferences), an empty path segment, and more than 100 clauses. Parse
// refuses an empty or all-space string ("empty query"); callers decide what
// no rule means.
//
// # Match semantics
//
// These are routing semantics (Logflare's source router), not search's;
// the live tail uses them too:
//   - Every filter must hold. A path descends object keys from the top of
//     the event (m. and metadata. both name its "metadata" key); where a
//     value on the way, or at the end, is an array, every element is tried
//     and any one may satisfy the filter, at any depth.
//   - A missing path, or one through a scalar, never matches, negated or
//     not: an event without event_message matches no word, phrase or regex,
//     nor their negations. A key present with a null value exists.
//   - Negation inverts the filter's result, after the any-of over array
//     elements: -m.tags:prod fails when any tag is "prod".
//   - Eq: a string equals the value's text (quoted or not); a number equals
//     when the value is a number and they are numerically equal (integers
//     exactly), so m.status:200 and m.status:"200" both match 200 and
//     "200"; true and false equal the values true and false; null matches
//     only path:NULL; an object equals nothing.
//   - Contains (words and phrases): a substring of a string's text, or of
//     a number's or boolean's JSON text. Regex: a match in a string's
//     text, or a number's or boolean's JSON text.
//   - Gt, Ge, Lt, Le and Range compare numerically when both sides are
//     numbers (a JSON number, or a string whose whole text is one);
//     otherwise, when the event's value is a string and the rule's is not a
//     number, byte-wise; otherwise they do not match.
//   - Includes and IncludesRegex test the elements of an array, or a
//     scalar, with Eq and Regex rules. Since every filter already tries each
//     element of an array, m.tags:@>prod and m.tags:prod mean the same;
//     the @> forms are kept because Logflare's users write them.
//   - A regex that matches every string (.*, .*?, ^, (?s)^.*$, the empty
//     pattern) is not run: it holds for any string, number or boolean, so
//     Supabase Studio's ~".*?" costs one lookup of event_message.
//
// A repeated key counts once, with its first value. Keys are compared as
// written, which is exact for the body's SQL-safe keys (an encoder never
// escapes a letter, digit or "_"). An event that is not a JSON object
// matches no query, and neither does malformed text where a filter reads.
//
// # Differences from Logflare, on purpose
//
//   - Separators are any Unicode white space; Logflare's are only space
//     and newline, and it silently drops everything from a tab on.
//   - Words accept letters, marks and digits beyond ASCII (héllo); Logflare
//     keeps "h" and drops the rest. Other characters outside the word set
//     (' ~ ` emoji) are an error asking for quotes, where Logflare drops
//     them or starts a new clause.
//   - A bare field value runs to the next white space, so m.path:/api/v1,
//     m.x:-5, m.v:1.2.3, m.x:foo@bar.com and m.url:http://x are one value
//     each, and so is a regex (m.x:~^foo$, which Logflare only takes
//     quoted) or text in single quotes (m.x:'a', an error in Logflare).
//     Logflare stops at the first character outside [A-Za-z0-9_] and
//     reads the rest as more clauses (m.path:api/v1 is metadata.path = "api"
//     AND event_message contains "/v1"), which is never what was meant.
//     Likewise "a"b is an error here, two clauses there.
//   - m.x always means metadata.x; Logflare expands m. only before two or
//     more characters, so its m.x looks up a top-level key "m".
//   - Values keep their text: m.x:"200" is the text 200, and equality
//     compares numbers with numbers and text with text, so it matches both
//     200 and "200". Logflare turns every value that looks like a number or
//     boolean into one (the word 007 searches for "7") and compares with
//     Erlang's strict term equality (m.one:1 misses 1.0).
//   - Comparisons are numeric or byte-wise as above, and a type mismatch
//     does not match. Logflare uses Erlang's term order, where any string
//     or null is greater than any number (m.ss:>300 matches "200").
//   - Arrays are searched by every operator: m.tags:prod matches
//     ["prod","eu"], as Logflare's older Sequential router does and its
//     RulesTree router does not; :@>~ is a real regex (RulesTree tests a
//     substring).
//   - Regexes are RE2, checked when parsed: lookaround and backreferences
//     are refused (Logflare runs PCRE, and an invalid pattern crashes its
//     router for the whole source). \w, \d and \b are ASCII-only, where
//     Logflare's PCRE with UCP is Unicode-aware.
//   - Timestamp, chart, select and from clauses are refused; Logflare
//     ignores timestamps in routing and breaks on the others.
//     metadata.level:a..b is refused: Logflare expands it into one equality
//     per level, ANDed, which no event can satisfy.
//   - NOT and OR are plain words, as in Logflare: there is no OR, NOT or
//     grouping; alternation is written inside a regex (~"a|b").
//   - path:NULL matches a JSON null, and never a missing path. Logflare's
//     routers compare with an atom that no value equals, so it never
//     matches there; its search means IS NULL, which a missing field also
//     satisfies.
//   - A negated filter on a missing path does not match, as in Logflare's
//     routers; its search, which compiles to SQL, does match there.
//   - A quoted phrase "" matches any string, number or boolean
//     event_message (Logflare turns it into a nil value).
//   - An invalid UTF-8 string, an empty path segment (a..b:1) and a value
//     starting with an operator are errors.
//
// This package imports the standard library and logq/event only.
package lql

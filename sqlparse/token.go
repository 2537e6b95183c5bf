package sqlparse

import "strings"

// tokenKind classifies a token.
type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokIdent
	tokQuotedIdent // `backtick quoted`
	tokKeyword
	tokString
	tokBytes
	tokInt
	tokFloat
	tokParam // @name
	tokOp    // punctuation and operators
)

var tokenKindNames = [...]string{"end of input", "identifier", "quoted identifier", "keyword", "string", "bytes", "integer", "number", "parameter", "operator"}

// token is one lexeme. text is the keyword upper-cased, the identifier as
// written (unquoted), the string value after unescaping, or the operator.
type token struct {
	kind tokenKind
	text string
	pos  int
	raw  string // the source text, for error messages
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokKeyword, tokOp:
		return "\"" + t.raw + "\""
	}
	r := t.raw
	if len(r) > 24 {
		r = r[:24] + "…"
	}
	return tokenKindNames[t.kind] + " " + r
}

// reserved keywords cannot be used as bare identifiers or aliases. This is the
// part of BigQuery's reserved list that the dialect needs to parse unambiguously.
var reserved = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`ALL AND ANY ARRAY AS ASC BETWEEN BY CASE CAST CROSS DESC DISTINCT
		ELSE END EXCEPT EXISTS FALSE FROM FULL GROUP HAVING IF IN INNER INTERVAL IS JOIN LEFT LIKE LIMIT
		NOT NULL NULLS OFFSET ON OR ORDER OUTER RIGHT SELECT STRUCT THEN TRUE UNION UNNEST USING WHEN
		WHERE WITH QUALIFY WINDOW INTERSECT LATERAL TABLESAMPLE`) {
		reserved[k] = true
	}
}

func isReserved(word string) bool { return reserved[strings.ToUpper(word)] }

// word names a token for messages about statements: a word upper-cased as a
// keyword would be written (INSERT), anything else as describe says.
func (t token) word() string {
	if t.kind == tokIdent || t.kind == tokKeyword {
		return strings.ToUpper(t.text)
	}
	return t.describe()
}

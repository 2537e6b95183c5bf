package sqlparse

import (
	"strings"
	"unicode/utf8"
)

// lexer turns source text into tokens on demand. It never panics on any input:
// malformed text yields an error carrying the offending offset.
type lexer struct {
	src string
	pos int
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// next returns the next token, skipping spaces and comments.
func (l *lexer) next() (token, *Error) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case isIdentStart(c):
		// A string or bytes literal may carry an r/b prefix: r'…', b"…", rb'…'.
		if t, ok, err := l.prefixedString(); ok || err != nil {
			return t, err
		}
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		word := l.src[start:l.pos]
		if isReserved(word) {
			return token{kind: tokKeyword, text: strings.ToUpper(word), pos: start, raw: word}, nil
		}
		return token{kind: tokIdent, text: word, pos: start, raw: word}, nil
	case c == '`':
		// A quoted identifier takes a string literal's escapes (\` for a
		// backtick inside it), as BigQuery's do.
		var b strings.Builder
		l.pos++
		for {
			if l.pos >= len(l.src) {
				return token{}, errorAt(start, "unterminated quoted identifier")
			}
			ch := l.src[l.pos]
			if ch == '`' {
				l.pos++
				break
			}
			if ch == '\\' {
				if err := l.escape(&b, false); err != nil {
					return token{}, err
				}
				continue
			}
			b.WriteByte(ch)
			l.pos++
		}
		text := b.String()
		if text == "" {
			return token{}, errorAt(start, "empty quoted identifier")
		}
		return token{kind: tokQuotedIdent, text: text, pos: start, raw: l.src[start:l.pos]}, nil
	case c == '\'' || c == '"':
		return l.quoted(start, false, false)
	case isDigit(c) || (c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1])):
		return l.number(start)
	case c == '@':
		l.pos++
		if l.pos < len(l.src) && l.src[l.pos] == '{' { // a hint, @{ … } (parser.go hint)
			l.pos++
			return token{kind: tokOp, text: "@{", pos: start, raw: "@{"}, nil
		}
		if l.pos < len(l.src) && l.src[l.pos] == '@' {
			return token{}, errorAt(start, "system variables (@@name) are not supported")
		}
		if l.pos < len(l.src) && l.src[l.pos] == '`' {
			end := strings.IndexByte(l.src[l.pos+1:], '`')
			if end <= 0 {
				return token{}, errorAt(start, "bad quoted parameter name")
			}
			name := l.src[l.pos+1 : l.pos+1+end]
			l.pos += end + 2
			return token{kind: tokParam, text: name, pos: start, raw: l.src[start:l.pos]}, nil
		}
		p := l.pos
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		if l.pos == p {
			return token{}, errorAt(start, "expected a parameter name after @")
		}
		return token{kind: tokParam, text: l.src[p:l.pos], pos: start, raw: l.src[start:l.pos]}, nil
	}
	for _, op := range [...]string{"<>", "!=", "<=", ">=", "||", "<<", ">>", "::", "=>"} {
		if strings.HasPrefix(l.src[l.pos:], op) {
			l.pos += 2
			return token{kind: tokOp, text: op, pos: start, raw: op}, nil
		}
	}
	if strings.IndexByte("=<>+-*/(),.[];~&|^%}", c) >= 0 {
		l.pos++
		return token{kind: tokOp, text: string(c), pos: start, raw: string(c)}, nil
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.pos:])
	return token{}, errorAt(start, "unexpected character %q", r)
}

func (l *lexer) skipSpace() *Error {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case c == '#' || (c == '-' && strings.HasPrefix(l.src[l.pos:], "--")):
			end := strings.IndexByte(l.src[l.pos:], '\n')
			if end < 0 {
				l.pos = len(l.src)
			} else {
				l.pos += end + 1
			}
		case c == '/' && strings.HasPrefix(l.src[l.pos:], "/*"):
			end := strings.Index(l.src[l.pos+2:], "*/")
			if end < 0 {
				return errorAt(l.pos, "unterminated comment")
			}
			l.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

// prefixedString lexes r'…', b'…', rb'…' and br'…' literals.
func (l *lexer) prefixedString() (token, bool, *Error) {
	i := l.pos
	raw, bytes := false, false
	for k := 0; k < 2 && i < len(l.src); k++ {
		switch l.src[i] {
		case 'r', 'R':
			if raw {
				return token{}, false, nil
			}
			raw = true
			i++
			continue
		case 'b', 'B':
			if bytes {
				return token{}, false, nil
			}
			bytes = true
			i++
			continue
		}
		break
	}
	if i == l.pos || i >= len(l.src) || (l.src[i] != '\'' && l.src[i] != '"') {
		return token{}, false, nil
	}
	start := l.pos
	l.pos = i
	t, err := l.quoted(start, raw, bytes)
	return t, true, err
}

// quoted lexes a '…', "…", ”'…”' or """…""" literal starting at l.pos.
func (l *lexer) quoted(start int, raw, bytes bool) (token, *Error) {
	q := l.src[l.pos]
	triple := strings.HasPrefix(l.src[l.pos:], strings.Repeat(string(q), 3))
	if triple {
		l.pos += 3
	} else {
		l.pos++
	}
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return token{}, errorAt(start, "unterminated string")
		}
		c := l.src[l.pos]
		if triple {
			if strings.HasPrefix(l.src[l.pos:], strings.Repeat(string(q), 3)) {
				l.pos += 3
				break
			}
		} else if c == q {
			l.pos++
			break
		} else if c == '\n' {
			return token{}, errorAt(start, "unterminated string")
		}
		if c == '\\' {
			if raw {
				if l.pos+1 < len(l.src) {
					b.WriteByte(c)
					b.WriteByte(l.src[l.pos+1])
					l.pos += 2
					continue
				}
				return token{}, errorAt(start, "unterminated string")
			}
			if err := l.escape(&b, bytes); err != nil {
				return token{}, err
			}
			continue
		}
		b.WriteByte(c)
		l.pos++
	}
	kind := tokString
	if bytes {
		kind = tokBytes
	}
	return token{kind: kind, text: b.String(), pos: start, raw: l.src[start:l.pos]}, nil
}

// escape decodes one escape sequence. \xhh and \ooo are one byte in a
// BYTES literal and one code point (U+0000 to U+00FF) in a STRING literal,
// as BigQuery decodes them.
func (l *lexer) escape(b *strings.Builder, bytes bool) *Error {
	at := l.pos
	if l.pos+1 >= len(l.src) {
		return errorAt(at, "unterminated string")
	}
	c := l.src[l.pos+1]
	l.pos += 2
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '\\', '\'', '"', '`', '?':
		b.WriteByte(c)
	case '0', '1', '2', '3':
		if l.pos+2 > len(l.src) {
			return errorAt(at, "bad escape sequence")
		}
		r := rune(c - '0')
		for _, o := range []byte(l.src[l.pos : l.pos+2]) {
			if o < '0' || o > '7' {
				return errorAt(at, "bad escape sequence")
			}
			r = r<<3 | rune(o-'0')
		}
		l.pos += 2
		if bytes {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
	case 'x', 'X', 'u', 'U':
		if bytes && (c == 'u' || c == 'U') {
			return errorAt(at, "\\%c escapes are for STRING literals, not BYTES", c)
		}
		n := map[byte]int{'x': 2, 'X': 2, 'u': 4, 'U': 8}[c]
		if l.pos+n > len(l.src) {
			return errorAt(at, "bad escape sequence")
		}
		var r rune
		for _, h := range []byte(l.src[l.pos : l.pos+n]) {
			var d byte
			switch {
			case h >= '0' && h <= '9':
				d = h - '0'
			case h >= 'a' && h <= 'f':
				d = h - 'a' + 10
			case h >= 'A' && h <= 'F':
				d = h - 'A' + 10
			default:
				return errorAt(at, "bad escape sequence")
			}
			r = r<<4 | rune(d)
		}
		l.pos += n
		if n == 2 && bytes {
			b.WriteByte(byte(r))
		} else {
			if !utf8.ValidRune(r) {
				return errorAt(at, "bad escape sequence")
			}
			b.WriteRune(r)
		}
	default:
		return errorAt(at, "bad escape sequence \\%c", c)
	}
	return nil
}

func (l *lexer) number(start int) (token, *Error) {
	isFloat := false
	if strings.HasPrefix(l.src[l.pos:], "0x") || strings.HasPrefix(l.src[l.pos:], "0X") {
		l.pos += 2
		p := l.pos
		for l.pos < len(l.src) && strings.IndexByte("0123456789abcdefABCDEF", l.src[l.pos]) >= 0 {
			l.pos++
		}
		if p == l.pos {
			return token{}, errorAt(start, "bad hexadecimal literal")
		}
		return token{kind: tokInt, text: l.src[start:l.pos], pos: start, raw: l.src[start:l.pos]}, nil
	}
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		isFloat = true
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		p := l.pos + 1
		if p < len(l.src) && (l.src[p] == '+' || l.src[p] == '-') {
			p++
		}
		if p < len(l.src) && isDigit(l.src[p]) {
			isFloat = true
			l.pos = p
			for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
				l.pos++
			}
		}
	}
	if l.pos < len(l.src) && isIdentStart(l.src[l.pos]) {
		return token{}, errorAt(start, "bad number %q", l.src[start:l.pos+1])
	}
	kind := tokInt
	if isFloat {
		kind = tokFloat
	}
	return token{kind: kind, text: l.src[start:l.pos], pos: start, raw: l.src[start:l.pos]}, nil
}

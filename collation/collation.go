package collation

import (
	"fmt"
	"logq/types"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/search"
)

// Collation is a collation specification as BigQuery writes it: empty or
// 'binary' (Unicode code point order, the default), 'unicode' and
// 'unicode:cs' (the same), 'unicode:ci' (= 'und:ci'), or a language tag
// (`und` for the root, `en_US`, `cs`, `de-u-kn-true`, …) with an optional
// ':ci' (case-insensitive) or ':cs' (the default) attribute. Others are
// ordered and compared by the Unicode Collation Algorithm with that
// language's tailoring (golang.org/x/text/collate, CLDR data): 'und:ci'
// puts 'a' and 'A' together and ignores code points such as U+070F, as
// ICU does.
type Collation struct {
	Spec string
	tag  language.Tag
	ci   bool
	bin  bool
	pool sync.Pool // *collator: a collate.Collator is not safe for concurrent use

	// the search matcher of LIKE and the search functions, made once: it
	// only reads its tables (each search has its own iterator)
	matchOnce sync.Once
	matcher   *search.Matcher
}

type collator struct {
	c   *collate.Collator
	buf collate.Buffer
}

var collations sync.Map // spec → *Collation

// Parse reads a collation specification; the same spec gives the same
// *Collation. It interns the spec in types, with whether it is binary, so
// that a Type may carry it (types.Type.SetCollation) and the binder can
// tell a binary one without this package (types.CollationBinary).
func Parse(spec string) (*Collation, error) {
	if c, ok := collations.Load(spec); ok {
		return c.(*Collation), nil
	}
	c, err := parseCollation(spec)
	if err != nil {
		return nil, err
	}
	if err := types.InternCollation(spec, c.bin); err != nil {
		return nil, err
	}
	got, _ := collations.LoadOrStore(spec, c)
	return got.(*Collation), nil
}

func parseCollation(spec string) (*Collation, error) {
	bad := func(why string) error {
		return fmt.Errorf("COLLATE has invalid collation name '%s': %s", spec, why)
	}
	name, attr, hasAttr := strings.Cut(spec, ":")
	if strings.Contains(attr, ":") {
		return nil, bad("only case sensitivity attribute is supported")
	}
	ci := false
	if hasAttr {
		switch attr {
		case "ci":
			ci = true
		case "cs":
		default:
			return nil, bad("the attribute must be ci or cs")
		}
	}
	switch strings.ToLower(name) {
	case "", "binary":
		if hasAttr {
			return nil, bad("binary cannot be combined with a suffix")
		}
		return &Collation{Spec: spec, bin: true}, nil
	case "unicode":
		if !ci {
			return &Collation{Spec: spec, bin: true}, nil
		}
		name = "und"
	}
	tag, err := language.Parse(strings.ReplaceAll(name, "_", "-"))
	if err != nil {
		return nil, bad("unknown language tag")
	}
	return &Collation{Spec: spec, tag: tag, ci: ci}, nil
}

// Binary reports whether the collation is code point order, the default.
func (c *Collation) Binary() bool { return c.bin }

func (c *Collation) get() *collator {
	if x, ok := c.pool.Get().(*collator); ok {
		return x
	}
	opts := []collate.Option{collate.OptionsFromTag(c.tag)}
	if c.ci {
		opts = append(opts, collate.IgnoreCase)
	}
	return &collator{c: collate.New(c.tag, opts...)}
}

// Key appends s's sort key to dst: keys compare as bytes in the
// collation's order, and strings the collation holds equal have equal keys.
func (c *Collation) Key(dst []byte, s string) []byte {
	if c.bin {
		return append(dst, s...)
	}
	x := c.get()
	k := x.c.KeyFromString(&x.buf, s)
	dst = append(dst, k...)
	x.buf.Reset()
	c.pool.Put(x)
	return dst
}

// Compare orders a and b in the collation: -1, 0 or +1.
func (c *Collation) Compare(a, b string) int {
	if c.bin {
		return strings.Compare(a, b)
	}
	x := c.get()
	r := x.c.CompareString(a, b)
	c.pool.Put(x)
	return r
}

// Like is s LIKE pattern under the collation: the pattern's literal runs
// between % wildcards match where the collation holds them equal (as
// BigQuery's LIKE with collation does: 'defA\u070FbCdef' LIKE '%abc%'
// under 'und:ci'), a pattern without % is equality. A backslash escapes the
// next character. '_' is refused: under a collation it stands for a
// grapheme cluster, which logq does not match yet.
func (c *Collation) Like(s, pattern string) (bool, error) {
	var segs []string
	var cur strings.Builder
	wild := false
	for i := 0; i < len(pattern); i++ {
		switch ch := pattern[i]; ch {
		case '\\':
			if i+1 == len(pattern) {
				return false, fmt.Errorf("LIKE pattern ends with a backslash")
			}
			i++
			cur.WriteByte(pattern[i])
		case '%':
			segs = append(segs, cur.String())
			cur.Reset()
			wild = true
		case '_':
			return false, fmt.Errorf("LIKE with collation '%s' does not support the _ wildcard", c.Spec)
		default:
			cur.WriteByte(ch)
		}
	}
	segs = append(segs, cur.String())
	if !wild {
		return c.Compare(s, segs[0]) == 0, nil // the pattern, unescaped
	}
	m := c.search()
	first, last := segs[0], segs[len(segs)-1]
	if first != "" {
		start, end := m.IndexString(s, first, search.Anchor)
		if start != 0 {
			return false, nil
		}
		s = s[end:]
	}
	if last != "" {
		// the suffix: the rightmost start from which last matches to the end
		found := false
		for i := len(s); i >= 0 && !found; i-- {
			if i < len(s) && !utf8.RuneStart(s[i]) {
				continue
			}
			if start, end := m.IndexString(s[i:], last, search.Anchor); start == 0 && end == len(s)-i {
				s, found = s[:i], true
			}
		}
		if !found {
			return false, nil
		}
	}
	for _, seg := range segs[1 : len(segs)-1] {
		if seg == "" {
			continue
		}
		start, end := m.IndexString(s, seg)
		if start < 0 {
			return false, nil
		}
		s = s[end:]
	}
	return true, nil
}

// search is the collation's search matcher.
func (c *Collation) search() *search.Matcher {
	c.matchOnce.Do(func() {
		var opts []search.Option
		if c.ci {
			opts = append(opts, search.IgnoreCase)
		}
		c.matcher = search.New(c.tag, opts...)
	})
	return c.matcher
}

// MatchAt reports whether sub matches s starting at byte offset i under
// the collation, and where the match ends.
func (c *Collation) MatchAt(s, sub string, i int) (end int, ok bool) {
	m := c.search()
	start, e := m.IndexString(s[i:], sub, search.Anchor)
	if start != 0 {
		return 0, false
	}
	return i + e, true
}

// Index finds the first match of sub in s at or after byte offset from:
// its start and end, or -1, -1.
func (c *Collation) Index(s, sub string, from int) (start, end int) {
	m := c.search()
	st, e := m.IndexString(s[from:], sub)
	if st < 0 {
		return -1, -1
	}
	return from + st, from + e
}

package types

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Collation is a collation specification as BigQuery writes it: ” or
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
}

type collator struct {
	c   *collate.Collator
	buf collate.Buffer
}

var collations sync.Map // spec → *Collation

// ParseCollation reads a collation specification; the same spec gives the
// same *Collation.
func ParseCollation(spec string) (*Collation, error) {
	if c, ok := collations.Load(spec); ok {
		return c.(*Collation), nil
	}
	c, err := parseCollation(spec)
	if err != nil {
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

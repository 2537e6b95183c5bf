package sqlparse

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Parse reads one query (an optional trailing ';' is allowed). The error, if
// any, is an *Error with line and column filled in.
func Parse(src string) (*Query, error) {
	return parseWith(src, func(p *parser) *Query {
		q := p.query()
		if p.isOp(";") {
			p.advance()
		}
		if p.tok.kind != tokEOF {
			p.fail("end of query")
		}
		return q
	})
}

// ParseSelect reads a caller's query for a sandboxed endpoint: exactly one
// statement, and it must be a query (SELECT or WITH … SELECT). It refuses the
// other cases with their own message, not "expected …", because a caller who
// sent INSERT or two statements needs to be told what is allowed.
func ParseSelect(src string) (*Query, error) {
	return parseWith(src, func(p *parser) *Query {
		if p.tok.kind == tokEOF {
			panic(errorAt(p.tok.pos, "the query is empty"))
		}
		if !p.isKw("SELECT") && !p.isKw("WITH") && !p.isOp("(") {
			panic(errorAt(p.tok.pos, "only a SELECT query is allowed, found %s", p.tok.word()))
		}
		q := p.query()
		if p.isOp(";") {
			p.advance()
			if p.tok.kind != tokEOF {
				panic(errorAt(p.tok.pos, "only one statement is allowed, found a second one starting with %s", p.tok.word()))
			}
		}
		if p.tok.kind != tokEOF {
			p.fail("end of query")
		}
		return q
	})
}

// ParseExpr reads a single expression, for tests and tools.
func ParseExpr(src string) (Expr, error) {
	return parseWith(src, func(p *parser) Expr {
		e := p.expr()
		if p.tok.kind != tokEOF {
			p.fail("end of expression")
		}
		return e
	})
}

// parseWith runs a parse. Syntax errors travel by panic inside the parser
// only, so each rule reads straight through; they never escape this function.
func parseWith[T any](src string, rule func(*parser) T) (out T, err error) {
	p := &parser{lx: lexer{src: src}}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			var zero T
			out, err = zero, pe.locate(src)
		}
	}()
	if !utf8.ValidString(src) {
		// BigQuery reads the query as UTF-8 text, and a STRING literal
		// holding a stray byte would reach LIKE and regexes as no string can.
		at := 0
		for at < len(src) {
			r, n := utf8.DecodeRuneInString(src[at:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			at += n
		}
		panic(errorAt(at, "the query is not valid UTF-8 (byte 0x%02x)", src[at]))
	}
	p.advance()
	return rule(p), nil
}

type parser struct {
	lx    lexer
	tok   token
	ahead []token
	depth int
	// collate: an ORDER BY item is being parsed, whose expression may be
	// followed by COLLATE 'spec' (refused after any other expression).
	collate bool
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 200

func (p *parser) advance() {
	if len(p.ahead) > 0 {
		p.tok = p.ahead[0]
		p.ahead = p.ahead[1:]
		return
	}
	t, err := p.lx.next()
	if err != nil {
		panic(err)
	}
	p.tok = t
}

// peek returns the token after the current one.
func (p *parser) peek() token { return p.peekAt(0) }

// peekAt returns the token i+1 places after the current one.
func (p *parser) peekAt(i int) token {
	for len(p.ahead) <= i {
		t, err := p.lx.next()
		if err != nil {
			panic(err)
		}
		p.ahead = append(p.ahead, t)
	}
	return p.ahead[i]
}

// setOpPrefix reports how many tokens from the current one make a set
// operation's mode prefix — INNER, FULL [OUTER], LEFT [OUTER] or OUTER —
// followed by UNION, INTERSECT or EXCEPT; 0 when they do not. A join
// (LEFT JOIN) and a set operation (LEFT UNION ALL) start alike.
func (p *parser) setOpPrefix() int {
	at := func(i int) token {
		if i == 0 {
			return p.tok
		}
		return p.peekAt(i - 1)
	}
	kw := func(t token, w ...string) bool {
		return t.kind == tokKeyword && slices.Contains(w, t.text)
	}
	n := 0
	switch t := at(0); {
	case kw(t, "INNER", "OUTER"):
		n = 1
	case kw(t, "FULL", "LEFT"):
		n = 1
		if kw(at(1), "OUTER") {
			n = 2
		}
	default:
		return 0
	}
	if kw(at(n), "UNION", "INTERSECT", "EXCEPT") {
		return n
	}
	return 0
}

func (p *parser) fail(expected string) {
	panic(errorAt(p.tok.pos, "expected %s, found %s", expected, p.tok.describe()))
}

// refuse stops at a construct of BigQuery's dialect that logq does not
// have, naming it (docs/dialect.md lists them).
func (p *parser) refuse(construct string) {
	panic(errorAt(p.tok.pos, "%s is not supported", construct))
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		panic(errorAt(p.tok.pos, "query nested too deeply"))
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) isOp(op string) bool { return p.tok.kind == tokOp && p.tok.text == op }

func (p *parser) isKw(kw string) bool { return p.tok.kind == tokKeyword && p.tok.text == kw }

// startsQuery says a query begins here: SELECT, or WITH that is not the
// WITH(…) expression.
func (p *parser) startsQuery() bool {
	if p.isKw("WITH") {
		next := p.peek()
		return !(next.kind == tokOp && next.text == "(")
	}
	return p.isKw("SELECT")
}

// isWord matches a non-reserved word such as SAFE_CAST or OFFSET-like idents.
func (p *parser) isWord(w string) bool {
	return p.tok.kind == tokIdent && strings.EqualFold(p.tok.text, w)
}

func (p *parser) expectOp(op string) int {
	if !p.isOp(op) {
		p.fail("\"" + op + "\"")
	}
	pos := p.tok.pos
	p.advance()
	return pos
}

func (p *parser) expectKw(kw string) int {
	if !p.isKw(kw) {
		p.fail(kw)
	}
	pos := p.tok.pos
	p.advance()
	return pos
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.advance()
		return true
	}
	return false
}

// name reads an identifier (bare or quoted).
func (p *parser) name(what string) string {
	if p.tok.kind != tokIdent && p.tok.kind != tokQuotedIdent {
		p.fail(what)
	}
	s := p.tok.text
	p.advance()
	return s
}

func (p *parser) query() *Query {
	p.enter()
	defer p.leave()
	q := &Query{At: p.tok.pos}
	if p.acceptKw("WITH") {
		q.Recursive = p.acceptWord("RECURSIVE")
		for {
			c := &CTE{At: p.tok.pos}
			c.Name = p.name("a CTE name")
			p.expectKw("AS")
			p.expectOp("(")
			c.Query = p.query()
			p.expectOp(")")
			q.With = append(q.With, c)
			if !p.acceptOp(",") {
				break
			}
		}
		p.hint()
	}
	q.Body = p.setExpr()
	if p.isKw("ORDER") {
		q.OrderBy = p.orderBy()
	}
	if p.acceptKw("LIMIT") {
		if !p.acceptKw("ALL") { // LIMIT ALL (ZetaSQL's): no limit, Limit stays nil
			q.Limit = p.expr()
		}
		if p.acceptKw("OFFSET") {
			q.Offset = p.expr()
		}
	}
	return q
}

func (p *parser) acceptWord(w string) bool {
	if p.isWord(w) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) setExpr() SetExpr {
	left := p.setTerm()
	for p.isKw("UNION") || p.isKw("INTERSECT") || p.isKw("EXCEPT") || p.setOpPrefix() > 0 {
		op := &SetOp{At: p.tok.pos, Left: left}
		if p.setOpPrefix() > 0 {
			op.Mode = p.tok.text
			if op.Mode == "OUTER" { // OUTER alone is FULL OUTER
				op.Mode = "FULL"
			}
			p.advance()
			p.acceptKw("OUTER")
		}
		op.Op = p.tok.text
		p.advance()
		switch {
		case p.acceptKw("ALL"):
			op.All = true
		case p.acceptKw("DISTINCT"):
		default:
			p.fail("ALL or DISTINCT")
		}
		p.columnMatch(op)
		op.Right = p.setTerm()
		left = op
	}
	return left
}

// columnMatch reads how a set operation pairs columns by name, after ALL
// or DISTINCT: BY NAME [ON (names)] or [STRICT] CORRESPONDING [BY (names)].
func (p *parser) columnMatch(op *SetOp) {
	list := func(kw string) {
		if p.acceptKw(kw) {
			op.Names = p.nameList()
		}
	}
	switch {
	case p.isKw("BY") && p.peek().kind == tokIdent && strings.EqualFold(p.peek().text, "NAME"):
		p.advance()
		p.advance()
		op.Match = "BY NAME"
		list("ON")
	case p.isWord("STRICT") || p.isWord("CORRESPONDING"):
		op.Match = "CORRESPONDING"
		if p.acceptWord("STRICT") {
			op.Match = "STRICT CORRESPONDING"
			if op.Mode != "" {
				panic(errorAt(op.At, "STRICT CORRESPONDING takes no %s mode", op.Mode))
			}
			if !p.isWord("CORRESPONDING") {
				p.fail("CORRESPONDING")
			}
		}
		p.advance()
		list("BY")
	case op.Mode != "":
		p.fail("BY NAME or CORRESPONDING after " + op.Mode + " " + op.Op)
	}
}

func (p *parser) setTerm() SetExpr {
	if p.isOp("(") {
		p.advance()
		q := p.query()
		p.expectOp(")")
		return q
	}
	if !p.isKw("SELECT") {
		p.fail("SELECT")
	}
	return p.selectBlock()
}

// clauseStart reports whether the current token ends a select list, which is
// how a trailing comma is recognised.
func (p *parser) clauseStart() bool {
	if p.tok.kind == tokEOF || p.isOp(")") || p.isOp(";") || p.setOpPrefix() > 0 {
		return true
	}
	if p.tok.kind == tokKeyword {
		switch p.tok.text {
		case "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTERSECT", "EXCEPT", "QUALIFY", "WINDOW":
			return true
		}
	}
	return false
}

func (p *parser) selectBlock() *Select {
	s := &Select{At: p.expectKw("SELECT")}
	p.hint()
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	if p.isKw("AS") && (strings.EqualFold(p.peek().text, "STRUCT") || strings.EqualFold(p.peek().text, "VALUE")) {
		p.advance()
		s.As = strings.ToUpper(p.tok.text)
		p.advance()
	}
	for {
		s.Items = append(s.Items, p.selectItem())
		if !p.acceptOp(",") || p.clauseStart() {
			break
		}
	}
	if p.acceptKw("FROM") {
		s.From = p.from()
	}
	if p.acceptKw("WHERE") {
		s.Where = p.expr()
	}
	if p.isKw("GROUP") {
		p.advance()
		p.hint()
		p.expectKw("BY")
		s.GroupAll = p.acceptKw("ALL")
		for !s.GroupAll {
			s.GroupBy = append(s.GroupBy, p.groupItem())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("HAVING") {
		s.Having = p.expr()
	}
	if p.acceptKw("QUALIFY") {
		s.Qualify = p.expr()
	}
	if p.acceptKw("WINDOW") {
		for {
			nw := &NamedWindow{At: p.tok.pos, Name: p.name("a window name")}
			p.expectKw("AS")
			nw.Spec = p.over() // WINDOW c AS b names b alone: c AS (b)
			s.Windows = append(s.Windows, nw)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return s
}

// over reads what follows OVER: a window name or a parenthesised spec.
func (p *parser) over() *WindowSpec {
	if !p.isOp("(") {
		at := p.tok.pos
		return &WindowSpec{At: at, Base: p.name("a window name or \"(\"")}
	}
	return p.windowSpec()
}

// windowSpec reads ( [name] [PARTITION BY …] [ORDER BY …] [frame] ).
func (p *parser) windowSpec() *WindowSpec {
	w := &WindowSpec{At: p.expectOp("(")}
	if (p.tok.kind == tokIdent || p.tok.kind == tokQuotedIdent) && !p.isWord("PARTITION") && !p.isWord("ROWS") && !p.isWord("RANGE") {
		w.Base = p.name("a window name")
	}
	if p.acceptWord("PARTITION") {
		p.expectKw("BY")
		for {
			w.PartitionBy = append(w.PartitionBy, p.expr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.isKw("ORDER") {
		w.OrderBy = p.orderBy()
	}
	if p.isWord("ROWS") || p.isWord("RANGE") {
		f := &Frame{At: p.tok.pos, Rows: p.isWord("ROWS")}
		p.advance()
		if p.acceptKw("BETWEEN") {
			f.Start = p.frameBound()
			p.expectKw("AND")
			f.End = p.frameBound()
		} else {
			f.Start = p.frameBound()
			f.End = FrameBound{At: f.Start.At, Kind: CurrentRow}
		}
		w.Frame = f
	}
	p.expectOp(")")
	return w
}

// frameBound reads UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW or
// expr PRECEDING|FOLLOWING.
func (p *parser) frameBound() FrameBound {
	b := FrameBound{At: p.tok.pos}
	switch {
	case p.acceptWord("UNBOUNDED"):
		b.Kind = UnboundedPreceding
		if p.acceptWord("FOLLOWING") {
			b.Kind = UnboundedFollowing
		} else if !p.acceptWord("PRECEDING") {
			p.fail("PRECEDING or FOLLOWING")
		}
	case p.acceptWord("CURRENT"):
		if !p.acceptWord("ROW") {
			p.fail("ROW")
		}
		b.Kind = CurrentRow
	default:
		b.Offset = p.binary(precAdd)
		b.Kind = OffsetPreceding
		if p.acceptWord("FOLLOWING") {
			b.Kind = OffsetFollowing
		} else if !p.acceptWord("PRECEDING") {
			p.fail("PRECEDING or FOLLOWING")
		}
	}
	return b
}

func (p *parser) selectItem() *SelectItem {
	it := &SelectItem{At: p.tok.pos}
	if p.acceptOp("*") {
		it.Star = true
		p.starModifiers(it)
		return it
	}
	it.Expr = p.expr()
	if p.isOp(".") && p.peek().kind == tokOp && p.peek().text == "*" {
		p.advance()
		p.advance()
		if id, ok := it.Expr.(*Ident); ok {
			it.Prefix = id.Parts
		} else {
			it.Of = it.Expr
		}
		it.Star, it.Expr = true, nil
		p.starModifiers(it)
		return it
	}
	it.Alias = p.alias()
	return it
}

func (p *parser) starModifiers(it *SelectItem) {
	if p.acceptKw("EXCEPT") {
		it.Except = p.nameList()
	}
	if p.isWord("REPLACE") && p.peek().kind == tokOp && p.peek().text == "(" {
		p.advance()
		p.advance()
		for {
			r := StarReplace{At: p.tok.pos} // At first: a composite literal's fields have no evaluation order
			r.Expr = p.expr()
			p.expectKw("AS")
			r.Name = p.name("a column name")
			it.Replace = append(it.Replace, r)
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
	}
}

// nameList reads a parenthesised list of column names: (a, b, …).
func (p *parser) nameList() []string {
	p.expectOp("(")
	var names []string
	for {
		if p.isKw("OFFSET") { // UNNEST … WITH OFFSET's column, USING (offset)
			names = append(names, "offset")
			p.advance()
		} else {
			names = append(names, p.name("a column name"))
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return names
}

// alias reads an optional `[AS] name`; PIVOT( and UNPIVOT( are no alias.
func (p *parser) alias() string {
	if p.isUnpivot() || p.isPivot() {
		return ""
	}
	if p.acceptKw("AS") {
		return p.name("an alias")
	}
	if p.tok.kind == tokIdent || p.tok.kind == tokQuotedIdent {
		return p.name("an alias")
	}
	return ""
}

func (p *parser) orderBy() []*OrderItem {
	p.expectKw("ORDER")
	p.hint()
	p.expectKw("BY")
	var items []*OrderItem
	for {
		it := &OrderItem{At: p.tok.pos} // At before the call: a composite literal's fields have no evaluation order
		saved := p.collate
		p.collate = true
		it.Expr = p.expr()
		p.collate = saved
		if p.acceptWord("COLLATE") {
			if p.tok.kind != tokString {
				p.fail("a collation name string after COLLATE")
			}
			spec := p.tok.text
			it.Collate = &spec
			p.advance()
		}
		if p.acceptKw("DESC") {
			it.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		if p.acceptKw("NULLS") {
			first := p.acceptWord("FIRST")
			if !first && !p.acceptWord("LAST") {
				p.fail("FIRST or LAST")
			}
			it.NullsFirst = &first
		}
		items = append(items, it)
		if !p.acceptOp(",") {
			return items
		}
	}
}

func (p *parser) from() FromItem { return p.joins(p.fromItem()) }

// joins reads the joins, if any, that follow the from item left.
func (p *parser) joins(left FromItem) FromItem {
	for {
		if p.setOpPrefix() > 0 { // FROM t LEFT UNION ALL …: the query ends
			return left
		}
		at := p.tok.pos
		kind := JoinInner
		switch {
		case p.acceptOp(","):
			left = &Join{At: at, Kind: JoinComma, Left: left, Right: p.fromItem()}
			continue
		case p.acceptKw("CROSS"):
			p.expectKw("JOIN")
			left = &Join{At: at, Kind: JoinCross, Left: left, Right: p.fromItem()}
			continue
		case p.acceptKw("INNER"):
		case p.acceptKw("LEFT"):
			kind = JoinLeft
			p.acceptKw("OUTER")
		case p.acceptKw("RIGHT"):
			kind = JoinRight
			p.acceptKw("OUTER")
		case p.acceptKw("FULL"):
			kind = JoinFull
			p.acceptKw("OUTER")
		case p.isKw("JOIN"):
		default:
			return left
		}
		p.expectKw("JOIN")
		p.hint()
		j := &Join{At: at, Kind: kind, Left: left, Right: p.fromItem()}
		switch {
		case p.acceptKw("ON"):
			j.On = p.expr()
		case p.acceptKw("USING"):
			j.Using = p.nameList()
		default:
			// BigQuery allows an unconditioned join only against UNNEST
			// or an array path (JOIN t.arr), which the planner tells from
			// a dotted table name (and refuses that).
			switch r := j.Right.(type) {
			case *UnnestRef:
			case *TableRef:
				if !strings.Contains(r.Name, ".") {
					p.fail("ON or USING")
				}
			default:
				p.fail("ON or USING")
			}
		}
		left = j
	}
}

func (p *parser) fromItem() FromItem { return p.fromItemOps(p.fromItemBase()) }

// fromItemOps reads the PIVOT, UNPIVOT and TABLESAMPLE that follow item.
func (p *parser) fromItemOps(item FromItem) FromItem {
	for {
		switch {
		case p.isUnpivot():
			item = p.unpivot(item)
		case p.isPivot():
			item = p.pivot(item)
		case p.isKw("TABLESAMPLE"):
			return p.tablesample(item)
		default:
			return item
		}
	}
}

// tablesample reads TABLESAMPLE … after the from item it samples (after its
// PIVOT or UNPIVOT, if any).
func (p *parser) tablesample(from FromItem) FromItem {
	s := &SampleRef{At: p.tok.pos, From: from}
	p.advance()
	s.Method = p.name("a sampling method (BERNOULLI, SYSTEM or RESERVOIR)")
	p.expectOp("(")
	s.Size = p.expr()
	switch {
	case p.acceptWord("ROWS"):
		s.Rows = true
	case p.acceptWord("PERCENT"):
	default:
		p.fail("PERCENT or ROWS")
	}
	if p.acceptWord("PARTITION") {
		p.expectKw("BY")
		for {
			s.PartitionBy = append(s.PartitionBy, p.expr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	p.expectOp(")")
	if p.acceptWord("REPEATABLE") {
		p.expectOp("(")
		s.Repeatable = p.expr()
		p.expectOp(")")
	}
	if p.isKw("WITH") && p.peek().kind == tokIdent && strings.EqualFold(p.peek().text, "WEIGHT") {
		p.advance()
		p.advance()
		s.Weight = true
		s.WeightAs = p.alias()
	}
	return s
}

func (p *parser) isPivot() bool {
	return p.isWord("PIVOT") && p.peek().kind == tokOp && p.peek().text == "("
}

// pivot reads PIVOT (…) [alias] after the from item it rotates.
func (p *parser) pivot(from FromItem) FromItem {
	pv := &PivotRef{At: p.tok.pos, From: from}
	p.advance()
	p.expectOp("(")
	for {
		at := p.tok.pos
		call, ok := p.expr().(*Call)
		if !ok || call.Over != nil {
			panic(errorAt(at, "PIVOT needs an aggregate function call here"))
		}
		pv.Aggs = append(pv.Aggs, call)
		alias := ""
		if p.acceptKw("AS") || !p.isWord("FOR") && (p.tok.kind == tokIdent || p.tok.kind == tokQuotedIdent) {
			alias = p.name("an alias")
		}
		pv.AggAs = append(pv.AggAs, alias)
		if !p.acceptOp(",") {
			break
		}
	}
	if !p.acceptWord("FOR") {
		p.fail("FOR")
	}
	pv.For = p.binary(precCompare + 1) // IN is PIVOT's, not the expression's
	p.expectKw("IN")
	p.expectOp("(")
	for {
		pv.Values = append(pv.Values, p.expr())
		pv.As = append(pv.As, p.alias())
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	p.expectOp(")")
	pv.Alias = p.alias()
	return pv
}

func (p *parser) isUnpivot() bool {
	if !p.isWord("UNPIVOT") {
		return false
	}
	next := p.peek()
	return next.kind == tokOp && next.text == "(" ||
		next.kind == tokIdent && (strings.EqualFold(next.text, "INCLUDE") || strings.EqualFold(next.text, "EXCLUDE"))
}

// unpivot reads UNPIVOT (…) [alias] after the from item it rotates.
func (p *parser) unpivot(from FromItem) FromItem {
	u := &UnpivotRef{At: p.tok.pos, From: from}
	p.advance()
	if p.isWord("INCLUDE") || p.isWord("EXCLUDE") {
		u.IncludeNulls = p.isWord("INCLUDE")
		p.advance()
		p.expectKw("NULLS")
	}
	p.expectOp("(")
	if p.isOp("(") {
		u.Multi, u.Values = true, p.nameList()
	} else {
		u.Values = []string{p.name("a values column")}
	}
	if !p.acceptWord("FOR") {
		p.fail("FOR")
	}
	u.Name = p.name("a name column")
	p.expectKw("IN")
	p.expectOp("(")
	for {
		set := &UnpivotSet{At: p.tok.pos}
		if p.isOp("(") {
			set.Cols = p.nameList()
		} else {
			set.Cols = []string{p.name("a column to unpivot")}
		}
		p.acceptKw("AS")
		if p.tok.kind == tokString || p.tok.kind == tokInt {
			set.Label = p.primary().(*Literal)
		}
		u.Sets = append(u.Sets, set)
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	p.expectOp(")")
	u.Alias = p.alias()
	return u
}

func (p *parser) fromItemBase() FromItem {
	p.enter()
	defer p.leave()
	at := p.tok.pos
	switch {
	case p.acceptKw("UNNEST"):
		p.expectOp("(")
		u := &UnnestRef{At: at, Expr: p.expr()}
		if p.isKw("AS") || p.isOp(",") {
			p.zipArrays(u)
		}
		p.expectOp(")")
		u.Alias = p.alias()
		if p.acceptKw("WITH") {
			p.expectKw("OFFSET")
			u.WithOffset = true
			u.OffsetAlias = p.alias()
		}
		return u
	case p.isOp("("):
		p.advance()
		if p.isKw("SELECT") || p.isKw("WITH") || p.isOp("(") && (p.peek().kind == tokKeyword && (p.peek().text == "SELECT" || p.peek().text == "WITH") || p.peek().kind == tokOp && p.peek().text == "(") {
			q := p.query()
			if inner, ok := q.Body.(*Query); ok && !p.isOp(")") && q.With == nil && q.OrderBy == nil && q.Limit == nil && q.Offset == nil {
				// `((SELECT …) AS x JOIN …)`: a parenthesized join whose
				// first item is a subquery, not a subquery in parentheses.
				first := p.fromItemOps(&SubqueryRef{At: inner.At, Query: inner, Alias: p.alias()})
				item := p.joins(first)
				p.expectOp(")")
				return item
			}
			p.expectOp(")")
			return &SubqueryRef{At: at, Query: q, Alias: p.alias()}
		}
		inner := p.from()
		p.expectOp(")")
		return inner
	}
	parts := []string{p.name("a table name, UNNEST or a subquery")}
	for p.acceptOp(".") {
		parts = append(parts, p.pathPart())
	}
	p.hint()
	t := &TableRef{At: at, Name: strings.Join(parts, "."), Alias: p.alias()}
	p.hint()
	return t
}

// hint reads a hint, @{ name = expr, … }, if one is here. Hints steer an
// engine's plan, never the answer: one qualified by an engine's name
// (other_engine.num_shards = 4) is for that engine and ignored; an
// unqualified one would be logq's, and logq takes none.
func (p *parser) hint() {
	if !p.isOp("@{") {
		return
	}
	p.advance()
	for {
		at := p.tok.pos
		name := p.name("a hint name")
		qualified := false
		for p.acceptOp(".") {
			name += "." + p.name("a hint name")
			qualified = true
		}
		if !qualified {
			panic(errorAt(at, "unsupported hint: %s", name))
		}
		p.expectOp("=")
		p.expr()
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp("}")
}

// zipArrays reads the rest of a multiway UNNEST after its first array.
func (p *parser) zipArrays(u *UnnestRef) {
	first := ZipArray{Expr: u.Expr}
	if p.acceptKw("AS") {
		first.Alias = p.name("an alias")
	}
	u.Zip, u.Expr = []ZipArray{first}, nil
	for p.acceptOp(",") {
		if p.isWord("mode") && p.peek().kind == tokOp && p.peek().text == "=>" {
			p.advance()
			p.advance()
			u.Mode = p.expr()
			break
		}
		a := ZipArray{Expr: p.expr()}
		if p.acceptKw("AS") {
			a.Alias = p.name("an alias")
		}
		u.Zip = append(u.Zip, a)
	}
}

// pathPart reads the name after a dot, where reserved words are allowed.
func (p *parser) pathPart() string {
	if p.tok.kind == tokKeyword {
		s := p.tok.raw
		p.advance()
		return s
	}
	return p.name("a name after \".\"")
}

// groupItem reads one GROUP BY item: an expression (ROLLUP(…) and CUBE(…)
// read as calls), or GROUPING SETS (set, …) whose sets are (a, b), (),
// ROLLUP(…), CUBE(…) or one expression.
func (p *parser) groupItem() Expr {
	if next := p.peek(); p.isOp("(") && next.kind == tokOp && next.text == ")" {
		// GROUP BY (): the grand total, GROUPING SETS (())
		g := &GroupingSets{At: p.tok.pos, Sets: []GroupingSet{{Paren: true}}}
		p.advance()
		p.advance()
		return g
	}
	if !p.isWord("GROUPING") {
		return p.expr()
	}
	if next := p.peek(); next.kind != tokIdent || !strings.EqualFold(next.text, "SETS") {
		return p.expr()
	}
	g := &GroupingSets{At: p.tok.pos}
	p.advance()
	p.advance()
	p.expectOp("(")
	for {
		if next := p.peek(); p.isOp("(") && next.kind == tokOp && next.text == ")" {
			p.advance()
			p.advance()
			g.Sets = append(g.Sets, GroupingSet{Paren: true}) // ()
		} else if e := p.expr(); isTuple(e) {
			g.Sets = append(g.Sets, GroupingSet{Exprs: e.(*StructLit).Elems, Paren: true}) // (a, b)
		} else {
			g.Sets = append(g.Sets, GroupingSet{Exprs: []Expr{e}}) // a, (a), ROLLUP(…)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return g
}

// isTuple reports whether e was written as a parenthesised list (a, b).
func isTuple(e Expr) bool {
	s, ok := e.(*StructLit)
	return ok && s.Tuple
}

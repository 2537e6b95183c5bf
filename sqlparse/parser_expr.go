package sqlparse

import (
	"strconv"
	"strings"
)

// Binary operator precedence, loosest first, following BigQuery's table.
// Comparison operators (including LIKE, IN, BETWEEN, IS) share one level and
// do not associate.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCompare
	precBitOr
	precBitXor
	precBitAnd
	precShift
	precAdd
	precMul
	precUnary
)

func binaryPrec(t token) int {
	switch t.kind {
	case tokKeyword:
		switch t.text {
		case "OR":
			return precOr
		case "AND":
			return precAnd
		case "LIKE", "IN", "BETWEEN", "IS", "NOT":
			return precCompare
		}
	case tokOp:
		switch t.text {
		case "=", "!=", "<>", "<", "<=", ">", ">=":
			return precCompare
		case "|":
			return precBitOr
		case "^":
			return precBitXor
		case "&":
			return precBitAnd
		case "<<", ">>":
			return precShift
		case "+", "-":
			return precAdd
		case "*", "/", "||":
			return precMul
		}
	}
	return 0
}

func (p *parser) expr() Expr { return p.binary(precOr) }

// binary parses operators of precedence minPrec and tighter.
func (p *parser) binary(minPrec int) Expr {
	p.enter()
	defer p.leave()
	var left Expr
	if p.isKw("NOT") && minPrec <= precNot {
		at := p.tok.pos
		p.advance()
		left = &Unary{At: at, Op: "NOT", X: p.binary(precNot)}
	} else {
		left = p.unary()
	}
	for {
		prec := binaryPrec(p.tok)
		if prec == 0 || prec < minPrec {
			if p.isWord("COLLATE") && !p.collate {
				p.refuse("COLLATE outside ORDER BY") // COLLATE(x, spec) is the function
			}
			return left
		}
		if prec == precCompare {
			left = p.comparison(left)
			// Comparisons do not chain: a = b = c is an error in BigQuery.
			if binaryPrec(p.tok) == precCompare {
				p.fail("AND, OR or the end of the expression (comparisons do not chain)")
			}
			continue
		}
		op := p.tok
		p.advance()
		right := p.binary(prec + 1)
		left = &Binary{At: left.Pos(), Op: opText(op), L: left, R: right}
	}
}

func opText(t token) string {
	if t.text == "<>" {
		return "!="
	}
	return t.text
}

// comparison parses the operator after left at comparison precedence.
func (p *parser) comparison(left Expr) Expr {
	at := left.Pos()
	not := false
	if p.isKw("NOT") {
		p.advance()
		not = true
		if !p.isKw("IN") && !p.isKw("LIKE") && !p.isKw("BETWEEN") {
			p.fail("IN, LIKE or BETWEEN after NOT")
		}
	}
	switch {
	case p.acceptKw("IS"):
		n := &IsNull{At: at, X: left, Not: p.acceptKw("NOT")}
		switch {
		case p.acceptKw("DISTINCT"):
			p.expectKw("FROM")
			n.Value, n.From = "DISTINCT FROM", p.binary(precBitOr)
		case p.acceptKw("NULL"):
			n.Value = "NULL"
		case p.acceptKw("TRUE"):
			n.Value = "TRUE"
		case p.acceptKw("FALSE"):
			n.Value = "FALSE"
		default:
			p.fail("NULL, TRUE, FALSE or DISTINCT FROM")
		}
		return n
	case p.acceptKw("LIKE"):
		l := &Like{At: at, X: left, Not: not}
		switch {
		case p.acceptKw("ANY"), p.acceptWord("SOME"):
			l.Quant = "ANY"
		case p.acceptKw("ALL"):
			l.Quant = "ALL"
		default:
			l.Pattern = p.binary(precBitOr)
			return l
		}
		if p.acceptKw("UNNEST") { // LIKE ANY UNNEST(array)
			p.expectOp("(")
			l.Unnest = p.expr()
			p.expectOp(")")
			return l
		}
		p.expectOp("(")
		if p.startsQuery() { // LIKE ANY (SELECT …): the patterns the subquery gives
			l.Query = p.query()
			p.expectOp(")")
			return l
		}
		l.Patterns = append(l.Patterns, p.expr())
		for p.acceptOp(",") {
			l.Patterns = append(l.Patterns, p.expr())
		}
		p.expectOp(")")
		return l
	case p.acceptKw("BETWEEN"):
		lo := p.binary(precBitOr)
		p.expectKw("AND")
		hi := p.binary(precBitOr)
		return &Between{At: at, X: left, Lo: lo, Hi: hi, Not: not}
	case p.acceptKw("IN"):
		p.hint()
		in := &In{At: at, X: left, Not: not}
		if p.acceptKw("UNNEST") {
			p.expectOp("(")
			in.Unnest = p.expr()
			p.expectOp(")")
			return in
		}
		p.expectOp("(")
		if p.startsQuery() {
			in.Query = p.query()
			p.expectOp(")")
			return in
		}
		for {
			in.List = append(in.List, p.expr())
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		return in
	}
	op := p.tok
	p.advance()
	return &Binary{At: at, Op: opText(op), L: left, R: p.binary(precBitOr)}
}

func (p *parser) unary() Expr {
	if p.tok.kind == tokOp && (p.tok.text == "-" || p.tok.text == "+" || p.tok.text == "~") {
		at, op := p.tok.pos, p.tok.text
		p.advance()
		p.enter()
		defer p.leave()
		x := p.unary()
		// Fold a sign into a numeric literal so that -1 prints and reparses
		// to the same tree.
		if lit, ok := x.(*Literal); ok && op == "-" && (lit.Kind == LitInt || lit.Kind == LitFloat) && !strings.HasPrefix(lit.Value, "-") {
			return &Literal{At: at, Kind: lit.Kind, Value: "-" + lit.Value}
		}
		return &Unary{At: at, Op: op, X: x}
	}
	return p.postfix(p.primary())
}

func (p *parser) postfix(x Expr) Expr {
	for {
		switch {
		case p.isOp("["):
			at := p.tok.pos
			p.advance()
			ix := &Index{At: at, X: x}
			mode := SubPlain
			switch {
			case p.isKw("OFFSET"):
				mode = SubOffset
			case p.isWord("SAFE_OFFSET"):
				mode = SubSafeOffset
			case p.isWord("ORDINAL"):
				mode = SubOrdinal
			case p.isWord("SAFE_ORDINAL"):
				mode = SubSafeOrdinal
			}
			if mode != SubPlain && p.peek().kind == tokOp && p.peek().text == "(" {
				p.advance()
				p.advance()
				ix.Index = p.expr()
				p.expectOp(")")
			} else {
				mode = SubPlain
				ix.Index = p.expr()
			}
			ix.Mode = mode
			p.expectOp("]")
			x = ix
		case p.isOp(".") && !(p.peek().kind == tokOp && p.peek().text == "*"):
			p.advance()
			name := p.pathPart()
			if id, ok := x.(*Ident); ok {
				id.Parts = append(id.Parts, name)
				continue
			}
			x = &FieldAccess{At: x.Pos(), X: x, Name: name}
		case p.isOp("::"):
			// Postgres' cast, which Studio's self-hosted pages send
			// (event_message::text); it binds tighter than any operator.
			p.advance()
			x = &Cast{At: x.Pos(), X: x, TypeName: p.pgTypeName()}
		default:
			return x
		}
	}
}

// datePartFuncs take a bare unit name as their last argument.
var datePartFuncs = map[string]int{ // the argument that is the part
	"timestamp_trunc": 1, "datetime_trunc": 1, "date_trunc": 1, // (…, part[, time_zone])
	"timestamp_diff": 2, "datetime_diff": 2, "date_diff": 2,
	"time_trunc": 1, "time_diff": 2, "last_day": 1,
	"normalize": 1, "normalize_and_casefold": 1, // NORMALIZE(s, NFKC): the mode reads as a part
}

func (p *parser) primary() Expr {
	t := p.tok
	at := t.pos
	switch t.kind {
	case tokInt:
		p.advance()
		return &Literal{At: at, Kind: LitInt, Value: t.text}
	case tokFloat:
		p.advance()
		return &Literal{At: at, Kind: LitFloat, Value: t.text}
	case tokString:
		p.advance()
		return &Literal{At: at, Kind: LitString, Value: t.text}
	case tokBytes:
		p.advance()
		return &Literal{At: at, Kind: LitBytes, Value: t.text}
	case tokParam:
		p.advance()
		return &Param{At: at, Name: t.text}
	case tokKeyword:
		return p.keywordPrimary()
	case tokOp:
		switch t.text {
		case "(":
			return p.parenthesised()
		case "[":
			return p.arrayLit(at)
		}
	case tokIdent, tokQuotedIdent:
		return p.identPrimary()
	}
	if p.isOp(">") && p.tok.pos > 0 && p.lx.src[p.tok.pos-1] == '-' {
		// x -> …: the '-' was read as a minus, and this '>' is no operand
		p.refuse("a lambda (x -> …)")
	}
	p.fail("an expression")
	return nil
}

func (p *parser) keywordPrimary() Expr {
	t := p.tok
	at := t.pos
	switch t.text {
	case "OFFSET": // the column UNNEST … WITH OFFSET names offset by default
		if next := p.peek(); !(next.kind == tokOp && next.text == "(") {
			p.advance()
			return &Ident{At: at, Parts: []string{"offset"}}
		}
	case "NULL":
		p.advance()
		return &Literal{At: at, Kind: LitNull, Value: "NULL"}
	case "TRUE", "FALSE":
		p.advance()
		return &Literal{At: at, Kind: LitBool, Value: t.text}
	case "CASE":
		return p.caseExpr()
	case "CAST":
		p.advance()
		return p.castBody(at, false)
	case "INTERVAL":
		p.advance()
		v := p.binary(precAdd)
		unit := p.name("a unit such as DAY or HOUR")
		lit := &IntervalLit{At: at, Value: v, Unit: strings.ToUpper(unit)}
		if p.acceptWord("TO") {
			lit.To = strings.ToUpper(p.name("a unit such as SECOND"))
		}
		return lit
	case "IF":
		p.advance()
		return p.callArgs(at, "IF")
	case "LEFT", "RIGHT": // the functions; the join kinds never start an expression
		if next := p.peek(); next.kind == tokOp && next.text == "(" {
			p.advance()
			return p.callArgs(at, t.text)
		}
	case "ARRAY":
		p.advance()
		if p.isOp("(") {
			p.advance()
			q := p.query()
			p.expectOp(")")
			return &ExprSubquery{At: at, Kind: "ARRAY", Query: q}
		}
		var typ *TypeExpr
		if p.isOp("<") { // ARRAY<T>[…]
			p.advance()
			typ = &TypeExpr{At: at, Name: "ARRAY", Elem: p.typeExpr()}
			p.closeAngle()
		}
		if !p.isOp("[") {
			p.fail("\"[\" or \"(\" after ARRAY")
		}
		a := p.arrayLit(at)
		a.Type = typ
		return a
	case "STRUCT":
		p.advance()
		var typ *TypeExpr
		if p.isOp("<") || p.isOp("<>") { // STRUCT<…>(…), STRUCT<>()
			typ = p.structType(at)
		}
		p.expectOp("(")
		s := &StructLit{At: at, Type: typ}
		if !p.isOp(")") {
			for {
				s.Elems = append(s.Elems, p.expr())
				alias := ""
				if p.acceptKw("AS") {
					alias = p.name("a field name")
				}
				s.Aliases = append(s.Aliases, alias)
				if !p.acceptOp(",") {
					break
				}
			}
		}
		p.expectOp(")")
		return s
	case "WITH":
		if next := p.peek(); next.kind == tokOp && next.text == "(" {
			return p.withExpr()
		}
	case "EXISTS":
		p.advance()
		p.hint()
		p.expectOp("(")
		q := p.query()
		p.expectOp(")")
		return &ExprSubquery{At: at, Kind: "EXISTS", Query: q}
	}
	p.fail("an expression")
	return nil
}

// withExpr reads WITH(name AS value, …, result): at least one variable,
// each name once.
func (p *parser) withExpr() *WithExpr {
	w := &WithExpr{At: p.tok.pos}
	p.advance()
	p.expectOp("(")
	for {
		// A variable is `name AS`; anything else is the result.
		if t, next := p.tok, p.peek(); (t.kind == tokIdent || t.kind == tokQuotedIdent) && next.kind == tokKeyword && next.text == "AS" {
			for _, n := range w.Names {
				if strings.EqualFold(n, t.text) {
					panic(errorAt(t.pos, "the WITH expression defines %s twice", t.text))
				}
			}
			w.Names = append(w.Names, t.text)
			p.advance()
			p.advance()
			w.Values = append(w.Values, p.expr())
			p.expectOp(",")
			continue
		}
		if len(w.Names) == 0 {
			p.fail("a variable (name AS expression) in the WITH expression")
		}
		w.Result = p.expr()
		p.expectOp(")")
		return w
	}
}

func (p *parser) arrayLit(at int) *ArrayLit {
	p.expectOp("[")
	a := &ArrayLit{At: at}
	if !p.isOp("]") {
		for {
			a.Elems = append(a.Elems, p.expr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	p.expectOp("]")
	return a
}

func (p *parser) parenthesised() Expr {
	at := p.expectOp("(")
	if p.startsQuery() {
		q := p.query()
		p.expectOp(")")
		return &ExprSubquery{At: at, Query: q}
	}
	x := p.expr()
	if p.acceptOp(",") {
		s := &StructLit{At: at, Elems: []Expr{x}, Aliases: []string{""}, Tuple: true}
		for {
			s.Elems = append(s.Elems, p.expr())
			s.Aliases = append(s.Aliases, "")
			if !p.acceptOp(",") {
				break
			}
		}
		p.expectOp(")")
		return s
	}
	p.expectOp(")")
	return x
}

func (p *parser) caseExpr() Expr {
	c := &Case{At: p.expectKw("CASE")}
	if !p.isKw("WHEN") {
		c.Operand = p.expr()
	}
	for p.acceptKw("WHEN") {
		w := When{Cond: p.expr()}
		p.expectKw("THEN")
		w.Then = p.expr()
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		p.fail("WHEN")
	}
	if p.acceptKw("ELSE") {
		c.Else = p.expr()
	}
	p.expectKw("END")
	return c
}

func (p *parser) castBody(at int, safe bool) Expr {
	p.expectOp("(")
	x := p.expr()
	p.expectKw("AS")
	t := p.typeExpr()
	c := &Cast{At: at, Safe: safe, X: x, TypeName: t.String(), Type: t}
	if p.acceptWord("FORMAT") {
		c.Format = p.expr() // stops before AT TIME ZONE
		if p.acceptWord("AT") {
			for _, w := range []string{"TIME", "ZONE"} {
				if !p.acceptWord(w) {
					p.fail(w)
				}
			}
			c.TimeZone = p.expr()
		}
	}
	p.expectOp(")")
	return c
}

// typeExpr reads a type: a name, ARRAY<T> or STRUCT<[name] T, …>.
func (p *parser) typeExpr() *TypeExpr {
	p.enter()
	defer p.leave()
	at := p.tok.pos
	switch {
	case p.acceptKw("ARRAY"):
		p.expectOp("<")
		t := &TypeExpr{At: at, Name: "ARRAY", Elem: p.typeExpr()}
		p.closeAngle()
		return t
	case p.acceptKw("STRUCT"):
		return p.structType(at)
	case p.acceptKw("INTERVAL"): // a keyword, and a type name
		return &TypeExpr{At: at, Name: "INTERVAL"}
	}
	name := strings.ToUpper(p.name("a type name"))
	if name == "RANGE" && p.acceptOp("<") {
		t := &TypeExpr{At: at, Name: name, Elem: p.typeExpr()}
		p.closeAngle()
		return t
	}
	t := &TypeExpr{At: at, Name: name}
	if p.isOp("(") {
		t.Params = p.typeParams(name)
	}
	return t
}

// paramTypes are the types that take parameters: a length, or a precision
// and an optional scale.
var paramTypes = map[string]int{"STRING": 1, "BYTES": 1, "NUMERIC": 2, "DECIMAL": 2, "BIGNUMERIC": 2, "BIGDECIMAL": 2}

// typeParams reads (n[, m]) after a type name: STRING(10), NUMERIC(10, 2).
func (p *parser) typeParams(name string) []int64 {
	most, ok := paramTypes[name]
	if !ok {
		p.refuse("a parameterized type " + name + "(…)")
	}
	p.expectOp("(")
	var out []int64
	for {
		if p.tok.kind != tokInt {
			p.fail("an integer type parameter")
		}
		n, err := strconv.ParseInt(p.tok.text, 10, 64) // 010 is ten, not octal
		if err != nil {
			panic(errorAt(p.tok.pos, "type parameter %s is out of range", p.tok.text))
		}
		out = append(out, n)
		p.advance()
		if len(out) == most || !p.acceptOp(",") {
			break
		}
	}
	p.expectOp(")")
	return out
}

// structType reads <[name] T, …> after STRUCT (<> is lexed as one token).
func (p *parser) structType(at int) *TypeExpr {
	t := &TypeExpr{At: at, Name: "STRUCT"}
	if p.acceptOp("<>") {
		return t
	}
	p.expectOp("<")
	for !p.isOp(">") && !p.isOp(">>") {
		var f TypeField
		// a field name is a name followed by its type, not by , or >
		if p.tok.kind == tokIdent || p.tok.kind == tokQuotedIdent {
			if next := p.peek(); !(next.kind == tokOp && (next.text == "," || next.text == ">" || next.text == ">>")) {
				f.Name = p.name("a field name")
			}
		}
		f.Type = p.typeExpr()
		t.Fields = append(t.Fields, f)
		if !p.acceptOp(",") {
			break
		}
	}
	p.closeAngle()
	return t
}

// closeAngle reads the > closing a type's parameters; of a >> token (two
// closing at once) it takes the first.
func (p *parser) closeAngle() {
	if p.isOp(">>") {
		p.tok.text = ">"
		p.tok.pos++
		return
	}
	p.expectOp(">")
}

// pgTypes maps the Postgres type names accepted after `::` to the dialect's.
var pgTypes = map[string]string{
	"TEXT": "STRING", "VARCHAR": "STRING", "STRING": "STRING",
	"INT": "INT64", "INTEGER": "INT64", "BIGINT": "INT64", "INT8": "INT64", "INT4": "INT64", "SMALLINT": "INT64", "INT64": "INT64",
	"FLOAT": "FLOAT64", "FLOAT8": "FLOAT64", "REAL": "FLOAT64", "FLOAT64": "FLOAT64", "DOUBLE PRECISION": "FLOAT64",
	"BOOL": "BOOL", "BOOLEAN": "BOOL",
	"TIMESTAMP": "TIMESTAMP", "TIMESTAMPTZ": "TIMESTAMP",
	"DATE": "DATE", "DATETIME": "DATETIME",
}

// pgTypeName reads the type after `::` (DOUBLE PRECISION is two words) and
// returns the dialect's name for it.
func (p *parser) pgTypeName() string {
	at := p.tok.pos
	tn := strings.ToUpper(p.name("a type name"))
	if tn == "DOUBLE" && p.isWord("PRECISION") {
		p.advance()
		tn = "DOUBLE PRECISION"
	}
	bq, ok := pgTypes[tn]
	if !ok {
		panic(errorAt(at, "unknown type %s after ::", tn))
	}
	return bq
}

func (p *parser) identPrimary() Expr {
	t := p.tok
	at := t.pos
	if t.kind == tokIdent {
		up := strings.ToUpper(t.text)
		next := p.peek()
		switch {
		case up == "RANGE" && next.kind == tokOp && next.text == "<": // RANGE<DATE> '[…, …)'
			p.advance()
			p.advance()
			elem := strings.ToUpper(p.name("a type name"))
			p.closeAngle()
			if p.tok.kind != tokString {
				p.fail("a string after RANGE<" + elem + ">")
			}
			v := p.tok.text
			p.advance()
			return &Literal{At: at, Kind: LitTyped, TypeName: "RANGE<" + elem + ">", Value: v}
		case (up == "TIMESTAMP" || up == "DATE" || up == "DATETIME" || up == "TIME" || up == "NUMERIC" || up == "BIGNUMERIC" || up == "DECIMAL" || up == "BIGDECIMAL" || up == "JSON") && next.kind == tokString:
			p.advance()
			v := p.tok.text
			p.advance()
			return &Literal{At: at, Kind: LitTyped, TypeName: up, Value: v}
		case isNiladic(up) && !(next.kind == tokOp && (next.text == "(" || next.text == ".")):
			// Written without parentheses they are still the functions, as
			// in BigQuery (a column of that name needs backquotes).
			p.advance()
			return &Call{At: at, Name: t.text}
		case up == "SAFE_CAST" && next.kind == tokOp && next.text == "(":
			p.advance()
			return p.castBody(at, true)
		case up == "EXTRACT" && next.kind == tokOp && next.text == "(":
			p.advance()
			p.advance()
			unit := &DatePartArg{At: p.tok.pos, Unit: strings.ToUpper(p.name("a date part"))}
			if unit.Unit == "WEEK" && p.acceptOp("(") { // EXTRACT(WEEK(MONDAY) FROM …)
				unit.Unit += "(" + strings.ToUpper(p.name("a weekday")) + ")"
				p.expectOp(")")
			}
			p.expectKw("FROM")
			args := []Expr{unit, p.expr()}
			if p.acceptWord("AT") { // EXTRACT(part FROM ts AT TIME ZONE tz)
				for _, w := range []string{"TIME", "ZONE"} {
					if !p.acceptWord(w) {
						p.fail(w)
					}
				}
				args = append(args, p.expr())
			}
			p.expectOp(")")
			return &Call{At: at, Name: "EXTRACT", Args: args}
		}
	}
	parts := []string{t.text}
	p.advance()
	for p.isOp(".") && p.peek().kind != tokOp {
		p.advance()
		parts = append(parts, p.pathPart())
	}
	if p.isOp("(") {
		return p.callArgs(at, strings.Join(parts, "."))
	}
	return &Ident{At: at, Parts: parts}
}

func (p *parser) callArgs(at int, name string) Expr {
	c := p.callArgList(at, name)
	if p.acceptWord("OVER") {
		call, ok := c.(*Call)
		if !ok {
			p.fail("a function call before OVER")
		}
		call.Over = p.over()
	}
	return c
}

func (p *parser) callArgList(at int, name string) Expr {
	p.expectOp("(")
	c := &Call{At: at, Name: name}
	if p.acceptOp(")") {
		return c
	}
	if p.isOp("*") {
		p.advance()
		c.Star = true
		p.callModifiers(c) // COUNT(* HAVING MAX x)
		p.expectOp(")")
		return c
	}
	if p.acceptKw("DISTINCT") {
		c.Distinct = true
	}
	for {
		if (p.tok.kind == tokIdent || p.tok.kind == tokQuotedIdent) && p.peek().kind == tokOp && p.peek().text == "=>" {
			arg := &NamedArg{At: p.tok.pos, Name: p.name("an argument name")}
			p.advance() // =>
			arg.X = p.expr()
			c.Args = append(c.Args, arg)
		} else {
			c.Args = append(c.Args, p.expr())
		}
		if !p.acceptOp(",") {
			break
		}
	}
	p.callModifiers(c)
	p.expectOp(")")
	fn := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	if i, ok := datePartFuncs[fn]; ok && len(c.Args) > i {
		if part := datePart(c.Args[i]); part != nil {
			c.Args[i] = part
		}
	}
	return c
}

// datePart reads a bare unit (HOUR) or WEEK(<weekday>) written as the
// last argument of a date function; nil for any other expression.
func datePart(e Expr) *DatePartArg {
	switch e := e.(type) {
	case *Ident:
		if len(e.Parts) == 1 {
			return &DatePartArg{At: e.At, Unit: strings.ToUpper(e.Parts[0])}
		}
	case *Call:
		if !strings.EqualFold(e.Name, "WEEK") || len(e.Args) != 1 || e.Star || e.Distinct {
			return nil
		}
		if day, ok := e.Args[0].(*Ident); ok && len(day.Parts) == 1 {
			return &DatePartArg{At: e.At, Unit: "WEEK(" + strings.ToUpper(day.Parts[0]) + ")"}
		}
	}
	return nil
}

// callModifiers reads [IGNORE | RESPECT NULLS] [WHERE cond] [HAVING MAX|MIN expr]
// [ORDER BY …] [LIMIT n] after a call's arguments: the binder decides
// which functions take them.
func (p *parser) callModifiers(c *Call) {
	if p.isWord("IGNORE") || p.isWord("RESPECT") || p.isKw("IGNORE") || p.isKw("RESPECT") {
		c.Nulls = strings.ToUpper(p.tok.text)
		p.advance()
		p.expectKw("NULLS")
	}
	if p.acceptKw("WHERE") {
		c.Where = p.expr()
	}
	if p.acceptKw("HAVING") {
		if !p.isWord("MAX") && !p.isWord("MIN") {
			p.fail("MAX or MIN after HAVING")
		}
		c.Having = strings.ToUpper(p.tok.text)
		p.advance()
		c.HavingX = p.expr()
	}
	if p.isKw("ORDER") {
		c.OrderBy = p.orderBy()
	}
	if p.acceptKw("LIMIT") {
		c.Limit = p.expr()
	}
}

package sqlparse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Print renders a query as canonical SQL: keywords upper-case, every operand
// that is itself an operator expression parenthesised, names quoted only when
// they must be. Parsing the output gives back the same tree.
func Print(q *Query) string {
	var w printer
	w.query(q)
	return w.String()
}

// PrintExpr renders one expression the same way.
func PrintExpr(e Expr) string {
	var w printer
	w.expr(e)
	return w.String()
}

type printer struct{ strings.Builder }

func (w *printer) query(q *Query) {
	if len(q.With) > 0 {
		w.WriteString("WITH ")
		if q.Recursive {
			w.WriteString("RECURSIVE ")
		}
		for i, c := range q.With {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(quoteName(c.Name))
			w.WriteString(" AS (")
			w.query(c.Query)
			w.WriteString(")")
		}
		w.WriteString(" ")
	}
	w.setExpr(q.Body)
	if len(q.OrderBy) > 0 {
		w.WriteString(" ORDER BY ")
		w.orderItems(q.OrderBy)
	}
	if q.Limit != nil || q.Offset != nil {
		w.WriteString(" LIMIT ")
		if q.Limit != nil {
			w.expr(q.Limit)
		} else {
			w.WriteString("ALL")
		}
		if q.Offset != nil {
			w.WriteString(" OFFSET ")
			w.expr(q.Offset)
		}
	}
}

func (w *printer) setExpr(s SetExpr) {
	switch s := s.(type) {
	case *Query:
		w.WriteString("(")
		w.query(s)
		w.WriteString(")")
	case *SetOp:
		w.setExpr(s.Left)
		if s.Mode != "" {
			w.WriteString(" " + s.Mode)
		}
		w.WriteString(" " + s.Op)
		if s.All {
			w.WriteString(" ALL ")
		} else {
			w.WriteString(" DISTINCT ")
		}
		if s.Match != "" {
			w.WriteString(s.Match + " ")
			if len(s.Names) > 0 {
				kw := "BY"
				if s.Match == "BY NAME" {
					kw = "ON"
				}
				w.WriteString(kw + " ")
				w.names(s.Names, true)
				w.WriteString(" ")
			}
		}
		w.setExpr(s.Right)
	case *Select:
		w.selectBlock(s)
	}
}

func (w *printer) selectBlock(s *Select) {
	w.WriteString("SELECT ")
	if s.Distinct {
		w.WriteString("DISTINCT ")
	}
	if s.As != "" {
		w.WriteString("AS " + s.As + " ")
	}
	for i, it := range s.Items {
		if i > 0 {
			w.WriteString(", ")
		}
		switch {
		case it.Star:
			if it.Of != nil {
				w.WriteString("(")
				w.expr(it.Of)
				w.WriteString(").")
			}
			for _, p := range it.Prefix {
				w.WriteString(quoteName(p))
				w.WriteString(".")
			}
			w.WriteString("*")
			if len(it.Except) > 0 {
				w.WriteString(" EXCEPT (")
				for j, e := range it.Except {
					if j > 0 {
						w.WriteString(", ")
					}
					w.WriteString(quoteName(e))
				}
				w.WriteString(")")
			}
			if len(it.Replace) > 0 {
				w.WriteString(" REPLACE (")
				for j, r := range it.Replace {
					if j > 0 {
						w.WriteString(", ")
					}
					w.expr(r.Expr)
					w.alias(r.Name)
				}
				w.WriteString(")")
			}
		default:
			w.expr(it.Expr)
			w.alias(it.Alias)
		}
	}
	if s.From != nil {
		w.WriteString(" FROM ")
		w.from(s.From)
	}
	if s.Where != nil {
		w.WriteString(" WHERE ")
		w.expr(s.Where)
	}
	if len(s.GroupBy) > 0 {
		w.WriteString(" GROUP BY ")
		w.exprList(s.GroupBy)
	}
	if s.GroupAll {
		w.WriteString(" GROUP BY ALL")
	}
	if s.Having != nil {
		w.WriteString(" HAVING ")
		w.expr(s.Having)
	}
	if s.Qualify != nil {
		w.WriteString(" QUALIFY ")
		w.expr(s.Qualify)
	}
	for i, nw := range s.Windows {
		if i == 0 {
			w.WriteString(" WINDOW ")
		} else {
			w.WriteString(", ")
		}
		w.WriteString(quoteName(nw.Name) + " AS ")
		w.windowSpec(nw.Spec)
	}
}

// windowSpec prints a parenthesised window specification.
func (w *printer) windowSpec(s *WindowSpec) {
	w.WriteString("(")
	sep := ""
	if s.Base != "" {
		w.WriteString(quoteName(s.Base))
		sep = " "
	}
	if len(s.PartitionBy) > 0 {
		w.WriteString(sep + "PARTITION BY ")
		w.exprList(s.PartitionBy)
		sep = " "
	}
	if len(s.OrderBy) > 0 {
		w.WriteString(sep + "ORDER BY ")
		w.orderItems(s.OrderBy)
		sep = " "
	}
	if f := s.Frame; f != nil {
		w.WriteString(sep)
		if f.Rows {
			w.WriteString("ROWS BETWEEN ")
		} else {
			w.WriteString("RANGE BETWEEN ")
		}
		w.frameBound(f.Start)
		w.WriteString(" AND ")
		w.frameBound(f.End)
	}
	w.WriteString(")")
}

func (w *printer) frameBound(b FrameBound) {
	switch b.Kind {
	case UnboundedPreceding:
		w.WriteString("UNBOUNDED PRECEDING")
	case UnboundedFollowing:
		w.WriteString("UNBOUNDED FOLLOWING")
	case CurrentRow:
		w.WriteString("CURRENT ROW")
	case OffsetPreceding:
		w.expr(b.Offset)
		w.WriteString(" PRECEDING")
	case OffsetFollowing:
		w.expr(b.Offset)
		w.WriteString(" FOLLOWING")
	}
}

func (w *printer) alias(a string) {
	if a != "" {
		w.WriteString(" AS ")
		w.WriteString(quoteName(a))
	}
}

// aliased writes expressions with their aliases, comma-separated.
func (w *printer) aliased(es []Expr, aliases []string) {
	for i, e := range es {
		if i > 0 {
			w.WriteString(", ")
		}
		w.expr(e)
		w.alias(aliases[i])
	}
}

// names writes column names, in parentheses when paren.
func (w *printer) names(names []string, paren bool) {
	if paren {
		w.WriteString("(")
	}
	for i, n := range names {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString(quoteName(n))
	}
	if paren {
		w.WriteString(")")
	}
}

func (w *printer) from(f FromItem) {
	switch f := f.(type) {
	case *TableRef:
		w.WriteString(quoteDotted(f.Name))
		w.alias(f.Alias)
	case *UnnestRef:
		w.WriteString("UNNEST(")
		if f.Expr != nil {
			w.expr(f.Expr)
		}
		for i, a := range f.Zip {
			if i > 0 {
				w.WriteString(", ")
			}
			w.expr(a.Expr)
			w.alias(a.Alias)
		}
		if f.Mode != nil {
			w.WriteString(", mode => ")
			w.expr(f.Mode)
		}
		w.WriteString(")")
		w.alias(f.Alias)
		if f.WithOffset {
			w.WriteString(" WITH OFFSET")
			w.alias(f.OffsetAlias)
		}
	case *SubqueryRef:
		w.WriteString("(")
		w.query(f.Query)
		w.WriteString(")")
		w.alias(f.Alias)
	case *PivotRef:
		w.from(f.From)
		w.WriteString(" PIVOT (")
		aggs := make([]Expr, len(f.Aggs))
		for i, a := range f.Aggs {
			aggs[i] = a
		}
		w.aliased(aggs, f.AggAs)
		w.WriteString(" FOR ")
		w.operand(f.For)
		w.WriteString(" IN (")
		w.aliased(f.Values, f.As)
		w.WriteString("))")
		w.alias(f.Alias)
	case *SampleRef:
		w.from(f.From)
		w.WriteString(" TABLESAMPLE " + quoteName(strings.ToUpper(f.Method)) + " (") // a method name is not case-sensitive
		w.expr(f.Size)
		if f.Rows {
			w.WriteString(" ROWS")
		} else {
			w.WriteString(" PERCENT")
		}
		if len(f.PartitionBy) > 0 {
			w.WriteString(" PARTITION BY ")
			w.exprList(f.PartitionBy)
		}
		w.WriteString(")")
		if f.Repeatable != nil {
			w.WriteString(" REPEATABLE (")
			w.expr(f.Repeatable)
			w.WriteString(")")
		}
		if f.Weight {
			w.WriteString(" WITH WEIGHT")
			w.alias(f.WeightAs)
		}
	case *UnpivotRef:
		w.from(f.From)
		w.WriteString(" UNPIVOT ")
		if f.IncludeNulls {
			w.WriteString("INCLUDE NULLS ")
		}
		w.WriteString("(")
		w.names(f.Values, f.Multi)
		w.WriteString(" FOR " + quoteName(f.Name) + " IN (")
		for i, set := range f.Sets {
			if i > 0 {
				w.WriteString(", ")
			}
			w.names(set.Cols, len(set.Cols) > 1)
			if set.Label != nil {
				w.WriteString(" AS ")
				w.expr(set.Label)
			}
		}
		w.WriteString("))")
		w.alias(f.Alias)
	case *Join:
		w.from(f.Left)
		if f.Kind == JoinComma {
			w.WriteString(", ")
		} else {
			w.WriteString(" " + f.Kind.String() + " ")
		}
		if _, nested := f.Right.(*Join); nested {
			w.WriteString("(")
			w.from(f.Right)
			w.WriteString(")")
		} else {
			w.from(f.Right)
		}
		if f.On != nil {
			w.WriteString(" ON ")
			w.expr(f.On)
		}
		if len(f.Using) > 0 {
			w.WriteString(" USING ")
			w.names(f.Using, true)
		}
	}
}

func (w *printer) exprList(es []Expr) {
	for i, e := range es {
		if i > 0 {
			w.WriteString(", ")
		}
		w.expr(e)
	}
}

// isOperator reports whether e needs parentheses when it is an operand.
func isOperator(e Expr) bool {
	switch e := e.(type) {
	case *Binary, *Unary, *IsNull, *In, *Between, *Like:
		return true
	case *Literal:
		return strings.HasPrefix(e.Value, "-")
	}
	return false
}

// operand prints e, parenthesised when it is itself an operator expression.
func (w *printer) operand(e Expr) {
	if isOperator(e) {
		w.WriteString("(")
		w.expr(e)
		w.WriteString(")")
		return
	}
	w.expr(e)
}

func (w *printer) expr(e Expr) {
	switch e := e.(type) {
	case *Ident:
		for i, p := range e.Parts {
			if i > 0 {
				w.WriteString(".")
			}
			if i == 0 && len(e.Parts) == 1 && isNiladic(p) {
				w.WriteString("`" + p + "`") // bare, it would read as the function
				continue
			}
			w.WriteString(quoteName(p))
		}
	case *Literal:
		switch e.Kind {
		case LitString:
			w.WriteString(quoteString(e.Value))
		case LitBytes:
			w.WriteString("b" + quoteString(e.Value))
		case LitTyped:
			w.WriteString(e.TypeName + " " + quoteString(e.Value))
		default:
			w.WriteString(e.Value)
		}
	case *Param:
		if isBareName(e.Name) {
			w.WriteString("@" + e.Name)
		} else {
			w.WriteString("@`" + e.Name + "`")
		}
	case *Unary:
		if e.Op == "NOT" {
			w.WriteString("NOT ")
		} else {
			w.WriteString(e.Op)
		}
		// A chain of signs or of NOTs needs no parentheses (each would
		// nest the reparse a level deeper), only a space: "- -x" ("--" would
		// start a comment), "NOT NOT x".
		if in, ok := e.X.(*Unary); ok && (in.Op == "NOT") == (e.Op == "NOT") {
			if e.Op != "NOT" {
				w.WriteString(" ")
			}
			w.expr(in)
			return
		}
		if lit, ok := e.X.(*Literal); ok && e.Op != "NOT" && strings.HasPrefix(lit.Value, "-") {
			w.WriteString(" ")
			w.expr(lit)
			return
		}
		w.operand(e.X)
	case *Binary:
		w.operand(e.L)
		w.WriteString(" " + e.Op + " ")
		w.operand(e.R)
	case *Call:
		w.WriteString(quoteDotted(e.Name))
		w.WriteString("(")
		if e.Star {
			w.WriteString("*")
		}
		if e.Distinct {
			w.WriteString("DISTINCT ")
		}
		if strings.EqualFold(e.Name, "EXTRACT") && (len(e.Args) == 2 || len(e.Args) == 3) {
			w.expr(e.Args[0])
			w.WriteString(" FROM ")
			w.expr(e.Args[1])
			if len(e.Args) == 3 {
				w.WriteString(" AT TIME ZONE ")
				w.expr(e.Args[2])
			}
		} else {
			w.exprList(e.Args)
		}
		if e.Nulls != "" {
			w.WriteString(" " + e.Nulls + " NULLS")
		}
		if e.Where != nil {
			w.WriteString(" WHERE ")
			w.expr(e.Where)
		}
		if e.Having != "" {
			w.WriteString(" HAVING " + e.Having + " ")
			w.expr(e.HavingX)
		}
		if len(e.OrderBy) > 0 {
			w.WriteString(" ORDER BY ")
			w.orderItems(e.OrderBy)
		}
		if e.Limit != nil {
			w.WriteString(" LIMIT ")
			w.expr(e.Limit)
		}
		w.WriteString(")")
		if e.Over != nil {
			w.WriteString(" OVER ")
			if e.Over.Base != "" && len(e.Over.PartitionBy) == 0 && len(e.Over.OrderBy) == 0 && e.Over.Frame == nil {
				w.WriteString(quoteName(e.Over.Base))
			} else {
				w.windowSpec(e.Over)
			}
		}
	case *Case:
		w.WriteString("CASE ")
		if e.Operand != nil {
			w.expr(e.Operand)
			w.WriteString(" ")
		}
		for _, wh := range e.Whens {
			w.WriteString("WHEN ")
			w.expr(wh.Cond)
			w.WriteString(" THEN ")
			w.expr(wh.Then)
			w.WriteString(" ")
		}
		if e.Else != nil {
			w.WriteString("ELSE ")
			w.expr(e.Else)
			w.WriteString(" ")
		}
		w.WriteString("END")
	case *Cast:
		if e.Safe {
			w.WriteString("SAFE_CAST(")
		} else {
			w.WriteString("CAST(")
		}
		w.expr(e.X)
		w.WriteString(" AS " + e.TypeName)
		if e.Format != nil {
			w.WriteString(" FORMAT ")
			w.expr(e.Format)
			if e.TimeZone != nil {
				w.WriteString(" AT TIME ZONE ")
				w.expr(e.TimeZone)
			}
		}
		w.WriteString(")")
	case *Index:
		w.operand(e.X)
		w.WriteString("[")
		if e.Mode != SubPlain {
			w.WriteString(e.Mode.String() + "(")
			w.expr(e.Index)
			w.WriteString(")")
		} else {
			w.expr(e.Index)
		}
		w.WriteString("]")
	case *FieldAccess:
		if _, lit := e.X.(*Literal); lit {
			// 0 .x must not print as the number 0.x
			w.WriteString("(")
			w.expr(e.X)
			w.WriteString(")")
		} else {
			w.operand(e.X)
		}
		w.WriteString("." + quoteName(e.Name))
	case *IsNull:
		w.operand(e.X)
		w.WriteString(" IS ")
		if e.Not {
			w.WriteString("NOT ")
		}
		w.WriteString(e.Value)
		if e.From != nil {
			w.WriteString(" ")
			w.operand(e.From)
		}
	case *In:
		w.operand(e.X)
		if e.Not {
			w.WriteString(" NOT")
		}
		if e.Unnest != nil {
			w.WriteString(" IN UNNEST(")
			w.expr(e.Unnest)
			w.WriteString(")")
			return
		}
		w.WriteString(" IN (")
		if e.Query != nil {
			w.query(e.Query)
		} else {
			w.exprList(e.List)
		}
		w.WriteString(")")
	case *Between:
		w.operand(e.X)
		if e.Not {
			w.WriteString(" NOT")
		}
		w.WriteString(" BETWEEN ")
		w.operand(e.Lo)
		w.WriteString(" AND ")
		w.operand(e.Hi)
	case *Like:
		w.operand(e.X)
		if e.Not {
			w.WriteString(" NOT")
		}
		w.WriteString(" LIKE ")
		if e.Quant == "" {
			w.operand(e.Pattern)
			break
		}
		if e.Unnest != nil {
			w.WriteString(e.Quant + " UNNEST(")
			w.expr(e.Unnest)
			w.WriteString(")")
			break
		}
		if e.Query != nil {
			w.WriteString(e.Quant + " (")
			w.query(e.Query)
			w.WriteString(")")
			break
		}
		w.WriteString(e.Quant + " (")
		for i, pt := range e.Patterns {
			if i > 0 {
				w.WriteString(", ")
			}
			w.expr(pt)
		}
		w.WriteString(")")
	case *IntervalLit:
		w.WriteString("INTERVAL ")
		w.operand(e.Value)
		w.WriteString(" " + e.Unit)
		if e.To != "" {
			w.WriteString(" TO " + e.To)
		}
	case *GroupingSets:
		w.WriteString("GROUPING SETS (")
		for i, set := range e.Sets {
			if i > 0 {
				w.WriteString(", ")
			}
			if !set.Paren {
				w.expr(set.Exprs[0])
				continue
			}
			w.WriteString("(")
			w.exprList(set.Exprs)
			w.WriteString(")")
		}
		w.WriteString(")")
	case *ArrayLit:
		if e.Type != nil {
			w.WriteString(e.Type.String())
		}
		w.WriteString("[")
		w.exprList(e.Elems)
		w.WriteString("]")
	case *StructLit:
		switch {
		case e.Type != nil:
			w.WriteString(e.Type.String())
		case !e.Tuple:
			w.WriteString("STRUCT")
		}
		w.WriteString("(")
		for i, el := range e.Elems {
			if i > 0 {
				w.WriteString(", ")
			}
			w.expr(el)
			if e.Aliases[i] != "" {
				w.WriteString(" AS " + quoteName(e.Aliases[i]))
			}
		}
		w.WriteString(")")
	case *DatePartArg:
		w.WriteString(e.Unit)
	case *NamedArg:
		w.WriteString(quoteName(e.Name) + " => ")
		w.expr(e.X)
	case *WithExpr:
		w.WriteString("WITH(")
		for i, n := range e.Names {
			w.WriteString(quoteName(n) + " AS ")
			w.expr(e.Values[i])
			w.WriteString(", ")
		}
		w.expr(e.Result)
		w.WriteString(")")
	case *ExprSubquery:
		if e.Kind != "" {
			w.WriteString(e.Kind)
		}
		w.WriteString("(")
		w.query(e.Query)
		w.WriteString(")")
	}
}

func isBareName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentPart(s[i]) {
			return false
		}
	}
	return true
}

// quoteName quotes one name part when it is not a plain identifier.
// isNiladic reports whether a bare name reads as a function call
// (CURRENT_DATE and its kin, parsed as calls without parentheses).
func isNiladic(s string) bool {
	switch strings.ToUpper(s) {
	case "CURRENT_DATE", "CURRENT_TIMESTAMP", "CURRENT_DATETIME", "CURRENT_TIME":
		return true
	}
	return false
}

func quoteName(s string) string {
	if isBareName(s) && !isReserved(s) {
		return s
	}
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
}

// quoteDotted prints a dotted table or function name: bare when every part is
// a plain identifier, otherwise as one backtick-quoted name.
func quoteDotted(s string) string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if !isBareName(p) || (isReserved(p) && !(i == 0 && len(parts) == 1 && strings.EqualFold(p, "IF"))) {
			return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
		}
	}
	return s
}

func writeHexByte(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	h := strconv.FormatInt(int64(c), 16)
	if len(h) < 2 {
		b.WriteByte('0')
	}
	b.WriteString(h)
}

func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\'':
			b.WriteString(`\'`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			writeHexByte(&b, c)
		case c >= utf8.RuneSelf:
			// A character is written as it is; a byte that starts none (a
			// BYTES literal's \xff) is escaped, so the text stays UTF-8.
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 {
				writeHexByte(&b, c)
				continue
			}
			b.WriteString(s[i : i+size])
			i += size - 1
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func (w *printer) orderItems(items []*OrderItem) {
	for i, o := range items {
		if i > 0 {
			w.WriteString(", ")
		}
		w.expr(o.Expr)
		if o.Collate != nil {
			w.WriteString(" COLLATE " + quoteString(*o.Collate))
		}
		if o.Desc {
			w.WriteString(" DESC")
		}
		if o.NullsFirst != nil {
			if *o.NullsFirst {
				w.WriteString(" NULLS FIRST")
			} else {
				w.WriteString(" NULLS LAST")
			}
		}
	}
}

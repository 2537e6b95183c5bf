package sqlparse

import (
	"strconv"
	"strings"
)

// Node is any AST node. Pos is the byte offset where the node starts.
type Node interface{ Pos() int }

// Expr is a scalar expression node.
type Expr interface {
	Node
	exprNode()
}

// SetExpr is a query body: a *Select, a *SetOp or a parenthesised *Query.
type SetExpr interface {
	Node
	setExprNode()
}

// FromItem is an element of a FROM clause.
type FromItem interface {
	Node
	fromNode()
}

// Query is a full query: WITH, a body, ORDER BY and LIMIT.
type Query struct {
	At        int
	Recursive bool // WITH RECURSIVE
	With      []*CTE
	Body      SetExpr
	OrderBy   []*OrderItem
	Limit     Expr // nil when absent, or LIMIT ALL
	Offset    Expr // nil when absent
}

// CTE is one `name AS (query)` of a WITH clause.
type CTE struct {
	At    int
	Name  string
	Query *Query
}

// Select is one SELECT … FROM … WHERE … GROUP BY … HAVING block.
type Select struct {
	At       int
	Distinct bool
	As       string // "STRUCT" or "VALUE" for SELECT AS STRUCT / AS VALUE
	Items    []*SelectItem
	From     FromItem // nil for a SELECT without FROM
	Where    Expr
	GroupBy  []Expr
	GroupAll bool // GROUP BY ALL: the keys are inferred from the select list
	Having   Expr
	Qualify  Expr           // nil when absent
	Windows  []*NamedWindow // the WINDOW clause
}

// NamedWindow is one `name AS (spec)` of a WINDOW clause.
type NamedWindow struct {
	At   int
	Name string
	Spec *WindowSpec
}

// WindowSpec is the OVER clause of an analytic function call, or a named
// window's definition: [base window] [PARTITION BY …] [ORDER BY …] [frame].
type WindowSpec struct {
	At          int
	Base        string // a named window this one refines ("" when none)
	PartitionBy []Expr
	OrderBy     []*OrderItem
	Frame       *Frame // nil: the default frame
}

// Frame is ROWS or RANGE BETWEEN Start AND End (a lone start means AND
// CURRENT ROW).
type Frame struct {
	At         int
	Rows       bool // ROWS; false for RANGE
	Start, End FrameBound
}

// BoundKind is where a frame bound lies; the order is the order of the
// bounds within a partition.
type BoundKind uint8

// Frame bound kinds.
const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// FrameBound is one end of a frame; Offset is set for the offset kinds.
type FrameBound struct {
	At     int
	Kind   BoundKind
	Offset Expr
}

// SelectItem is one entry of a select list: an expression with an optional
// alias, `*`, or `path.*`.
type SelectItem struct {
	At      int
	Expr    Expr   // nil for a star
	Alias   string // "" when none was written
	Star    bool
	Prefix  []string      // for `path.*`
	Of      Expr          // for `expression.*` of another expression (a[OFFSET(0)].*)
	Except  []string      // SELECT * EXCEPT (a, b)
	Replace []StarReplace // SELECT * REPLACE (x + 1 AS a)
}

// StarReplace is one `expr AS name` of SELECT * REPLACE: the column name
// keeps its place and takes expr's value.
type StarReplace struct {
	At   int
	Expr Expr
	Name string
}

// SetOp combines two query bodies: UNION ALL, UNION DISTINCT and friends.
// Match and Mode say how columns pair up: by position (Match ""), or by
// name: "BY NAME", "CORRESPONDING" or "STRICT CORRESPONDING", with Mode
// "INNER", "FULL" or "LEFT" (as written; "" when none) and Names the ON
// (…) or BY (…) list.
type SetOp struct {
	At          int
	Op          string // "UNION", "INTERSECT", "EXCEPT"
	All         bool
	Mode        string
	Match       string
	Names       []string
	Left, Right SetExpr
}

// OrderItem is one ORDER BY key.
type OrderItem struct {
	At         int
	Expr       Expr
	Collate    *string // COLLATE 'spec' after the expression; nil without
	Desc       bool
	NullsFirst *bool // nil: the default (NULLS FIRST for ASC, LAST for DESC)
}

// TableRef names a stored table (a log source) or a CTE.
type TableRef struct {
	At    int
	Name  string // dotted name as written, backticks removed
	Alias string
}

// UnnestRef is UNNEST(expr) [AS alias] [WITH OFFSET [AS alias]] in FROM.
// A bare path in FROM that the planner finds to be an array (e.g. `t.arr`) is
// parsed as a TableRef and turned into an unnest there.
type UnnestRef struct {
	At          int
	Expr        Expr
	Alias       string
	WithOffset  bool
	OffsetAlias string
	// Zip is ZetaSQL's multiway UNNEST(a [AS x], b [AS y], … [, mode =>
	// m]): every array with its alias (Expr is nil then), zipped by
	// position; Mode is nil when not written (PAD).
	Zip  []ZipArray
	Mode Expr
}

// ZipArray is one array of a multiway UNNEST and its alias ("" if none).
type ZipArray struct {
	Expr  Expr
	Alias string
}

// SubqueryRef is a parenthesised query in FROM.
type SubqueryRef struct {
	At    int
	Query *Query
	Alias string
}

// UnpivotRef is `from_item UNPIVOT [INCLUDE NULLS | EXCLUDE NULLS]
// (values FOR name IN (sets)) [alias]`: Values holds one values column, or
// the names of a values column set (Multi); each set names the columns it
// rotates and an optional label (a STRING or INT64 literal).
type UnpivotRef struct {
	At           int
	From         FromItem
	IncludeNulls bool
	Values       []string
	Multi        bool
	Name         string
	Sets         []*UnpivotSet
	Alias        string
}

// PivotRef is `from_item PIVOT (agg [[AS] alias], … FOR expr IN (value
// [[AS] alias], …)) [alias]`.
type PivotRef struct {
	At     int
	From   FromItem
	Aggs   []*Call
	AggAs  []string // "" when not written
	For    Expr
	Values []Expr
	As     []string // the values' aliases, "" when not written
	Alias  string
}

// SampleRef is `from_item TABLESAMPLE method (size PERCENT|ROWS
// [PARTITION BY expr, …]) [REPEATABLE (seed)] [WITH WEIGHT [[AS] alias]]`;
// Method is as written (the binder checks it), Weight is set by WITH
// WEIGHT and WeightAs is its alias ("" when not written).
type SampleRef struct {
	At          int
	From        FromItem
	Method      string
	Size        Expr
	Rows        bool
	PartitionBy []Expr
	Repeatable  Expr
	Weight      bool
	WeightAs    string
}

// UnpivotSet is one entry of UNPIVOT's IN list: a column, or a
// parenthesised set of columns, with its label (nil when not written).
type UnpivotSet struct {
	At    int
	Cols  []string
	Label *Literal
}

// JoinKind is the kind of a join.
type JoinKind uint8

// Join kinds. JoinComma is the comma join, a CROSS JOIN that binds tighter
// in BigQuery's grammar only by position (it is left-associative with the rest).
const (
	JoinComma JoinKind = iota
	JoinCross
	JoinInner
	JoinLeft
	JoinRight
	JoinFull
)

var joinNames = [...]string{",", "CROSS JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}

func (k JoinKind) String() string { return joinNames[k] }

// Join joins two FROM items.
type Join struct {
	At          int
	Kind        JoinKind
	Left, Right FromItem
	On          Expr     // nil for comma, CROSS and USING joins
	Using       []string // USING (a, b)
}

// Ident is a possibly dotted name: a column, alias, table alias or path of
// struct fields. Quoted parts written with backticks keep their dots inside one part.
type Ident struct {
	At    int
	Parts []string
}

// LiteralKind classifies a literal.
type LiteralKind uint8

// Literal kinds.
const (
	LitNull LiteralKind = iota
	LitBool
	LitInt
	LitFloat
	LitString
	LitBytes
	LitTyped // TIMESTAMP '…', DATE '…', NUMERIC '…', JSON '…', RANGE<DATE> '…', …
)

// Literal is a constant written in the query. For LitTyped, TypeName holds
// the type as written before the string (TIMESTAMP, JSON, RANGE<DATE>, …)
// and Value the string.
type Literal struct {
	At       int
	Kind     LiteralKind
	Value    string // the text for numbers, the unescaped value for strings, TRUE/FALSE
	TypeName string
}

// Param is a named parameter @name.
type Param struct {
	At   int
	Name string
}

// Unary is NOT x, -x, +x or ~x.
type Unary struct {
	At int
	Op string // "NOT", "-", "+", "~"
	X  Expr
}

// Binary is a binary operator: arithmetic, comparison, ||, AND, OR.
type Binary struct {
	At   int
	Op   string
	L, R Expr
}

// Call is a function call. Name keeps the dotted name as written (a
// dataset-qualified UDF is `a-b.c.func`). Star is COUNT(*).
type Call struct {
	At       int
	Name     string
	Args     []Expr
	Distinct bool
	Star     bool
	// Aggregate call modifiers, after the arguments: IGNORE NULLS or
	// RESPECT NULLS ("" when neither), HAVING MAX|MIN, ORDER BY and LIMIT. The planner says
	// which aggregates take them.
	Nulls   string
	Where   Expr   // ZetaSQL's agg(x WHERE cond): only the rows where cond is TRUE
	Having  string // "MAX" or "MIN" for HAVING MAX|MIN expr; "" when absent
	HavingX Expr
	OrderBy []*OrderItem
	Limit   Expr
	// Over makes the call an analytic (window) function: `f(…) OVER (…)` or
	// `OVER name`. Nil for a plain call.
	Over *WindowSpec
}

// NamedArg is `name => expr`, an argument passed by name.
type NamedArg struct {
	At   int
	Name string
	X    Expr
}

// When is one WHEN … THEN … arm of a CASE.
type When struct {
	Cond, Then Expr
}

// Case is CASE [operand] WHEN … THEN … [ELSE …] END.
type Case struct {
	At      int
	Operand Expr // nil for a searched CASE
	Whens   []When
	Else    Expr // nil when absent
}

// Cast is CAST(x AS type) or SAFE_CAST(x AS type).
type Cast struct {
	At       int
	Safe     bool
	X        Expr
	TypeName string    // Type as text: INT64, ARRAY<STRING>, …
	Type     *TypeExpr // nil when parsed from a Postgres-style ::name
	Format   Expr      // CAST(x AS t FORMAT f): the format, or nil
	TimeZone Expr      // … FORMAT f AT TIME ZONE tz: the zone, or nil
}

// TypeExpr is a type as written: a scalar name, ARRAY<T>, or
// STRUCT<[name] T, …>.
type TypeExpr struct {
	At     int
	Name   string // upper case: INT64, STRING, …, ARRAY, STRUCT
	Elem   *TypeExpr
	Fields []TypeField
	// Params are a parameterized type's: STRING(L), BYTES(L), NUMERIC(P[, S]).
	Params []int64
}

// TypeField is a field of a STRUCT type; Name is empty when not given.
type TypeField struct {
	Name string
	Type *TypeExpr
}

// String writes the type in the dialect.
func (t *TypeExpr) String() string {
	switch t.Name {
	case "RANGE":
		if t.Elem != nil {
			return "RANGE<" + t.Elem.String() + ">"
		}
	case "ARRAY":
		return "ARRAY<" + t.Elem.String() + ">"
	case "STRUCT":
		var b strings.Builder
		b.WriteString("STRUCT<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.Name != "" {
				b.WriteString(quoteName(f.Name) + " ")
			}
			b.WriteString(f.Type.String())
		}
		b.WriteString(">")
		return b.String()
	}
	if len(t.Params) > 0 {
		ps := make([]string, len(t.Params))
		for i, n := range t.Params {
			ps[i] = strconv.FormatInt(n, 10)
		}
		return t.Name + "(" + strings.Join(ps, ", ") + ")"
	}
	return t.Name
}

// SubscriptMode says how an array subscript counts.
type SubscriptMode uint8

// Subscript modes: x[i] and x[OFFSET(i)] count from 0, x[ORDINAL(i)] from 1;
// the SAFE_ forms give NULL instead of an error when out of range. A subscript
// on a STRUCT selects a field by position.
const (
	SubPlain SubscriptMode = iota
	SubOffset
	SubSafeOffset
	SubOrdinal
	SubSafeOrdinal
)

var subNames = [...]string{"", "OFFSET", "SAFE_OFFSET", "ORDINAL", "SAFE_ORDINAL"}

func (m SubscriptMode) String() string { return subNames[m] }

// Index is x[i], x[OFFSET(i)] and the other subscript forms.
type Index struct {
	At    int
	X     Expr
	Mode  SubscriptMode
	Index Expr
}

// FieldAccess is (expr).name, for a field of a value that is not a plain path.
type FieldAccess struct {
	At   int
	X    Expr
	Name string
}

// IsNull is x IS [NOT] NULL, also IS [NOT] TRUE/FALSE via Value, and
// x IS [NOT] DISTINCT FROM y (Value "DISTINCT FROM", y in From).
type IsNull struct {
	At    int
	X     Expr
	Not   bool
	Value string // "NULL", "TRUE", "FALSE" or "DISTINCT FROM"
	From  Expr
}

// In is x [NOT] IN (list), x [NOT] IN UNNEST(array) or x [NOT] IN (subquery).
type In struct {
	At     int
	X      Expr
	Not    bool
	List   []Expr
	Unnest Expr   // set for IN UNNEST(array)
	Query  *Query // set for IN (subquery)
}

// GroupingSets is the GROUP BY item GROUPING SETS (set, …). A set written
// in parentheses (Paren) groups by its expressions, () by nothing; one
// written bare is an expression, a ROLLUP(…) or a CUBE(…) call.
type GroupingSets struct {
	At   int
	Sets []GroupingSet
}

// GroupingSet is one set of GROUPING SETS.
type GroupingSet struct {
	Exprs []Expr
	Paren bool
}

// Between is x [NOT] BETWEEN lo AND hi.
type Between struct {
	At        int
	X, Lo, Hi Expr
	Not       bool
}

// Like is x [NOT] LIKE pattern, or the quantified x [NOT] LIKE ANY|SOME|ALL
// (patterns…) or (UNNEST(array)): Quant is "ANY" (for SOME too) or "ALL",
// with Patterns or Unnest instead of Pattern.
type Like struct {
	At         int
	X, Pattern Expr
	Not        bool
	Quant      string
	Patterns   []Expr
	Unnest     Expr
	Query      *Query // LIKE ANY (SELECT …): the patterns a subquery gives
}

// IntervalLit is INTERVAL n unit, or INTERVAL 'text' unit [TO unit].
type IntervalLit struct {
	At    int
	Value Expr
	Unit  string // upper-cased
	To    string // upper-cased; "" without TO
}

// ArrayLit is [a, b] or ARRAY[a, b].
type ArrayLit struct {
	At    int
	Elems []Expr
	Type  *TypeExpr // ARRAY<T>[…]: the array's type; nil when not written
}

// StructLit is STRUCT(a AS x, b) or (a, b).
type StructLit struct {
	At      int
	Elems   []Expr
	Aliases []string
	Tuple   bool      // written (a, b), without STRUCT
	Type    *TypeExpr // STRUCT<…>(…): the struct's type; nil when not written
}

// DatePartArg is a bare unit name passed to a time function, e.g. the HOUR of
// TIMESTAMP_TRUNC(ts, HOUR). The parser produces it for the functions that take
// one; see datePartFuncs.
type DatePartArg struct {
	At   int
	Unit string
}

// WithExpr is a WITH expression, WITH(a AS x, b AS y, result): each
// variable is bound in order (a later one may read an earlier one) and the
// result reads them all.
type WithExpr struct {
	At     int
	Names  []string
	Values []Expr
	Result Expr
}

// ExprSubquery is a scalar subquery (SELECT …) or EXISTS/ARRAY(SELECT …).
type ExprSubquery struct {
	At    int
	Kind  string // "", "EXISTS" or "ARRAY"
	Query *Query
}

func (n *Query) Pos() int        { return n.At }
func (n *CTE) Pos() int          { return n.At }
func (n *Select) Pos() int       { return n.At }
func (n *SelectItem) Pos() int   { return n.At }
func (n *SetOp) Pos() int        { return n.At }
func (n *OrderItem) Pos() int    { return n.At }
func (n *TableRef) Pos() int     { return n.At }
func (n *UnnestRef) Pos() int    { return n.At }
func (n *SubqueryRef) Pos() int  { return n.At }
func (n *UnpivotRef) Pos() int   { return n.At }
func (n *PivotRef) Pos() int     { return n.At }
func (n *SampleRef) Pos() int    { return n.At }
func (n *Join) Pos() int         { return n.At }
func (n *Ident) Pos() int        { return n.At }
func (n *Literal) Pos() int      { return n.At }
func (n *Param) Pos() int        { return n.At }
func (n *Unary) Pos() int        { return n.At }
func (n *Binary) Pos() int       { return n.At }
func (n *Call) Pos() int         { return n.At }
func (n *Case) Pos() int         { return n.At }
func (n *Cast) Pos() int         { return n.At }
func (n *Index) Pos() int        { return n.At }
func (n *FieldAccess) Pos() int  { return n.At }
func (n *IsNull) Pos() int       { return n.At }
func (n *In) Pos() int           { return n.At }
func (n *Between) Pos() int      { return n.At }
func (n *GroupingSets) Pos() int { return n.At }
func (n *Like) Pos() int         { return n.At }
func (n *IntervalLit) Pos() int  { return n.At }
func (n *NamedArg) Pos() int     { return n.At }
func (n *ArrayLit) Pos() int     { return n.At }
func (n *StructLit) Pos() int    { return n.At }
func (n *DatePartArg) Pos() int  { return n.At }
func (n *ExprSubquery) Pos() int { return n.At }
func (n *WithExpr) Pos() int     { return n.At }

func (*Query) setExprNode()  {}
func (*Select) setExprNode() {}
func (*SetOp) setExprNode()  {}

func (*TableRef) fromNode()    {}
func (*UnnestRef) fromNode()   {}
func (*SubqueryRef) fromNode() {}
func (*UnpivotRef) fromNode()  {}
func (*PivotRef) fromNode()    {}
func (*SampleRef) fromNode()   {}
func (*Join) fromNode()        {}

func (*Ident) exprNode()        {}
func (*Literal) exprNode()      {}
func (*Param) exprNode()        {}
func (*Unary) exprNode()        {}
func (*Binary) exprNode()       {}
func (*Call) exprNode()         {}
func (*Case) exprNode()         {}
func (*Cast) exprNode()         {}
func (*Index) exprNode()        {}
func (*FieldAccess) exprNode()  {}
func (*IsNull) exprNode()       {}
func (*In) exprNode()           {}
func (*Between) exprNode()      {}
func (*GroupingSets) exprNode() {}
func (*Like) exprNode()         {}
func (*IntervalLit) exprNode()  {}
func (*NamedArg) exprNode()     {}
func (*ArrayLit) exprNode()     {}
func (*StructLit) exprNode()    {}
func (*DatePartArg) exprNode()  {}
func (*ExprSubquery) exprNode() {}
func (*WithExpr) exprNode()     {}

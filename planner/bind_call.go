package planner

import (
	"errors"
	"logq/expr"
	"logq/sqlparse"
	"logq/types"
	"strconv"
	"strings"
)

// Calls: scalar functions (finish types and folds them), aggregates.

// call builds, types and folds a call of a scalar function.
func (b *binder) call(pos int, fn string, args []expr.Expr) expr.Expr {
	return b.finish(pos, &expr.Call{Fn: fn, Args: args})
}

// finish types a call (unless its type is already set) and folds it.
func (b *binder) finish(pos int, c *expr.Call) expr.Expr {
	def := expr.Registered(c.Fn)
	if def == nil {
		b.fail(pos, "unknown function %s", strings.ToUpper(c.Fn))
	}
	c.Def = def
	b.bound(c.Fn)
	if len(c.Args) < def.MinArgs || (def.MaxArgs >= 0 && len(c.Args) > def.MaxArgs) {
		b.fail(pos, "%s takes %s, got %d", strings.ToUpper(c.Fn), argCount(def), len(c.Args))
	}
	if b.symbolic {
		for _, a := range c.Args {
			if _, ok := a.(*paramRef); ok && def.Check != nil {
				// Unknown parameters are STRINGs that may become anything a
				// constant string coerces to; type the call optimistically.
				if _, err := def.Check(&expr.Call{Fn: c.Fn, Args: constStrings(c.Args), Unit: c.Unit, T: c.T}); err == nil {
					if c.T.Kind == types.KindNull {
						c.T, _ = def.Check(&expr.Call{Fn: c.Fn, Args: constStrings(c.Args), Unit: c.Unit})
					}
					return c
				}
			}
		}
	}
	if def.Check != nil {
		t, err := def.Check(c)
		if err != nil {
			// A constant argument the call would fail on when run (an
			// invalid regular expression) is refused now, or under SAFE.
			// is the NULL the run would give.
			if c.Safe && errors.Is(err, expr.ErrEval) && t.Kind != types.KindNull {
				return &expr.Const{V: types.NullOf(t)}
			}
			b.failErr(pos, err)
		}
		c.T = t
	}
	c, err := expr.Collated(c) // expr/collation.go
	if err != nil {
		b.failErr(pos, err)
	}
	out, err := expr.Fold(c)
	if err != nil {
		// Leave it unfolded: a branch that constants later cut away (the
		// right side of `TRUE OR …`) must not fail the query. checkConstants
		// raises the error if the call survives into the plan.
		return c
	}
	return out
}

func constStrings(args []expr.Expr) []expr.Expr {
	out := make([]expr.Expr, len(args))
	for i, a := range args {
		if p, ok := a.(*paramRef); ok {
			out[i] = &expr.Const{V: types.StringValue(""), Param: p.name}
		} else {
			out[i] = a
		}
	}
	return out
}

func argCount(d *expr.Func) string {
	switch {
	case d.MaxArgs < 0:
		return "at least " + strconv.Itoa(d.MinArgs) + " arguments"
	case d.MinArgs == d.MaxArgs:
		return strconv.Itoa(d.MinArgs) + " arguments"
	}
	return strconv.Itoa(d.MinArgs) + " to " + strconv.Itoa(d.MaxArgs) + " arguments"
}

func (b *binder) funcCall(e *sqlparse.Call, ctx *exprCtx) expr.Expr {
	name, safe := funcName(e.Name), false
	if strings.Contains(e.Name, ".") {
		lower := strings.ToLower(e.Name)
		// Only SAFE. and the NET., HLL_COUNT., KLL_QUANTILES., KEYS. and AEAD. families are
		// prefixes; anything else named with a dot is not a function logq has.
		if rest, ok := strings.CutPrefix(lower, "safe."); ok {
			safe, lower = true, rest
		}
		switch {
		case !strings.Contains(lower, "."):
			name = lower
		case dottedFamily(lower) && (expr.LookupFunc(lower) != nil || expr.IsAggregate(lower)):
			name = lower
		case name == "generate_timestamp_trunc_array":
			// the saved queries call it as a dataset-qualified UDF
		default:
			b.fail(e.At, "unknown function %s", e.Name)
		}
	}
	if e.Over != nil {
		return b.windowCall(e, name, safe, ctx) // bind_window.go
	}
	if expr.IsAnalytic(name) {
		b.fail(e.At, "analytic function %s needs an OVER clause", strings.ToUpper(name))
	}
	if name == "grouping" && !safe {
		return b.groupingCall(e, ctx) // bind_grouping.go
	}
	if expr.IsAggregate(name) {
		if safe {
			b.fail(e.At, "the SAFE. prefix is not supported on aggregate function %s", strings.ToUpper(name))
		}
		return b.aggregate(e, name, ctx)
	}
	if e.Star || e.Distinct {
		b.fail(e.At, "%s does not take * or DISTINCT", strings.ToUpper(name))
	}
	b.noAggModifiers(e, name) // bind_aggmods.go
	if name == "flatten" {
		// FLATTEN(path) (ZetaSQL's): the array an array path stands for.
		if len(e.Args) != 1 {
			b.fail(e.At, "FLATTEN takes 1 argument, got %d", len(e.Args))
		}
		x := b.flattened(e.Args[0], ctx) // bind_flatten.go
		if k := x.Type().Kind; k != types.KindArray && k != types.KindNull {
			b.fail(e.At, "FLATTEN needs an array, not %s", x.Type())
		}
		return x
	}
	e = b.namedArgs(e, name)
	var unit types.DatePart
	var args []expr.Expr
	for _, a := range e.Args {
		if dp, ok := a.(*sqlparse.DatePartArg); ok {
			if name == "normalize" || name == "normalize_and_casefold" { // the mode, a name
				args = append(args, &expr.Const{V: types.StringValue(dp.Unit)})
				continue
			}
			if ext := "extract_" + strings.ToLower(dp.Unit); name == "extract" && expr.LookupFunc(ext) != nil {
				name = ext // EXTRACT(DAYOFWEEK FROM …) and the other non-unit parts
				continue
			}
			p, ok := types.ParseDatePart(dp.Unit)
			if !ok {
				b.fail(dp.At, "unknown date part %s", dp.Unit)
			}
			unit = p
			continue
		}
		if x, u, ok := b.bindCalendar(name, a, ctx); ok { // bind_calendar.go
			args, unit = append(args, x), u
			continue
		}
		args = append(args, b.expr(a, ctx))
	}
	name = widerTimeFunc(name, args)
	if name == "datetime_trunc" && len(args) == 1 && (args[0].Type().Kind == types.KindDate ||
		args[0].Type().Kind == types.KindString && expr.IsLiteral(args[0]) && args[0].(*expr.Const).Param == "") {
		// A DATE is a DATETIME here (its midnight), as a DATE coerces to one.
		// A string literal is read as the function's own type (the alias
		// would read it as TIMESTAMP_TRUNC's): DATETIME_TRUNC('2015-06-15
		// 00:00:00', ISOYEAR) is a DATETIME. With a time zone the call is
		// the TIMESTAMP form, and a parameter keeps TIMESTAMP_TRUNC's
		// reading (a saved endpoint's @p may hold a timestamp).
		x, err := expr.CoerceTo(args[0], types.Datetime)
		if err != nil {
			b.fail(e.At, "argument 1 of DATETIME_TRUNC: %v", err)
		}
		args[0] = x
	}
	switch name {
	case "current_timestamp":
		if len(args) > 0 {
			b.fail(e.At, "CURRENT_TIMESTAMP takes no arguments")
		}
		return b.now()
	case "current_date", "current_datetime", "current_time":
		// DATE(now [, tz]), DATETIME(now [, tz]) and TIME(now [, tz]): the query's time, in
		// the zone given (UTC by default)
		if len(args) > 1 {
			b.fail(e.At, "%s takes at most a time zone", strings.ToUpper(name))
		}
		fn := strings.TrimPrefix(name, "current_")
		return b.finish(e.At, &expr.Call{Fn: fn, Args: append([]expr.Expr{b.now()}, args...)})
	case "typeof":
		// TYPEOF(x) (ZetaSQL's) names x's type and never evaluates x.
		if len(args) != 1 {
			b.fail(e.At, "TYPEOF takes 1 argument, got %d", len(args))
		}
		return &expr.Const{V: types.StringValue(args[0].Type().ZetaSQLName())}
	case "generate_timestamp_trunc_array":
		if len(args) != 2 {
			b.fail(e.At, "generate_timestamp_trunc_array takes 2 arguments (count, spec), got %d", len(args))
		}
		args = append(args, b.now())
	}
	f := expr.LookupFunc(name)
	if f == nil || (f.Internal && !(strings.EqualFold(e.Name, "extract") && name != "extract")) {
		b.fail(e.At, "unknown function %s", e.Name)
	}
	if f.Name != name {
		b.bound(name) // an alias, as the query spells it
	}
	if bytesRegexp(f.Name, args) { // bind_bytes.go
		return b.regexpOfBytes(e.At, &expr.Call{Fn: f.Name, Args: args, Unit: unit, Safe: safe})
	}
	return b.finish(e.At, &expr.Call{Fn: f.Name, Args: args, Unit: unit, Safe: safe})
}

func (b *binder) aggregate(e *sqlparse.Call, name string, ctx *exprCtx) expr.Expr {
	if ctx.aggs == nil {
		b.fail(e.At, "aggregate function %s is not allowed here", strings.ToUpper(name))
	}
	return ctx.aggs.add(b.aggCall(e, name, &exprCtx{sc: ctx.sc, noLets: ctx.lets}), e.At)
}

// aggCall binds an aggregate call's arguments in inner and types it. Only
// an analytic aggregate's inner context collects aggregates: SUM(COUNT(*))
// OVER () in a grouped SELECT.
func (b *binder) aggCall(e *sqlparse.Call, name string, inner *exprCtx) expr.AggCall {
	e = b.namedArgs(e, name)
	def := expr.LookupAgg(name)
	b.bound(name)
	up := strings.ToUpper(name)
	switch {
	case e.Star && !def.Star:
		b.fail(e.At, "only COUNT takes *")
	case !e.Star && (len(e.Args) < def.MinArgs || len(e.Args) > def.MaxArgs):
		b.fail(e.At, "%s takes %s, got %d", up, def.Arity(), len(e.Args))
	case e.Distinct && !def.Distinct:
		b.fail(e.At, "DISTINCT is not supported in %s (%s take it)", up, strings.Join(aggsWith(func(a *expr.Agg) bool { return a.Distinct }), ", "))
	}
	call := expr.AggCall{Fn: name, Star: e.Star, Distinct: e.Distinct}
	for _, a := range e.Args {
		if inner.aggs == nil && hasAggregate(a) {
			b.fail(a.Pos(), "aggregate functions cannot be nested")
		}
		call.Args = append(call.Args, b.expr(a, inner))
	}
	if e.Distinct && len(call.Args) > 0 {
		if t := call.Args[0].Type(); name == "count" && t.Kind == types.KindString && t.Collation() != "" {
			call.Args[0] = b.keyOf(e.At, call.Args[0], t.Collation()) // distinct under the collation
		}
		b.orderable(e.At, up+"(DISTINCT …)", call.Args[0].Type())
	}
	if !e.Star {
		t, err := def.Check(&call, b.symbolic)
		if err != nil {
			b.fail(e.At, "%s", err)
		}
		call.T = t
	} else {
		call.T = types.Int64
	}
	b.aggModifiers(e, def, &call, inner) // bind_aggmods.go
	b.aggCollation(e.At, &call)          // bind_collation.go
	b.whereModifier(e, &call, inner)     // bind_aggmods.go
	return call
}

// aggsWith names the aggregates def says yes to, upper case, sorted.
func aggsWith(yes func(*expr.Agg) bool) []string {
	var out []string
	for _, n := range expr.AggregateNames() {
		if yes(expr.LookupAgg(n)) {
			out = append(out, strings.ToUpper(n))
		}
	}
	return out
}

// namedParam is a parameter a function takes by name (`name => expr`),
// and the literal SQL text of its value when it is left out ("": the
// argument is dropped, which only a trailing one may be).
type namedParam struct{ name, def string }

// namedParams lists, in order, the parameters of the functions that take
// arguments by name.
var namedParams = map[string][]namedParam{
	"bit_and":          {{"value", ""}, {"mode", ""}},
	"bit_or":           {{"value", ""}, {"mode", ""}},
	"bit_xor":          {{"value", ""}, {"mode", ""}},
	"make_interval":    {{"year", "0"}, {"month", "0"}, {"day", "0"}, {"hour", "0"}, {"minute", "0"}, {"second", "0"}},
	"parse_json":       {{"json_string", ""}, {"wide_number_mode", ""}},
	"float64":          {{"json", ""}, {"wide_number_mode", ""}},
	"float64_array":    {{"json", ""}, {"wide_number_mode", ""}},
	"to_json":          {{"value", ""}, {"stringify_wide_numbers", ""}},
	"json_strip_nulls": {{"json", ""}, {"json_path", "'$'"}, {"include_arrays", "TRUE"}, {"remove_empty", "FALSE"}},
	"contains_substr":  {{"expression", ""}, {"search_value", ""}, {"json_scope", ""}},
	"json_keys":        {{"json", ""}, {"max_depth", "4611686018427387904"}, {"mode", ""}},
	"edit_distance":    {{"value1", ""}, {"value2", ""}, {"max_distance", ""}},
	// KLL_QUANTILES.INIT_*(input[, precision][, weight => w]).
	"kll_quantiles.init_int64":   {{"input", ""}, {"precision", "1000"}, {"weight", ""}},
	"kll_quantiles.init_float64": {{"input", ""}, {"precision", "1000"}, {"weight", ""}},
}

// trailingNamed are the variadic functions that take one option by name
// after their repeated arguments (JSON_SET(j, path, value, …,
// create_if_missing => FALSE)); the option becomes their last argument.
var trailingNamed = map[string]string{
	"json_set":          "create_if_missing",
	"json_array_append": "append_each_element",
	"json_array_insert": "insert_each_element",
}

// defaultArg is the literal a left-out named argument stands for.
func defaultArg(at int, text string) sqlparse.Expr {
	switch {
	case text == "TRUE" || text == "FALSE":
		return &sqlparse.Literal{At: at, Kind: sqlparse.LitBool, Value: text}
	case strings.HasPrefix(text, "'"):
		return &sqlparse.Literal{At: at, Kind: sqlparse.LitString, Value: strings.Trim(text, "'")}
	}
	return &sqlparse.Literal{At: at, Kind: sqlparse.LitInt, Value: text}
}

// trailingArg places the one named option of a trailingNamed function.
func (b *binder) trailingArg(e *sqlparse.Call, name, option string) *sqlparse.Call {
	out := *e
	out.Args = nil
	for i, a := range e.Args {
		n, ok := a.(*sqlparse.NamedArg)
		switch {
		case !ok:
			out.Args = append(out.Args, a)
		case !strings.EqualFold(n.Name, option):
			b.fail(n.At, "%s has no argument named %s", strings.ToUpper(name), n.Name)
		case i != len(e.Args)-1:
			b.fail(e.Args[i+1].Pos(), "a positional argument of %s cannot follow a named one", strings.ToUpper(name))
		default:
			if len(out.Args)%2 == 0 {
				b.fail(n.At, "%s takes a JSON value and path and value pairs before %s", strings.ToUpper(name), option)
			}
			out.Args = append(out.Args, n.X)
		}
	}
	return &out
}

// namedArgs puts a call's named arguments in their places (after the
// positional ones); a function that takes none refuses them.
func (b *binder) namedArgs(e *sqlparse.Call, name string) *sqlparse.Call {
	named := false
	for _, a := range e.Args {
		if _, ok := a.(*sqlparse.NamedArg); ok {
			named = true
		}
	}
	if !named {
		return e
	}
	name = expr.Canonical(name)
	if option, ok := trailingNamed[name]; ok {
		return b.trailingArg(e, name, option)
	}
	params, ok := namedParams[name]
	if !ok {
		b.fail(e.At, "%s does not take arguments by name", strings.ToUpper(name))
	}
	args := make([]sqlparse.Expr, len(params))
	last := -1
	for i, a := range e.Args {
		n, ok := a.(*sqlparse.NamedArg)
		if !ok {
			if last >= 0 || i >= len(params) {
				b.fail(a.Pos(), "a positional argument of %s cannot follow a named one", strings.ToUpper(name))
			}
			args[i] = a
			continue
		}
		at := -1
		for j, p := range params {
			if strings.EqualFold(p.name, n.Name) {
				at = j
			}
		}
		switch {
		case at < 0:
			b.fail(n.At, "%s has no argument named %s", strings.ToUpper(name), n.Name)
		case args[at] != nil:
			b.fail(n.At, "argument %s of %s is given twice", n.Name, strings.ToUpper(name))
		}
		args[at], last = n.X, at
	}
	for len(args) > 0 && args[len(args)-1] == nil && params[len(args)-1].def == "" {
		args = args[:len(args)-1]
	}
	for i := range args {
		if args[i] == nil {
			if params[i].def == "" {
				b.fail(e.At, "%s needs its argument %s", strings.ToUpper(name), params[i].name)
			}
			args[i] = defaultArg(e.At, params[i].def)
		}
	}
	out := *e
	out.Args = args
	return &out
}

// widerTimes are ZetaSQL's extended date and time signatures: a DATE_
// function given a DATETIME (or TIMESTAMP) is the DATETIME_ (TIMESTAMP_)
// one, a DATETIME_ function given a TIMESTAMP the TIMESTAMP_ one; the same
// for FORMAT_DATE and FORMAT_DATETIME, whose value is their second argument.
// (DATETIME_TRUNC is TIMESTAMP_TRUNC already, an alias.) at is the value's
// argument.
var widerTimes = map[string]struct {
	datetime, timestamp string
	at                  int
}{
	"date_trunc":      {"datetime_trunc", "timestamp_trunc", 0},
	"date_add":        {"datetime_add", "timestamp_add", 0},
	"date_sub":        {"datetime_sub", "timestamp_sub", 0},
	"date_diff":       {"datetime_diff", "timestamp_diff", 0},
	"datetime_add":    {"", "timestamp_add", 0},
	"datetime_sub":    {"", "timestamp_sub", 0},
	"datetime_diff":   {"", "timestamp_diff", 0},
	"format_date":     {"format_datetime", "format_timestamp", 1},
	"format_datetime": {"", "format_timestamp", 1},
}

// widerTimeFunc is the function name takes for args (widerTimes).
func widerTimeFunc(name string, args []expr.Expr) string {
	w, ok := widerTimes[name]
	if !ok || len(args) <= w.at {
		return name
	}
	switch args[w.at].Type().Kind {
	case types.KindDatetime:
		if w.datetime != "" {
			return w.datetime
		}
	case types.KindTimestamp:
		return w.timestamp
	case types.KindDate:
		// DATE_DIFF(DATE, DATETIME): the DATE coerces to DATETIME, so the
		// call is the DATETIME one.
		if name == "date_diff" && len(args) > 1 && args[1].Type().Kind == types.KindDatetime {
			return w.datetime
		}
	}
	return name
}

// dottedFamily reports whether a dotted name is of a family of built-ins
// whose names have a dot.
func dottedFamily(lower string) bool {
	for _, p := range []string{"net.", "hll_count.", "kll_quantiles.", "keys.", "aead."} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

package expr

import (
	"errors"
	"fmt"

	"logq/types"
)

// Func is the one definition of a scalar function or operator: its name,
// argument count, how its arguments are typed (and coerced) and its result
// type (Check), how it evaluates one row of boxed values (Eval, which is
// also its constant folding and the executor's row-at-a-time kernel), its
// NULL behaviour (NullSafe) and any algebraic simplification beyond
// evaluating constants (Simplify). It is registered once, under its name,
// by register; the binder, the folder (fold.go) and the executor all look
// it up there. The executor may attach a vectorised kernel to a registered
// name (exec/kernels.go); registering a kernel for a name that is not here
// panics at start-up, so a misspelt name cannot silently fall back.
type Func struct {
	Name             string
	MinArgs, MaxArgs int // MaxArgs < 0: variadic
	// Check types the call, coercing arguments in place, and returns its
	// type. nil: the binder sets the call's type itself.
	Check func(c *Call) (types.Type, error)
	// Eval evaluates one row. Errors are evaluation errors (ErrEval); under
	// the SAFE. prefix they become NULL.
	Eval func(c *Call, args []types.Value) (types.Value, error)
	// NullSafe functions see NULL arguments; the others return NULL when any
	// argument is NULL, without calling Eval.
	NullSafe bool
	// Simplify, if set, rewrites a call whose value is not (yet) a constant,
	// e.g. TRUE AND x to x; it returns the call itself when nothing applies.
	Simplify func(c *Call) Expr
	// Internal: written as an operator or other syntax, never by name in
	// SQL (the binder refuses a call by name).
	Internal bool
	// NoFold: never evaluated at load, even over constants (ERROR raises
	// only when a row reaches it).
	NoFold bool
	// Volatile: each evaluation may give another value (RAND): never
	// folded, and never copied into a second place that would evaluate it
	// apart from the first (a filter pushed below the projection making it).
	Volatile bool
}

var funcs = map[string]*Func{}

// internal names are written as operators or syntax (CAST, IS NULL, a[OFFSET
// (i)], STRUCT(…), a.b), never called by name.
var internal = map[string]bool{
	"=": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "+": true, "-": true,
	"*": true, "/": true, "neg": true, "||": true, "and": true, "or": true, "not": true,
	"is_null": true, "is_true": true, "is_false": true, "like": true, "cast": true,
	"offset": true, "safe_offset": true, "ordinal": true, "safe_ordinal": true,
	"field": true, "make_array": true, "make_struct": true,
	"extract_dayofweek": true, "extract_dayofyear": true, "extract_isoweek": true, "extract_isoyear": true,
	"extract_date": true, "extract_time": true, "extract_datetime": true, "interval_part": true, "is_distinct_from": true, "in_unnest": true,
	"json_subscript": true, "cast_format": true, "like_any": true, "like_all": true,
	"bitnot": true, "collation_key": true, "collation_keys": true, "like_collated": true, "strpos_collated": true, "instr_collated": true, "starts_with_collated": true, "ends_with_collated": true, "replace_collated": true, "split_collated": true, "&": true, "|": true, "^": true, "<<": true, ">>": true,
	"unnest_zip": true, "path_field": true, "path_json_field": true, "path_flatten": true, "path_offset": true, "path_safe_offset": true,
	"path_ordinal": true, "path_safe_ordinal": true, "bytes_to_latin1": true, "fit_type": true, "latin1_to_bytes": true,
}

// aliases maps a second name to a registered function (IFNULL → COALESCE).
var aliases = map[string]string{}

// register adds f under name; a name is registered once.
func Register(name string, f *Func) *Func {
	if _, dup := funcs[name]; dup {
		panic("planner: function " + name + " registered twice")
	}
	if f.Eval == nil {
		panic("planner: function " + name + " has no Eval")
	}
	f.Name = name
	f.Internal = internal[name]
	funcs[name] = f
	return f
}

// overload gives the registered function name a second form, on top of
// its own: claim types a call of that form (ok) and leaves any other to
// the function's Check; a (typed) call ours accepts evaluates with eval,
// any other with the function's Eval. NUMERIC arithmetic
// (sqlfunc/funcs_decimal.go) and date and interval arithmetic (sqlfunc/funcs_interval.go)
// are such forms of the number operators, STRING of a time of STRING(json)
// (sqlfunc/funcs_string_time.go).
func Overload(name string, claim func(c *Call) (t types.Type, ok bool, err error), ours func(c *Call) bool, eval func(c *Call, a []types.Value) (types.Value, error)) {
	f := funcs[name]
	check, own := f.Check, f.Eval
	f.Check = func(c *Call) (types.Type, error) {
		if t, ok, err := claim(c); ok {
			return t, err
		}
		return check(c)
	}
	f.Eval = func(c *Call, a []types.Value) (types.Value, error) {
		if ours(c) {
			return eval(c, a)
		}
		return own(c, a)
	}
}

// alias makes name another spelling of the registered function target.
func Alias(name, target string) {
	if funcs[target] == nil || funcs[name] != nil {
		panic("planner: bad alias " + name + " → " + target)
	}
	aliases[name] = target
}

// Linked reports whether a function library has registered its functions:
// the executor links logq/sqlfunc, and the planner binds nothing without it.
func Linked() bool { return len(funcs) > 0 }

// Registered returns the function registered under exactly name (lower
// case; no alias), or nil.
func Registered(name string) *Func { return funcs[name] }

// Canonical returns the registered name that name spells: the target of
// an alias, else name itself.
func Canonical(name string) string {
	if t, ok := aliases[name]; ok {
		return t
	}
	return name
}

// LookupFunc returns the registered function called name (lower case).
func LookupFunc(name string) *Func {
	if t, ok := aliases[name]; ok {
		name = t
	}
	return funcs[name]
}

// Funcs lists every registered scalar function and operator by name, and
// Aliases every alternative spelling, for tests and documentation.
func Funcs() map[string]*Func { return funcs }

// Aliases maps each alternative spelling to its function's name.
func Aliases() map[string]string { return aliases }

// ParamError is a parameter's value that a function cannot use: a
// constant it supplied failed to fold, or a check of a constant argument
// refused it. The planner reports it as its Error naming the parameter.
type ParamError struct {
	Param string
	Msg   string
	Err   error // the underlying error
}

func (e *ParamError) Error() string { return fmt.Sprintf("parameter %s: %s", e.Param, e.Msg) }
func (e *ParamError) Unwrap() error { return e.Err }

// ErrEval matches (errors.Is) every error raised while evaluating a function.
var ErrEval = errors.New("evaluation error")

// evalError is an evaluation failure; its text is the message alone.
type evalError struct{ msg string }

func (e *evalError) Error() string        { return e.msg }
func (e *evalError) Is(target error) bool { return target == ErrEval }

func EvalErr(format string, args ...any) error {
	return &evalError{msg: fmt.Sprintf(format, args...)}
}

// EvalCall evaluates a call on boxed argument values (Eval with the
// call's resolved function).
func EvalCall(c *Call, args []types.Value) (types.Value, error) {
	return Eval(c.Resolve(), c, args)
}

// Eval evaluates a call of def on boxed argument values: NULL in, NULL out
// unless def is NullSafe, an error under SAFE. is NULL, and the result has
// the call's type. The executor resolves def once per call and evaluates
// each row with it.
func Eval(def *Func, c *Call, args []types.Value) (types.Value, error) {
	if def == nil {
		return types.Value{}, EvalErr("unknown function %s", c.Fn)
	}
	if !def.NullSafe {
		for _, a := range args {
			if a.Null {
				return types.NullOf(c.T), nil
			}
		}
	}
	v, err := def.Eval(c, args)
	if err != nil {
		if c.Safe {
			return types.NullOf(c.T), nil // SAFE. prefix: an error is NULL
		}
		return types.Value{}, err
	}
	if !v.Null && v.T.Kind != c.T.Kind && c.T.Kind != types.KindNull {
		if cv, err := types.Cast(v, c.T); err == nil {
			return cv, nil
		}
	}
	if v.Null {
		v.T = c.T
	}
	return v, nil
}

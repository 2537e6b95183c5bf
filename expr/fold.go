package expr

import (
	"fmt"

	"logq/types"
)

// fold simplifies e when its value, or the branch taken, is known now.
// Errors from evaluating constants are returned; when a parameter supplied a
// constant involved, the error names it.
func Fold(e Expr) (Expr, error) {
	switch x := e.(type) {
	case *Call:
		return foldCall(x)
	case *Case:
		var whens []When
		for _, w := range x.Whens {
			if c, ok := w.Cond.(*Const); ok {
				if c.V.Bool() {
					if len(whens) == 0 {
						return x.Then(w), nil
					}
					return &Case{Whens: whens, Else: w.Then, T: x.T}, nil
				}
				continue // FALSE or NULL: this arm is never taken
			}
			whens = append(whens, w)
		}
		if len(whens) == 0 {
			return x.Else, nil
		}
		return &Case{Whens: whens, Else: x.Else, T: x.T}, nil
	}
	return e, nil
}

// Then returns the result of an arm (a helper for fold).
func (e *Case) Then(w When) Expr { return w.Then }

func ConstArg(e Expr) (*Const, bool) { c, ok := e.(*Const); return c, ok }

func foldCall(c *Call) (Expr, error) {
	f := c.Resolve()
	if f != nil && (f.NoFold || f.Volatile) {
		return c, nil
	}
	if f != nil && f.Simplify != nil {
		e := f.Simplify(c)
		if e != Expr(c) {
			return e, nil
		}
	}
	param := ""
	for _, a := range c.Args {
		k, ok := a.(*Const)
		if !ok {
			return c, nil
		}
		if k.Param != "" && param == "" {
			param = k.Param
		}
	}
	args := make([]types.Value, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.(*Const).V
	}
	v, err := EvalCall(c, args)
	if err != nil {
		if param != "" {
			return nil, &ParamError{Param: param, Msg: fmt.Sprintf("value %q cannot be used: %v", paramValue(c.Args, param), err), Err: err}
		}
		return nil, err
	}
	// Keep the parameter's name on values that are the parameter itself in
	// another type (e.g. a cast), so later errors can still name it.
	if c.Fn == "cast" {
		return &Const{V: v, Param: param}, nil
	}
	return &Const{V: v}, nil
}

func paramValue(args []Expr, param string) string {
	for _, a := range args {
		if k, ok := a.(*Const); ok && k.Param == param {
			return k.V.String()
		}
	}
	return ""
}

package planner

import (
	"errors"
	"fmt"

	"logq/expr"
	"logq/sqlparse"
)

// Error is a bind-time error, positioned in the query text, or an error in
// evaluating a constant that names the parameter whose value caused it.
type Error struct {
	Line, Col int
	Param     string // set when a parameter's value is at fault
	Msg       string
	Err       error // the underlying evaluation error, if any
}

func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("parameter %s: %s", e.Param, e.Msg)
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// fail raises a positioned error; binder.recover turns it back into the
// error that Plan or Check returns (see doc.go: the binder's one panic).
func (b *binder) fail(pos int, format string, args ...any) {
	line, col := sqlparse.Position(b.src, pos)
	panic(&Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// failErr raises err at pos, naming a parameter when err came from one.
func (b *binder) failErr(pos int, err error) {
	err = fromParamError(err)
	var pe *Error
	if errors.As(err, &pe) {
		if pe.Line == 0 && pe.Param == "" {
			pe.Line, pe.Col = sqlparse.Position(b.src, pos)
		}
		panic(pe)
	}
	line, col := sqlparse.Position(b.src, pos)
	panic(&Error{Line: line, Col: col, Msg: err.Error(), Err: err})
}

// fromParamError turns a parameter's error from the function library into
// the Error that names the parameter; any other error is returned as it is.
func fromParamError(err error) error {
	var pe *expr.ParamError
	if errors.As(err, &pe) {
		return &Error{Param: pe.Param, Msg: pe.Msg, Err: pe.Err}
	}
	return err
}

// errNoLibrary: no function library registered its functions in expr (a
// program that plans links logq/sqlfunc, as the executor does).
var errNoLibrary = errors.New("planner: no function library is linked (import logq/sqlfunc)")

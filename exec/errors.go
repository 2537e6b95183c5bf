package exec

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"logq/expr"
	"logq/planner"
	"logq/sqlparse"
	"logq/types"
)

// Kind classifies a runtime error; the api maps kinds to HTTP statuses.
type Kind uint8

// Error kinds.
const (
	KindInternal        Kind = iota // a bug
	KindInvalidArgument             // a parameter's value cannot be used
	KindInvalidQuery                // the query does not bind or is malformed
	KindEvaluation                  // a value in the data made a function fail
	KindCanceled                    // the caller went away
	KindDeadline                    // the time limit passed
	KindResources                   // the query went past its memory budget
	KindUnavailable                 // the store could not read what the query needs
)

// Error is a typed query error. Param names the parameter at fault, if any;
// Line and Col (1-based, 0 when unknown) place a KindInvalidQuery error in the
// query text, and Reason is then the message without that position.
type Error struct {
	Kind      Kind
	Param     string
	Msg       string
	Line, Col int
	Reason    string
	Err       error
	Stack     string // KindInternal only
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// fromPanic turns what a query's goroutine panicked with into an error: a
// bug (KindInternal, with its stack).
func fromPanic(r any) *Error {
	return &Error{Kind: KindInternal, Msg: fmt.Sprintf("internal error: %v", r), Stack: string(debug.Stack())}
}

// safely runs f, returning a panic inside it as an error: the goroutines a
// query starts must not take the process down with them.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fromPanic(r)
		}
	}()
	return f()
}

// onAll runs task(0) … task(n-1) at once (safely) and returns the first
// error by index once all have ended: the workers of a parallel aggregate
// or first-rows window, and the kept partials a call computes. The last
// task runs on the calling goroutine, which would only wait otherwise: a
// single task (a short window's one segment) starts no goroutine.
func onAll(n int, task func(i int) error) error {
	if n <= 0 {
		return nil
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n-1; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = safely(func() error { return task(i) })
		}()
	}
	errs[n-1] = safely(func() error { return task(n - 1) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Classify is classify for a caller that prepares a query itself (the
// ad-hoc query API): a parse or bind error becomes the *Error a run would
// give.
func Classify(err error) *Error { return classify(err) }

// classify wraps any error from planning or running into an *Error.
func classify(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if e := classifyLocal(err); e != nil {
		return e
	}
	var pe *planner.Error
	var se *sqlparse.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindDeadline, Msg: "the query ran past its time limit", Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Kind: KindCanceled, Msg: "the query was canceled", Err: err}
	case errors.As(err, &pe) && pe.Param != "":
		return &Error{Kind: KindInvalidArgument, Param: pe.Param, Msg: pe.Error(), Err: err}
	case errors.As(err, &pe):
		return &Error{Kind: KindInvalidQuery, Msg: pe.Error(), Line: pe.Line, Col: pe.Col, Reason: pe.Msg, Err: err}
	case errors.As(err, &se):
		return &Error{Kind: KindInvalidQuery, Msg: se.Error(), Line: se.Line, Col: se.Col, Reason: se.Msg, Err: err}
	case errors.Is(err, expr.ErrEval):
		return &Error{Kind: KindEvaluation, Msg: err.Error(), Err: err}
	case errors.Is(err, types.ErrBadCast):
		// A value that does not convert where a function coerces its
		// argument (GENERATE_TIMESTAMP_ARRAY('x', …)) is the query's error,
		// like a failing CAST, not a bug.
		return &Error{Kind: KindEvaluation, Msg: err.Error(), Err: err}
	}
	return &Error{Kind: KindInternal, Msg: fmt.Sprintf("internal error: %v", err), Err: err}
}

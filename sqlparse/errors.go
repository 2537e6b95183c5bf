package sqlparse

import (
	"fmt"
	"strings"
)

// Error is a positioned syntax error. Off is the byte offset into the query;
// Line and Col (1-based, Col counted in bytes) are filled by the parser.
type Error struct {
	Off, Line, Col int
	Msg            string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

func errorAt(off int, format string, args ...any) *Error {
	return &Error{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// Position converts a byte offset into a 1-based line and column.
func Position(src string, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	line = 1 + strings.Count(src[:off], "\n")
	col = off - strings.LastIndexByte(src[:off], '\n')
	return line, col
}

func (e *Error) locate(src string) *Error {
	e.Line, e.Col = Position(src, e.Off)
	return e
}

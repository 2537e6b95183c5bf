package api

import (
	"fmt"

	"logq/exec"
)

// position is the location of a query error: "line:col" in the query text
// (the caller's, for a sandboxed call), or "" when the error has none.
func position(e *exec.Error) string {
	if e.Line <= 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d", e.Line, e.Col)
}

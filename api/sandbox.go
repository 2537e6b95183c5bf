package api

import (
	"fmt"
	"strings"

	"logq/endpoint"
	"logq/exec"
)

// SQLParam is the parameter that carries a caller's query to a sandboxed
// endpoint (Logflare's name, which Studio sends).
const SQLParam = "sql"

// callerQuery returns the query a call runs: the endpoint's own, or, for a
// sandboxed endpoint called with a non-empty sql=, the caller's SQL in place
// of its final SELECT. sandboxed reports the latter; such a run is never
// cached, since its text is the caller's and every call may differ.
//
// An empty sql= is the same as none (the endpoint's own SELECT runs), so a
// client that always sends the parameter can leave it blank. An endpoint that
// is not sandboxed ignores sql= (CONTRACT.md §2).
func callerQuery(e *endpoint.Endpoint, params map[string]string) (q *exec.Query, sandboxed bool, aerr *apiError) {
	sql := params[SQLParam]
	if !e.Sandboxed || strings.TrimSpace(sql) == "" {
		return e.Query, false, nil
	}
	q, err := e.Query.Sandboxed(sql)
	if err != nil {
		return nil, true, fromExec(err)
	}
	return q, true, nil
}

// position is the location of a query error: "line:col" in the query text
// (the caller's, for a sandboxed call), or "" when the error has none.
func position(e *exec.Error) string {
	if e.Line <= 0 {
		return ""
	}
	return fmt.Sprintf("%d:%d", e.Line, e.Col)
}

package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"logq/exec"
)

// apiError is an error with the HTTP status and body of CONTRACT.md §2.
type apiError struct {
	Code     int
	Reason   string
	Location string
	Message  string
}

func (e *apiError) Error() string { return e.Message }

var statusWords = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED",
	406: "NOT_ACCEPTABLE", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 429: "RESOURCE_EXHAUSTED", 431: "HEADERS_TOO_LARGE", 500: "INTERNAL", 501: "UNIMPLEMENTED",
	503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

func errorf(code int, reason, location, format string, args ...any) *apiError {
	return &apiError{Code: code, Reason: reason, Location: location, Message: fmt.Sprintf(format, args...)}
}

// fromExec maps a query error to its status: the single place where runtime
// error kinds meet HTTP.
func fromExec(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var e *exec.Error
	if !errors.As(err, &e) {
		return errorf(500, "internalError", "", "internal error")
	}
	switch e.Kind {
	case exec.KindInvalidArgument:
		return errorf(400, "invalidParameter", e.Param, "%s", e.Msg)
	case exec.KindInvalidQuery, exec.KindEvaluation:
		return errorf(400, "invalidQuery", position(e), "%s", e.Msg)
	case exec.KindResources:
		// As BigQuery's resourcesExceeded: the query, not the server, is at
		// fault, and retrying it unchanged will not help (so not 429 or 5xx).
		return errorf(400, "resourcesExceeded", "", "%s", e.Msg)
	case exec.KindDeadline:
		return errorf(504, "timeout", "", "%s", e.Msg)
	case exec.KindUnavailable:
		return errorf(503, "storageError", "", "%s", e.Msg)
	case exec.KindCanceled:
		return errorf(503, "canceled", "", "%s", e.Msg)
	}
	return errorf(500, "internalError", "", "internal error")
}

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    int         `json:"code"`
	Status  string      `json:"status"`
	Message string      `json:"message"`
	Errors  []errorItem `json:"errors"`
}

type errorItem struct {
	Reason   string `json:"reason"`
	Location string `json:"location"`
	Message  string `json:"message"`
}

// writeError writes the error body of CONTRACT.md §2. A 429 or 503 says
// when to come back (Retry-After), here, so every path that refuses for load
// or readiness says it.
func writeError(w http.ResponseWriter, e *apiError) {
	if rec := recorderIn(w); rec != nil {
		rec.err = e.Message
	}
	if (e.Code == http.StatusTooManyRequests || e.Code == http.StatusServiceUnavailable) && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", "1") // a caller may have said longer
	}
	body := errorBody{Error: errorDetail{Code: e.Code, Status: statusWords[e.Code], Message: e.Message,
		Errors: []errorItem{{Reason: e.Reason, Location: e.Location, Message: e.Message}}}}
	writeJSON(w, e.Code, body)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		code = 500
		buf.Reset()
		buf.WriteString(`{"error":{"code":500,"status":"INTERNAL","message":"encoding failed","errors":[]}}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

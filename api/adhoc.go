package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"logq/exec"
)

// AdhocMaxRows caps the rows of an ad-hoc query, as max_rows caps a saved
// endpoint's.
const AdhocMaxRows = 1000

// handleAdhocQuery answers GET or POST /api/query (Logflare's): one
// BigQuery-dialect SELECT over the sources by name, in sql= (or bq_sql=),
// with the same concurrency bound, time limit, memory budget, row cap and
// error shapes as a saved endpoint's call: {"result": [...]}, or a
// positioned 400. Every other parameter is bound as @name (a STRING), as a
// saved query's are: the page's time range is @from and @to. It is never
// cached.
func (s *Server) handleAdhocQuery(w http.ResponseWriter, r *http.Request) {
	rec := recorderOf(r)
	rec.cache = "bypass"
	w.Header().Set("Logq-Cache", rec.cache)
	start := time.Now()
	params, aerr := requestParams(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	sql, which := params["sql"], "sql"
	if sql == "" {
		sql, which = params["bq_sql"], "bq_sql"
	}
	for _, other := range []string{"pg_sql", "ch_sql"} {
		if params[other] != "" && sql == "" {
			writeError(w, errorf(400, "invalidParameter", other, "logq runs BigQuery SQL: send it as sql= or bq_sql=, not %s=", other))
			return
		}
	}
	if strings.TrimSpace(sql) == "" {
		writeError(w, errorf(400, "missingParameter", "sql", "no query: send a BigQuery SELECT as sql= (or bq_sql=)"))
		return
	}
	delete(params, "sql")
	delete(params, "bq_sql")
	q, err := exec.Prepare(sql)
	if err != nil {
		writeError(w, fromExec(exec.Classify(err)))
		return
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		writeError(w, errorf(429, "rateLimitExceeded", "", "too many queries are running; try again shortly"))
		return
	}
	res, err := exec.Run(r.Context(), s.store, q, exec.Request{Params: params, Now: s.cfg.Clock.Now(), Timeout: s.cfg.QueryTimeout,
		MaxRows: AdhocMaxRows, MemoryBudget: s.cfg.QueryMemory, RecordsAsJSON: true})
	if err != nil {
		ae := fromExec(err)
		if ae.Code == 500 {
			var xe *exec.Error
			if errors.As(err, &xe) {
				s.log.Error("query failed", "query", clip(sql, 200), "error", xe.Msg, "stack", xe.Stack)
			}
		}
		if ae.Location == "" && ae.Code == 400 {
			ae.Location = which
		}
		writeError(w, ae)
		return
	}
	body := encodeResult(res, AdhocMaxRows)
	rec.rows = len(res.Rows)
	w.Header().Set("Server-Timing", fmt.Sprintf("query;dur=%.3f", float64(time.Since(start).Microseconds())/1000))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(body)
}

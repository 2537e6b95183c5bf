package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// EnforceRetention drops, on every server, the days (partitions) of every
// source whose events are all older than the retention: whole parts, no
// rewrite. Rows of a day that is only partly past the cutoff are never
// returned (every query's scan clamps its time range) and go with their
// day. It reports the days dropped.
func (e *Engine) EnforceRetention(ctx context.Context) int {
	if e.cfg.Retention <= 0 {
		return 0
	}
	cutoff := e.cfg.Now().Add(-e.cfg.Retention).UnixMicro()
	lastWholeDay := floorDiv(cutoff, microsPerDay) - 1 // days before the cutoff's
	names, err := e.listSources(ctx)
	if err != nil {
		e.cfg.Logger.Warn("clickhouse: retention could not list the sources", "err", err)
		return 0
	}
	ours := map[string]bool{}
	for _, n := range names {
		ours[n], ours[n+localSuffix] = true, true
	}
	dropped := 0
	for _, c := range e.servers {
		out, err := c.text(ctx, "SELECT DISTINCT table, partition FROM system.parts WHERE active AND database = "+quote(e.cfg.Database)+" FORMAT TabSeparatedRaw", nil)
		if err != nil {
			e.cfg.Logger.Warn("clickhouse: retention could not list partitions", "server", c.base.Host, "err", err)
			continue
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			table, part, ok := strings.Cut(l, "\t")
			if !ok || !ours[table] {
				continue
			}
			day, err := strconv.ParseInt(part, 10, 64)
			if err != nil || day > lastWholeDay {
				continue
			}
			stmt := fmt.Sprintf("ALTER TABLE %s.%s DROP PARTITION %d", ident(e.cfg.Database), ident(table), day)
			if err := c.exec(ctx, stmt, nil); err != nil {
				e.cfg.Logger.Warn("clickhouse: retention could not drop a day", "server", c.base.Host, "table", table, "day", day, "err", err)
				continue
			}
			dropped++
		}
	}
	return dropped
}

// floorDiv divides rounding down (Go's / truncates toward zero).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

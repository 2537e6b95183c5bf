package clickhouse

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Retrying an insert exactly. ClickHouse commits an insert into a MergeTree
// table part by part, one part per partition (day) of each block, so an
// insert that fails (a server killed, a connection cut, too many parts)
// may have committed some of its days and not others, and logq cannot tell
// which from the error. Retrying the whole body could store those days
// twice; answering 503 would have the client's retry store them twice.
// ClickHouse's own insert deduplication does not help here: 18.16 has it
// only for Replicated tables, and it recognises a retried block by its
// bytes, which a client's retry grouped with other requests never repeats.
//
// So logq retries itself, for up to Config.InsertRetry, sending again only
// what the server does not hold. Every row of an insert carries the
// insert's random token in a column of its own (insertColumn, which is no
// field's). Once the server answers again and no longer runs the failed
// attempt (each has its own query_id: a server may finish an insert whose
// connection was cut), logq counts the rows of that token in each day's
// time range and sends again the days that have none. Each body is sent
// as one block (max_insert_block_size above its rows), so a day is one
// part, there or not; a day found in part is an error, not retried.

// insertColumn holds the token of the insert that wrote a row.
const insertColumn = "_insert"

// stamp gives the insert its token, and its rows the column that holds it.
func (in *insert) stamp() {
	var b [8]byte
	_, _ = rand.Read(b[:])
	in.token = binary.LittleEndian.Uint64(b[:]) | 1 // never 0, which older rows hold
	if _, ok := in.idx[insertColumn]; !ok {
		in.idx[insertColumn] = len(in.cols)
		in.cols = append(in.cols, column{name: insertColumn, typ: "UInt64"})
	}
}

// shardBody is one server's rows of an insert, in TabSeparated form, in
// time order.
type shardBody struct {
	buf         []byte
	rows        int
	days        []dayPart
	first, last int64 // the rows' times
}

// dayPart is the body's run of rows of one partition.
type dayPart struct {
	day        int64
	start, end int   // in buf
	rows       int   // rows in it
	lo, hi     int64 // their times: the first and the last
}

func (b *shardBody) reset() { b.buf, b.rows, b.days = b.buf[:0], 0, b.days[:0] }

// addRow appends a row of time ts whose columns' text line holds.
func (b *shardBody) addRow(ts int64, line [][]byte) {
	day := partition(ts)
	if b.rows == 0 {
		b.first = ts
	}
	b.last = ts
	if len(b.days) == 0 || b.days[len(b.days)-1].day != day {
		b.days = append(b.days, dayPart{day: day, start: len(b.buf), lo: ts})
	}
	for k, v := range line {
		if k > 0 {
			b.buf = append(b.buf, '\t')
		}
		b.buf = append(b.buf, v...)
	}
	b.buf = append(b.buf, '\n')
	b.rows++
	d := &b.days[len(b.days)-1]
	d.end, d.rows, d.hi = len(b.buf), d.rows+1, ts
}

// insertBodies sends each target its body at once and waits for all; it
// fails if any fails after its retries (rows another target took stay
// there). Failures are retried as above; through a Distributed table
// (distributed) the rows are counted through it, on every shard.
func (s *source) insertBodies(ctx context.Context, targets []*client, stmt string, bodies []shardBody, settings map[string]string, token uint64, distributed bool) error {
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for t, c := range targets {
		if bodies[t].rows == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			set := map[string]string{"max_insert_block_size": strconv.Itoa(max(bodies[t].rows+1, defaultInsertBlock))}
			for k, v := range settings {
				set[k] = v
			}
			if err := s.insertExactly(ctx, c, stmt, &bodies[t], set, token, distributed); err != nil {
				errs[t] = fmt.Errorf("%s: %w", c.base.Host, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// defaultInsertBlock is 18.16's default max_insert_block_size; a body of
// more rows is sent with a larger one (current versions' default is a
// little lower, so every body names its own).
const defaultInsertBlock = 1 << 20

// insertExactly sends b to c, and after a failure, once c answers again
// and no longer runs the failed attempt, sends again what c does not hold,
// until c holds all of b or Config.InsertRetry has passed since the first
// failure. A refusal that would meet a retry again (not transient) fails
// at once, unless c took part of b before it: then a 503 would have the
// client store that part twice, so the rest is retried too.
func (s *source) insertExactly(ctx context.Context, c *client, stmt string, b *shardBody, settings map[string]string, token uint64, distributed bool) error {
	body := b.buf
	var deadline time.Time
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		// Each attempt has its own id, to tell whether it still runs: a
		// server may go on with an insert whose connection was cut.
		id := fmt.Sprintf("logq-%016x-%s-%d", token, c.base.Host, attempt)
		set := map[string]string{"query_id": id}
		for k, v := range settings {
			set[k] = v
		}
		err := c.insert(ctx, stmt, body, set)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(s.e.cfg.InsertRetry)
		}
		permanent := !transient(ctx, err)
		s.e.cfg.Logger.Warn("clickhouse: an insert failed; retrying what the server lacks", "source", s.name, "server", c.base.Host, "err", err)
		var missing []dayPart
		for {
			var perr error
			if missing, perr = s.missingDays(ctx, c, id, token, b, distributed); perr == nil {
				break
			} else if errors.Is(perr, errPartialDay) {
				s.e.cfg.Logger.Error("clickhouse: not retrying an insert a server holds in part; a client's retry may store that part twice", "source", s.name, "server", c.base.Host, "err", perr)
				return fmt.Errorf("%w (after %w)", perr, err)
			}
			if time.Now().Add(wait).After(deadline) {
				return fmt.Errorf("%w (retried for %v)", err, s.e.cfg.InsertRetry)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (then %w)", err, ctx.Err())
			case <-time.After(wait):
			}
			wait = min(2*wait, time.Second)
		}
		switch {
		case len(missing) == 0:
			return nil
		case permanent && len(missing) == len(b.days):
			return err // nothing of b is there: the refusal stands
		case time.Now().After(deadline):
			return fmt.Errorf("%w (retried for %v)", err, s.e.cfg.InsertRetry)
		}
		select { // an overloaded server is not asked again at once
		case <-ctx.Done():
			return fmt.Errorf("%w (then %w)", err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
		s.e.resent.Add(1)
		body = nil
		for _, d := range missing {
			body = append(body, b.buf[d.start:d.end]...)
		}
	}
}

// errPartialDay is a server holding part of a day of a failed insert,
// which one block per body rules out; nothing is retried then.
var errPartialDay = errors.New("clickhouse: a server holds part of a day of a failed insert")

// missingDays asks server c which days of b it holds none of, once the
// attempt id no longer runs there. A day is held when all its rows of the
// insert's token are there, which a day's part being one makes the only
// other case; counting rows by the day's time range, not by partition
// numbers, keeps logq's days and the server's apart.
//
// Through a Distributed table (distributed) the attempt's parts on the
// other shards run there under its id as their initial query: every server
// is asked, and the rows are counted through the Distributed table. A day
// is spread over the shards there, so a day some shard took and another
// did not is held in part: not retried, as below.
func (s *source) missingDays(ctx context.Context, c *client, id string, token uint64, b *shardBody, distributed bool) ([]dayPart, error) {
	asked, table := []*client{c}, s.e.local(s.name)
	if distributed {
		asked, table = s.e.servers, s.e.table(s.name)
	}
	for _, a := range asked {
		running, err := a.text(ctx, "SELECT count() FROM system.processes WHERE query_id = "+quote(id)+" OR initial_query_id = "+quote(id)+" FORMAT TabSeparated", nil)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(running) != "0" {
			return nil, fmt.Errorf("clickhouse: insert %s still runs on %s", id, a.base.Host)
		}
	}
	counts := make([]string, len(b.days))
	for i, d := range b.days {
		counts[i] = fmt.Sprintf("countIf(`timestamp` >= %d AND `timestamp` <= %d)", d.lo, d.hi)
	}
	out, err := c.text(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s = %d AND `timestamp` >= %d AND `timestamp` <= %d FORMAT TabSeparated",
		strings.Join(counts, ", "), table, ident(insertColumn), token, b.first, b.last), nil)
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(out)
	if len(fields) != len(b.days) {
		return nil, fmt.Errorf("clickhouse: %d counts for %d days", len(fields), len(b.days))
	}
	var missing []dayPart
	for i, d := range b.days {
		n, err := strconv.Atoi(fields[i])
		if err != nil {
			return nil, fmt.Errorf("clickhouse: %q is not a count: %w", fields[i], err)
		}
		switch n {
		case 0:
			missing = append(missing, d)
		case d.rows:
		default:
			return nil, fmt.Errorf("%w (%s holds %d of %d rows)", errPartialDay, c.base.Host, n, d.rows)
		}
	}
	return missing, nil
}

// transient reports whether an insert's failure may pass: the server out
// of reach, cut off, overloaded, or short of memory, not a refusal of what
// logq sent (which a retry would meet again).
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var ce *Error
	if !errors.As(err, &ce) {
		return true // no answer from the server: the connection failed
	}
	switch ce.Code {
	case codeAllConnectFailed, codeNetwork, codeSocketTimeout, codeTooManyQueries, codeTooManyParts, codeMemoryLimit, codeTimeout:
		return true
	case 0: // no ClickHouse code: a proxy's answer, by its status
		return ce.Status >= 500 || ce.Status == http.StatusTooManyRequests || ce.Status == http.StatusRequestTimeout
	}
	return false
}

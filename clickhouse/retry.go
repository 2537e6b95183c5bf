package clickhouse

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
// field's); once the server answers again, logq asks it which days hold
// rows of that token, and sends again the other days. Each body is sent as
// one block (max_insert_block_size above its rows), so a day is one part,
// there or not.

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
	buf        []byte
	rows       int
	days       []dayPart
	first, end int64 // the rows' times: the first, and past the last
}

// dayPart is the body's run of rows of one partition.
type dayPart struct {
	day        int64
	start, end int // in buf
}

func (b *shardBody) reset() { b.buf, b.rows, b.days = b.buf[:0], 0, b.days[:0] }

// addRow appends a row of time ts whose columns' text line holds.
func (b *shardBody) addRow(ts int64, line [][]byte) {
	day := partition(ts)
	if b.rows == 0 {
		b.first = ts
	}
	b.end = ts + 1
	if len(b.days) == 0 || b.days[len(b.days)-1].day != day {
		b.days = append(b.days, dayPart{day: day, start: len(b.buf)})
	}
	for k, v := range line {
		if k > 0 {
			b.buf = append(b.buf, '\t')
		}
		b.buf = append(b.buf, v...)
	}
	b.buf = append(b.buf, '\n')
	b.rows++
	b.days[len(b.days)-1].end = len(b.buf)
}

// insertBodies sends each target its body at once and waits for all; it
// fails if any fails after its retries (rows another target took stay
// there). With exact, failures are retried as above.
func (s *source) insertBodies(ctx context.Context, targets []*client, stmt string, bodies []shardBody, settings map[string]string, token uint64, exact bool) error {
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for t, c := range targets {
		if bodies[t].rows == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			set := settings
			if bodies[t].rows >= defaultInsertBlock {
				set = map[string]string{"max_insert_block_size": strconv.Itoa(bodies[t].rows + 1)}
				for k, v := range settings {
					set[k] = v
				}
			}
			var err error
			if exact {
				err = s.insertExactly(ctx, c, stmt, &bodies[t], set, token)
			} else {
				err = send(ctx, c, stmt, bodies[t].buf, set)
			}
			if err != nil {
				errs[t] = fmt.Errorf("%s: %w", c.base.Host, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// defaultInsertBlock is ClickHouse's default max_insert_block_size: a body
// of as many rows or more is sent with a larger one.
const defaultInsertBlock = 1 << 20

// send inserts body into the table stmt names on server c.
func send(ctx context.Context, c *client, stmt string, body []byte, settings map[string]string) error {
	rc, err := c.do(ctx, stmt, bytes.NewReader(body), settings)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, rc)
	rc.Close()
	return err
}

// insertExactly sends b to c, and after a failure that may pass, sends
// again what c does not hold, until c holds all of b or Config.InsertRetry
// has passed since the first failure.
func (s *source) insertExactly(ctx context.Context, c *client, stmt string, b *shardBody, settings map[string]string, token uint64) error {
	body := b.buf
	var deadline time.Time
	wait := 50 * time.Millisecond
	for {
		err := send(ctx, c, stmt, body, settings)
		if err == nil || !transient(ctx, err) {
			return err
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(s.e.cfg.InsertRetry)
		}
		s.e.cfg.Logger.Warn("clickhouse: an insert failed; retrying what the server lacks", "source", s.name, "server", c.base.Host, "err", err)
		var missing []dayPart
		for {
			if time.Now().Add(wait).After(deadline) {
				return fmt.Errorf("%w (retried for %v)", err, s.e.cfg.InsertRetry)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w (then %w)", err, ctx.Err())
			case <-time.After(wait):
			}
			wait = min(2*wait, time.Second)
			var perr error
			if missing, perr = s.missingDays(ctx, c, token, b); perr == nil {
				break
			}
		}
		if len(missing) == 0 {
			return nil
		}
		s.e.resent.Add(1)
		body = nil
		for _, d := range missing {
			body = append(body, b.buf[d.start:d.end]...)
		}
	}
}

// missingDays asks server c which days of b it holds no row of the
// insert's token in.
func (s *source) missingDays(ctx context.Context, c *client, token uint64, b *shardBody) ([]dayPart, error) {
	out, err := c.text(ctx, fmt.Sprintf("SELECT DISTINCT intDiv(`timestamp`, %d) FROM %s WHERE `timestamp` >= %d AND `timestamp` < %d AND %s = %d FORMAT TabSeparated",
		microsPerDay, s.e.local(s.name), b.first, b.end, ident(insertColumn), token), nil)
	if err != nil {
		return nil, err
	}
	held := map[int64]bool{}
	for _, l := range strings.Fields(out) {
		d, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("clickhouse: %q is not a day: %w", l, err)
		}
		held[d] = true
	}
	var missing []dayPart
	for _, d := range b.days {
		if !held[d.day] {
			missing = append(missing, d)
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
	case codeAllConnectFailed, codeNetwork, codeSocketTimeout, codeTooManyQueries, codeTooManyParts, codeMemoryLimit, codeTimeout, 0:
		return true
	}
	return false
}

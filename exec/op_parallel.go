package exec

import (
	"context"
	"runtime"
	"sync"

	"logq/planner"
)

// parallelScan runs one scan per worker over interleaved segments and hands
// their batches to the consumer. The scan is where the per-event work is
// (predicates on every stored event), so this is where a second core pays.
// Batches arrive in no fixed order; plans that need input order (a
// newest-first top-k) use the serial scan.
type parallelScan struct {
	ch     chan scanResult
	cancel context.CancelFunc
	wg     sync.WaitGroup
	start  func(ctx context.Context)
	began  bool
}

type scanResult struct {
	b   *Batch
	err error
}

func newParallelScan(p *planner.Scan, snap snapshot, workers int) Operator {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	parts := shares(p, snap, workers)
	if parts == nil {
		return newScan(p, snap, newEvaluator())
	}
	ps := &parallelScan{ch: make(chan scanResult, 2*len(parts))}
	_, lazy := scanFields(p, snap)
	ps.start = func(ctx context.Context) {
		ctx, ps.cancel = context.WithCancel(ctx)
		for _, part := range parts {
			s := newScan(p, snap, newEvaluator())
			s.lazy = lazy
			s.visit = part
			s.fresh = true
			ps.wg.Add(1)
			go func() {
				defer ps.wg.Done()
				defer func() {
					// A panic here (a damaged segment file) is the query's
					// error, not the process's end.
					if r := recover(); r != nil {
						select {
						case ps.ch <- scanResult{nil, fromPanic(r)}:
						case <-ctx.Done():
						}
					}
				}()
				for {
					b, err := s.Next(ctx)
					if b == nil && err == nil {
						return
					}
					select {
					case ps.ch <- scanResult{b, err}:
					case <-ctx.Done():
						return
					}
					if err != nil {
						return
					}
				}
			}()
		}
		go func() { ps.wg.Wait(); close(ps.ch) }()
	}
	return ps
}

func (ps *parallelScan) Next(ctx context.Context) (*Batch, error) {
	if !ps.began {
		ps.began = true
		ps.start(ctx)
	}
	select {
	case r, ok := <-ps.ch:
		if !ok {
			return nil, ctx.Err()
		}
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (ps *parallelScan) Close() {
	if ps.cancel != nil {
		ps.cancel()
		for range ps.ch { // let blocked workers finish
		}
	}
}

package exec

import "context"

// Operator is a pull-based physical operator. Next returns the next batch, or
// nil at the end; the batch is valid until the next call. Close releases
// resources. Operators are used by one goroutine.
type Operator interface {
	Next(ctx context.Context) (*Batch, error)
	Close()
}

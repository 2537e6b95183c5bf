package exec

import "logq/planner"

// Storage is a storage engine that queries read: the local store (Local) or
// another engine (a ClickHouse cluster). Run, Explain and api see storage
// only through it.
//
// Who calls: Run and Explain call View once per query, from the request's
// goroutine. Concurrency: View may be called from any number of goroutines
// at once; each View is used by one query, but the operators it builds may
// run on several goroutines (parallel workers) and must be safe for that.
type Storage interface {
	// View returns what one query reads: the schema of each source as the
	// planner asks for it, and the operators that read them. A source's
	// rows and schema are taken once, on first use, so a query sees one
	// consistent state of each source.
	View() View
}

// View is one query's view of the storage.
//
// Build is offered every plan node, top down, before exec builds it from
// its own operators: an engine that answers the whole subtree at n itself
// (a Scan always; the local store a few shapes it has faster paths for; a
// remote engine whatever it can translate) returns its operator, else nil
// and exec builds n, offering n's inputs again. Every Scan must be answered.
//
// Batches the returned operators produce follow Operator's contract: valid
// until the next call to Next; the consumer copies what it keeps.
type View interface {
	planner.Catalog
	Build(n planner.Node, env *Env) (Operator, error)
}

// Env is what the operators of one query share. An engine's Build is handed
// it, to build exec's operators for parts of a node it answers only in part.
type Env struct {
	view View
	ev   *evaluator
	// work holds, for each recursive CTE running, the rows its step reads
	// (op_recursive.go).
	work map[*planner.WorkTable]*rowStore
}

// Build returns the operator for n as exec builds it (offering the view n,
// then n's inputs, first).
func (e *Env) Build(n planner.Node) (Operator, error) { return build(n, e) }

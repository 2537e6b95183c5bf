package clickhouse

import "logq/planner"

// translate writes the subtree at n as one ClickHouse query, when every
// node and expression of it can be written exactly; else false, and exec
// computes n from its inputs (each offered again).
func (v *view) translate(n planner.Node) (*remoteQuery, bool) {
	return nil, false
}

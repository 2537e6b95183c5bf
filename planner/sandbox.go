package planner

import (
	"fmt"
	"sort"
	"strings"

	"logq/sqlparse"
)

// Sandbox is a caller's query for a sandboxed endpoint (CONTRACT.md §2 and
// §4, Logflare's rules). It replaces the endpoint's final SELECT: the
// endpoint's WITH clause stays, and the caller's query, with its own leading
// WITH, is bound as if it were the body of that WITH. So caller CTEs are an
// inner scope: one named like an endpoint CTE shadows it for the caller's
// SQL, while the endpoint's CTEs keep reading each other.
//
// Rights follow the text, not the call: a name in the caller's SQL must be a
// CTE (the endpoint's or the caller's), never a log source; the endpoint's
// CTE bodies read sources as usual. Only the endpoint's parameters exist.
// SELECT * and t.* are refused in the caller's result columns (Logflare's
// rule; COUNT(*) is fine). Functions outside the dialect are refused by the
// binder as in any query. Errors in the caller's SQL are positioned in Src.
//
// Only what the caller's query reads is bound, so an error inside a caller
// CTE that is never read is not reported (the CTE is never run either).
type Sandbox struct {
	Query  *sqlparse.Query // from sqlparse.ParseSelect
	Src    string
	Params []string // the endpoint's parameters
}

// sandboxed binds sb.Query in the scope of the endpoint query q's CTEs.
func (b *binder) sandboxed(q *sqlparse.Query, sb *Sandbox) Node {
	env := b.withEnv(q.With, nil, q.Recursive) // the endpoint's, with b.src = its text
	b.src, b.caller = sb.Src, true
	allowed := map[string]bool{}
	for _, p := range sb.Params {
		allowed[p] = true
	}
	walkAST(sb.Query, func(n sqlparse.Node) {
		switch n := n.(type) {
		case *sqlparse.Select:
			for _, it := range n.Items {
				if it.Star && it.Of != nil {
					b.fail(it.At, "expression.* is not allowed in a sandboxed query; name the columns")
				} else if it.Star && len(it.Prefix) > 0 {
					b.fail(it.At, "%s.* is not allowed in a sandboxed query; name the columns", strings.Join(it.Prefix, "."))
				} else if it.Star {
					b.fail(it.At, "SELECT * is not allowed in a sandboxed query; name the columns")
				}
			}
		case *sqlparse.Param:
			if !allowed[n.Name] {
				names := append([]string(nil), sb.Params...)
				sort.Strings(names)
				list := "none"
				if len(names) > 0 {
					list = "@" + strings.Join(names, ", @")
				}
				b.fail(n.At, "unknown parameter @%s; this endpoint's parameters are %s", n.Name, list)
			}
		}
	})
	return b.query(sb.Query, env)
}

// cte binds a CTE where it is read (at pos), with the text and rights of
// whoever wrote it. An error inside an endpoint's CTE read from a caller's
// query is reported at the caller's reference, since a location is a
// position in the caller's SQL; the message says where in the endpoint.
func (b *binder) cte(def *cteDef, pos int) Node {
	src, caller := b.src, b.caller
	if caller && !def.caller {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if e, ok := r.(*Error); ok && e.Param == "" {
				line, col := sqlparse.Position(src, pos)
				r = &Error{Line: line, Col: col, Err: e.Err,
					Msg: fmt.Sprintf("in the endpoint's CTE %s (its %d:%d): %s", def.cte.Name, e.Line, e.Col, e.Msg)}
			}
			panic(r)
		}()
	}
	b.src, b.caller = def.src, def.caller
	outer, collect := b.outer, b.collect // a CTE's body sees none of the query reading it
	b.outer, b.collect = nil, nil
	defer func() { b.src, b.caller, b.outer, b.collect = src, caller, outer, collect }()
	if def.recursive {
		return b.recursiveCTE(def) // bind_recursive.go
	}
	return b.query(def.cte.Query, def.env)
}

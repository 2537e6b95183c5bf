package exec

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"logq/planner"
)

// The plans of a prepared query, kept per set of parameter values: a saved
// query is bound once per parameter shape instead of once per call, and
// each call copies the bound plan with its own time (planner.Template).
//
// A template is made on a query's second call with the same values, when
// the sources it reads have the schemas they had on the first (an ad-hoc
// query, called once, pays only for noting them), and kept only if its
// plan at that call's time is identical (Explain) to the plan bound
// directly. It is used while every source it read has the schema it was
// bound with: a new field, or a field's type widened, binds the query
// directly again, and a template is made anew once the schemas stay put
// from one call to the next. A query whose template is refused or differs
// from its direct plan is remembered as such and planned per call, as is
// every query over a storage whose views do not keep its schemas as
// values (keepsPlans: the ClickHouse engine builds them per view).

// planCacheSize bounds the parameter sets kept per query.
const planCacheSize = 64

type planCache struct {
	lru *lru.Cache[string, *cachedPlan]
}

func newPlanCache() *planCache {
	c, _ := lru.New[string, *cachedPlan](planCacheSize)
	return &planCache{lru: c}
}

// cachedPlan is what is known of one parameter set.
type cachedPlan struct {
	mu     sync.Mutex
	tmpl   *planner.Template
	tables map[string]planner.TableSchema // the schemas tmpl was bound with, or those of the last call
	never  bool                           // the plan is not kept as a template
}

// paramKey identifies the values of the parameters the query uses (a
// parameter it does not use changes nothing): each as its length and bytes,
// "-" when absent (NULL), so that no two sets of values share a key.
func paramKey(used []string, params map[string]string) string {
	var b []byte
	for _, p := range used {
		v, ok := params[p]
		if !ok {
			b = append(b, '-')
			continue
		}
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(append(b, ':'), v...)
	}
	return string(b)
}

// keepsPlans is implemented by the View of a storage whose sources'
// schemas are immutable values kept while unchanged, so that a kept plan
// can tell it is still valid (the local store's event.Schema). Over any
// other storage every call is planned. It is asked of the View, not the
// Storage: a Storage wrapped in another type (api's Backend embeds it)
// hides the methods it does not export, and the View it returns does not.
type keepsPlans interface{ plansKept() }

// plan returns the plan of q for one call at now (µs) over view.
func (c *planCache) plan(q *Query, view View, params map[string]string, now int64) (planner.Node, error) {
	key := paramKey(q.Params, params)
	e, _ := c.lru.Get(key)
	if e == nil {
		e = &cachedPlan{}
		c.lru.Add(key, e)
	}
	e.mu.Lock()
	tmpl := e.tmpl
	if tmpl != nil && !sameTables(e.tables, view) {
		tmpl, e.tmpl = nil, nil
	}
	e.mu.Unlock()
	if tmpl != nil {
		if plan, err := guarded(func() (planner.Node, error) { return tmpl.Plan(now) }); err == nil {
			return plan, nil
		}
		// A constant the time made failed to fold: the direct plan
		// reports it as binding at that time does.
	}
	rec := &recordingCatalog{Catalog: view, tables: map[string]planner.TableSchema{}}
	opts := planner.Options{Catalog: rec, Params: params, Now: now}
	plan, err := planner.Plan(q.AST, q.Source, opts)
	if err != nil || rec.incomparable {
		return plan, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.never || e.tmpl != nil {
		return plan, nil
	}
	if e.tables == nil || !sameTables(e.tables, view) {
		e.tables = rec.tables // the schemas must hold until the next call
		return plan, nil
	}
	e.never = true // unless the template is made and checked below
	tmpl, err = guarded(func() (*planner.Template, error) { return planner.NewTemplate(q.AST, q.Source, opts) })
	if err != nil {
		return plan, nil
	}
	got, err := guarded(func() (planner.Node, error) { return tmpl.Plan(now) })
	if err != nil || planner.Explain(got) != planner.Explain(plan) {
		return plan, nil
	}
	e.tmpl, e.never = tmpl, false
	return plan, nil
}

// guarded runs f, turning a panic into an error: a template is only a
// faster way to the plan a call binds directly, so a bug in making or
// copying one must cost that call its speed, not its answer.
func guarded[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("planner template: %v", r)
		}
	}()
	return f()
}

// recordingCatalog notes the schema of every source the binder reads.
type recordingCatalog struct {
	planner.Catalog
	tables map[string]planner.TableSchema
	// incomparable: a schema whose type cannot be compared, so that it is
	// never known unchanged; the query is planned per call.
	incomparable bool
}

func (r *recordingCatalog) Table(name string) planner.TableSchema {
	t := r.Catalog.Table(name)
	if t == nil || !reflect.TypeOf(t).Comparable() {
		r.incomparable = true
	}
	r.tables[name] = t
	return t
}

// sameTables reports whether every source in tables has that schema in
// view.
func sameTables(tables map[string]planner.TableSchema, view View) bool {
	for name, t := range tables {
		if view.Table(name) != t {
			return false
		}
	}
	return true
}

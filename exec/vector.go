package exec

import (
	"cmp"
	"slices"
	"sync"

	"logq/event"
	"logq/types"
)

// BatchSize is the number of rows operators move at a time.
const BatchSize = 4096

// Vector is one column of a batch. Which slice is used depends on T
// (storage): I for INT64, BOOL, TIMESTAMP, DATETIME, DATE and TIME; F for
// FLOAT64; S for STRING, BYTES and the decimals; V for ARRAY, STRUCT and
// INTERVAL, unless Lazy is set, in which case
// I holds row references into Lazy's segments. Null is nil when no row is NULL.
type Vector struct {
	T    types.Type
	I    []int64
	F    []float64
	S    []string
	V    []types.Value
	Null []bool
	Lazy *lazyField
	// nullBuf keeps NULL-flag storage across batches; Null is nil when no
	// row is NULL, so the spare cannot live in Null itself.
	nullBuf []bool
	// dict, when set, is the dictionary column the scan read S (or, for a
	// late field, the references in I) from, and codes its code of each row
	// that is not NULL: a consumer may work on the codes (grouper numbers a
	// segment's distinct codes, not every row's string). The scan sets it
	// and gather carries it over; resize clears it, so a vector whose S is
	// written anew never keeps stale codes.
	dict  Dict
	codes []uint32
}

// Dict is a dictionary-encoded column of a storage engine, which a scan
// read a STRING vector from: Vector.codes index its entries. The local
// store's column implements it (local_scan.go).
type Dict interface {
	DictEntry(code uint32) string
	DictLen() int
}

// lateRows is the storage a late field's row references point into: the
// high half of a reference names a segment, the low half a row of it.
// The local store implements it over a snapshot's segments (local_scan.go).
type lateRows interface {
	// Value reads field f of one row, nested records assembled.
	Value(seg int, f *event.Field, row int) (types.Value, error)
	// Values reads field f of rows of one segment into dst, as Value
	// would one at a time.
	Values(seg int, f *event.Field, rows []int32, dst []types.Value) error
	// GatherStrings reads the STRING or BYTES field at path of the rows of
	// one segment into dst (NULL as ""); a field the segment lacks reads "".
	GatherStrings(seg int, path string, rows []int32, dst []string) error
	// RecordTexts writes the nested record f of rows of one segment as
	// JSON (late_json.go): each row's text, as w.enc would write the value
	// Values reads, in texts (len(rows)), written with w's buffers.
	RecordTexts(seg int, f *event.Field, rows []int32, w *recordWriter, texts []string) error
}

// lazyField assembles a nested record from storage on demand. Its readers
// (Vector.Value, strings) return no error: a column that cannot be read
// reads as NULL, and the failure goes to the query's readFailure, which
// fails the query before any row is answered (execute).
type lazyField struct {
	rows   lateRows
	field  *event.Field
	failed *readFailure
}

// value reads the field in one row; NULL when it cannot be read.
func (l *lazyField) value(ref int64) types.Value {
	v, err := l.rows.Value(int(ref>>32), l.field, int(ref&0xffffffff))
	if err != nil {
		l.failed.set(err)
		return types.NullOf(l.field.Type)
	}
	return v
}

// readFailure is the first error a query met reading values late (lazy
// fields), shared by its operators and their workers.
type readFailure struct {
	mu  sync.Mutex
	err error
}

func (f *readFailure) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *readFailure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// bySegment visits refs in order of segment and row, a run of one
// segment's rows at a time, so that each column is looked up once per run
// and its blocks are read in order: fn gets the run's segment, its rows and
// its positions [i, j) in that order. It returns the order (position → index
// into refs).
func bySegment(refs []int64, fn func(seg int, rows []int32, i, j int)) []int32 {
	order := make([]int32, len(refs))
	for k := range order {
		order[k] = int32(k)
	}
	if !slices.IsSortedFunc(order, func(a, b int32) int { return cmp.Compare(refs[a], refs[b]) }) {
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(refs[a], refs[b]) })
	}
	rows := make([]int32, 0, len(refs))
	for i := 0; i < len(order); {
		seg := refs[order[i]] >> 32
		rows = rows[:0]
		j := i
		for ; j < len(order) && refs[order[j]]>>32 == seg; j++ {
			rows = append(rows, int32(refs[order[j]]))
		}
		fn(int(seg), rows, i, j)
		i = j
	}
	return order
}

// values reads the field in the rows refs name into dst (len(dst) >=
// len(refs)); NULL where it cannot be read.
func (l *lazyField) values(refs []int64, dst []types.Value) {
	vals := make([]types.Value, len(refs))
	order := bySegment(refs, func(seg int, rows []int32, i, j int) {
		if err := l.rows.Values(seg, l.field, rows, vals[i:j]); err != nil {
			l.failed.set(err)
			for k := i; k < j; k++ {
				vals[k] = types.NullOf(l.field.Type)
			}
		}
	})
	for k, o := range order {
		dst[o] = vals[k]
	}
}

// lateValues reads a lazy vector's first n rows (NULL rows stay NULL).
func (v *Vector) lateValues(n int) []types.Value { return v.late(n, v.Lazy.values) }

// late reads a lazy vector's first n rows through read, which fills dst
// from the references of the rows that are not NULL; NULL rows stay NULL.
func (v *Vector) late(n int, read func(refs []int64, dst []types.Value)) []types.Value {
	out := make([]types.Value, n)
	if v.Null == nil {
		read(v.I[:n], out)
		return out
	}
	var refs []int64
	var at []int
	for i := 0; i < n; i++ {
		if v.Null[i] {
			out[i] = types.NullOf(v.T)
			continue
		}
		refs, at = append(refs, v.I[i]), append(at, i)
	}
	vals := make([]types.Value, len(refs))
	read(refs, vals)
	for k, i := range at {
		out[i] = vals[k]
	}
	return out
}

func lazyRef(seg, row int) int64 { return int64(seg)<<32 | int64(row) }

// strings resolves references to a scalar STRING or BYTES field into dst, a
// run of one segment's rows at a time, as the scan would have gathered them
// (NULL rows read as ""). rows is scratch space, returned for reuse.
func (l *lazyField) strings(refs []int64, dst []string, rows []int32) ([]string, []int32) {
	dst = grow(dst, len(refs))
	for i := 0; i < len(refs); {
		seg := refs[i] >> 32
		rows = rows[:0]
		j := i
		for ; j < len(refs) && refs[j]>>32 == seg; j++ {
			rows = append(rows, int32(refs[j]))
		}
		if err := l.rows.GatherStrings(int(seg), l.field.Path, rows, dst[i:j]); err != nil {
			l.failed.set(err)
		}
		i = j
	}
	return dst, rows
}

// Batch is a set of rows as column vectors, all of length N.
type Batch struct {
	N    int
	Cols []*Vector
	// lets are the values of the WITH expression variables in scope
	// (expr.With), by variable ID, for the rows of Cols.
	lets map[int]*Vector
}

// take returns a batch of b's rows rows, in that order, in new vectors.
func (b *Batch) take(rows []int32) *Batch {
	out := &Batch{N: len(rows), Cols: make([]*Vector, len(b.Cols))}
	for i, v := range b.Cols {
		out.Cols[i] = gather(v, rows, nil)
	}
	if b.lets != nil {
		out.lets = make(map[int]*Vector, len(b.lets))
		for id, v := range b.lets {
			out.lets[id] = gather(v, rows, nil)
		}
	}
	return out
}

func newVector(t types.Type, n int) *Vector {
	v := &Vector{T: t}
	v.resize(n)
	return v
}

// resize makes the vector hold n rows, reusing its storage.
func (v *Vector) resize(n int) {
	v.dict = nil
	switch v.storage() {
	case inInts:
		v.I = grow(v.I, n)
	case inFloats:
		v.F = grow(v.F, n)
	case inStrings:
		v.S = grow(v.S, n)
	case inValues:
		v.V = grow(v.V, n)
	}
	v.Null = nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, max(n, 2*cap(s)))
}

// len is the number of rows the vector holds.
func (v *Vector) len() int {
	switch v.storage() {
	case inFloats:
		return len(v.F)
	case inStrings:
		return len(v.S)
	case inValues:
		return len(v.V)
	}
	return len(v.I)
}

func (v *Vector) isNull(i int) bool { return v.Null != nil && v.Null[i] }

func (v *Vector) setNull(i int, n int) {
	if v.Null == nil {
		v.Null = make([]bool, n)
	}
	v.Null[i] = true
}

// Value boxes row i.
func (v *Vector) Value(i int) types.Value {
	if v.isNull(i) {
		return types.NullOf(v.T)
	}
	if v.Lazy != nil {
		return v.Lazy.value(v.I[i])
	}
	switch v.storage() {
	case inFloats:
		return types.FloatValue(v.F[i])
	case inStrings:
		return types.Value{T: v.T, S: v.S[i]}
	case inValues:
		return v.V[i]
	}
	return types.Value{T: v.T, I: v.I[i]}
}

// set stores a boxed value in row i of a vector with n rows.
func (v *Vector) set(i int, x types.Value, n int) {
	if x.Null {
		v.setNull(i, n)
		return
	}
	switch v.storage() {
	case inFloats:
		v.F[i] = x.Float()
	case inStrings:
		v.S[i] = x.S
	case inValues:
		v.V[i] = x
	default:
		v.I[i] = x.I
	}
}

// storage says which slice holds a vector's values.
type storage uint8

const (
	inInts storage = iota
	inFloats
	inStrings
	inValues
)

func (v *Vector) storage() storage {
	if v.Lazy != nil {
		return inInts // row references
	}
	return storageOf(v.T)
}

// storageOf is where a vector of type t holds its values.
func storageOf(t types.Type) storage {
	switch {
	case t.Kind == types.KindFloat64:
		return inFloats
	case t.InS():
		return inStrings
	case t.Kind == types.KindArray || t.Kind == types.KindStruct || t.Kind == types.KindNull || t.Kind == types.KindInterval || t.Kind == types.KindRange:
		return inValues // an INTERVAL has three parts, a RANGE two bounds
	}
	return inInts
}

// gather copies rows idx of src into dst (allocated when nil).
func gather(src *Vector, idx []int32, dst *Vector) *Vector {
	if dst == nil {
		dst = &Vector{}
	}
	dst.T, dst.Lazy = src.T, src.Lazy
	n := len(idx)
	dst.resize(n)
	switch src.storage() {
	case inInts:
		for k, i := range idx {
			dst.I[k] = src.I[i]
		}
	case inFloats:
		for k, i := range idx {
			dst.F[k] = src.F[i]
		}
	case inStrings:
		for k, i := range idx {
			dst.S[k] = src.S[i]
		}
		if src.dict != nil {
			dst.codes = grow(dst.codes, n)
			for k, i := range idx {
				dst.codes[k] = src.codes[i]
			}
			dst.dict = src.dict
		}
	case inValues:
		for k, i := range idx {
			dst.V[k] = src.V[i]
		}
	}
	if src.Null != nil {
		dst.Null = make([]bool, n)
		for k, i := range idx {
			dst.Null[k] = src.Null[i]
		}
	}
	return dst
}

// materialize replaces the first n row references of a lazy vector by
// their values, in place.
func (v *Vector) materialize(n int) {
	if v.Lazy == nil {
		return
	}
	vals := v.lateValues(n)
	v.Lazy, v.I = nil, nil
	v.resize(n)
	for i, x := range vals {
		v.set(i, x, n)
	}
}

// constVector fills n rows with one value.
func constVector(x types.Value, n int) *Vector {
	v := &Vector{}
	fillConst(v, x, n)
	return v
}

// fillConst makes v n rows of x, reusing its storage.
func fillConst(v *Vector, x types.Value, n int) {
	v.T, v.Lazy = x.T, nil
	v.resize(n)
	if x.Null {
		// Zero values under the NULLs, as a new vector has: storage from
		// the pool holds another query's.
		clear(v.I)
		clear(v.F)
		clear(v.S)
		clear(v.V)
		for i := range v.freshNulls(n) {
			v.Null[i] = true
		}
		return
	}
	switch v.storage() {
	case inInts:
		for i := range v.I[:n] {
			v.I[i] = x.I
		}
	case inFloats:
		f := x.Float()
		for i := range v.F[:n] {
			v.F[i] = f
		}
	case inStrings:
		for i := range v.S[:n] {
			v.S[i] = x.S
		}
	default:
		for i := range v.V[:n] {
			v.V[i] = x
		}
	}
}

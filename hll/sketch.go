package hll

import (
	"errors"
	"slices"
)

// The precisions: HLL_COUNT.INIT takes a normal precision p of 10 to 24
// (15 by default); the sparse precision is p+5, at most 25. A sketch read
// from bytes may have any p from 4 (ZetaSQL's smallest).
const (
	MinPrecision       = 10
	MaxPrecision       = 24
	DefaultPrecision   = 15
	minReadPrecision   = 4
	maxSparsePrecision = 25
)

// ValueType is what a sketch counts, as the state records it (ZetaSQL's
// DefaultOpsType ids); sketches of different types do not merge.
type ValueType int32

const (
	AnyType   ValueType = 0  // not recorded: merges with any
	Integers  ValueType = 8  // INT64 (UINT64 in the proto)
	Integers3 ValueType = 7  // UINT32, read only
	Bytes     ValueType = 11 // STRING, BYTES, NUMERIC, BIGNUMERIC
)

// ErrIncompatible is a merge of sketches of different value types or of
// precisions neither of which is at least the other in both.
var ErrIncompatible = errors.New("incompatible sketches")

// Sketch is one HLL++ sketch. While sparse it keeps sorted, deduplicated
// sparse values and a buffer of unsorted ones (flushed into them when it
// passes a quarter of 2^p); once the encoded sparse values take three
// quarters of the 2^p bytes the registers would, it turns normal.
type Sketch struct {
	numValues int64
	vt        ValueType
	enc       encoding
	sparse    []uint32 // sorted, deduplicated
	sparseLen int      // their encoded size in bytes
	buf       map[uint32]struct{}
	normal    bool
	regs      []uint8 // the 2^p registers of a normal sketch; nil until one is set
}

// New returns an empty sketch of precision p (MinPrecision…MaxPrecision)
// counting values of type vt.
func New(p int, vt ValueType) *Sketch {
	return &Sketch{vt: vt, enc: newEncoding(p, min(p+5, maxSparsePrecision))}
}

// Precision is the sketch's normal precision p.
func (s *Sketch) Precision() int { return s.enc.p }

// MemSize is about how many bytes the sketch holds.
func (s *Sketch) MemSize() int {
	return 64 + len(s.regs) + 4*cap(s.sparse) + 48*len(s.buf)
}

// registers returns the registers of a normal sketch, made on first use.
func (s *Sketch) registers() []uint8 {
	if s.regs == nil {
		s.regs = make([]uint8, 1<<s.enc.p)
	}
	return s.regs
}

// AddHash counts a value by its 64-bit hash.
func (s *Sketch) AddHash(h uint64) {
	s.numValues++
	if s.normal {
		p := s.enc.p
		r := s.registers()
		r[h>>(64-p)] = max(r[h>>(64-p)], rhoW(h, 64-p))
		return
	}
	s.addSparse(s.enc.hashValue(h))
}

func (s *Sketch) addSparse(v uint32) {
	if s.buf == nil {
		s.buf = map[uint32]struct{}{}
	}
	s.buf[v] = struct{}{}
	s.settle()
}

// settle flushes the buffer when it is past its share and turns the sketch
// normal when the sparse values are past theirs, at the moments ZetaSQL
// does, so that a sketch's bytes are ZetaSQL's.
func (s *Sketch) settle() {
	if len(s.buf) > (1<<s.enc.p)/4 {
		s.flush()
	}
	s.normalizeIfFull()
}

// normalizeIfFull turns a sparse sketch normal once its encoded values take
// three quarters of 2^p bytes.
func (s *Sketch) normalizeIfFull() {
	if !s.normal && s.sparseLen >= (1<<s.enc.p)*3/4 {
		s.normalize()
	}
}

// flush merges the buffer into the sorted sparse values.
func (s *Sketch) flush() {
	if len(s.buf) == 0 {
		return
	}
	b := make([]uint32, 0, len(s.buf))
	for v := range s.buf {
		b = append(b, v)
	}
	clear(s.buf)
	slices.Sort(b)
	s.setSparse(mergeSorted(s.sparse, b))
}

// mergeSorted merges two sorted lists, keeping repeats (dedupe drops them).
func mergeSorted(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// setSparse makes sorted values, deduplicated, the sparse values.
func (s *Sketch) setSparse(sorted []uint32) {
	s.sparse = s.enc.dedupe(sorted)
	s.sparseLen = 0
	var last uint32
	for _, v := range s.sparse {
		s.sparseLen += varintLen(uint64(v - last))
		last = v
	}
}

// values is every sparse value, the buffer's included, sorted, with
// repeats; it may be the sketch's own slice (read only).
func (s *Sketch) values() []uint32 {
	if len(s.buf) == 0 {
		return s.sparse
	}
	b := make([]uint32, 0, len(s.buf))
	for v := range s.buf {
		b = append(b, v)
	}
	slices.Sort(b)
	return mergeSorted(s.sparse, b)
}

// normalize turns a sparse sketch into its registers.
func (s *Sketch) normalize() {
	vs := s.values()
	s.normal = true
	if len(vs) > 0 {
		s.registers()
	}
	for _, v := range vs {
		s.setRegister(s.enc, v)
	}
	s.sparse, s.sparseLen, s.buf = nil, 0, nil
}

// setRegister raises a register by a sparse value of encoding e, whose
// normal precision is at least the sketch's.
func (s *Sketch) setRegister(e encoding, v uint32) {
	idx, rho := e.normalIndex(v), e.normalRho(v)
	if e.p > s.enc.p {
		rho = downgradeRho(idx, rho, e.p, s.enc.p)
		idx >>= e.p - s.enc.p
	}
	r := s.registers()
	r[idx] = max(r[idx], rho)
}

// downgradeNormal lowers a normal sketch's precisions to at most p and sp.
func (s *Sketch) downgradeNormal(p, sp int) {
	if p < s.enc.p && s.regs != nil {
		old, from := s.regs, s.enc.p
		s.regs = make([]uint8, 1<<p)
		for i, rho := range old {
			if rho == 0 {
				continue
			}
			j := uint32(i) >> (from - p)
			s.regs[j] = max(s.regs[j], downgradeRho(uint32(i), rho, from, p))
		}
	}
	s.enc = newEncoding(min(s.enc.p, p), min(s.enc.sp, sp))
}

// downgradeSparse re-encodes a sparse sketch at the precisions of t, which
// are at most its own; the values go in one by one, as added values do.
func (s *Sketch) downgradeSparse(t encoding) {
	old, vs := s.enc, s.values()
	s.enc, s.sparse, s.sparseLen, s.buf = t, nil, 0, nil
	for _, v := range vs {
		s.add(old, v)
	}
}

// add counts one sparse value of encoding e (at least the sketch's).
func (s *Sketch) add(e encoding, v uint32) {
	if s.normal {
		s.setRegister(e, v)
		return
	}
	if e != s.enc {
		v = e.downgrade(v, s.enc)
	}
	s.addSparse(v)
}

// Merge folds o into s (o is not changed): the union of what both counted.
// Sketches of different value types, or sparse sketches neither of whose
// precisions is at least the other's in both, are ErrIncompatible; the
// result has the smaller precisions.
func (s *Sketch) Merge(o *Sketch) error {
	vt := s.vt
	switch {
	case o.vt == AnyType:
	case vt == AnyType:
		vt = o.vt
	case vt != o.vt:
		return ErrIncompatible
	}
	if !s.normal && !o.normal && !s.enc.compatible(o.enc) {
		return ErrIncompatible
	}
	s.vt = vt
	s.numValues += o.numValues
	if !s.normal && !o.normal {
		s.mergeSparse(o)
		return nil
	}
	if !s.normal {
		s.normalize()
	}
	s.downgradeNormal(o.enc.p, o.enc.sp)
	if !o.normal {
		for _, v := range o.values() {
			s.setRegister(o.enc, v)
		}
		return nil
	}
	for i, rho := range o.regs {
		if rho != 0 {
			j, r := uint32(i), rho
			if o.enc.p > s.enc.p {
				j, r = j>>(o.enc.p-s.enc.p), downgradeRho(j, rho, o.enc.p, s.enc.p)
			}
			regs := s.registers()
			regs[j] = max(regs[j], r)
		}
	}
	return nil
}

func (s *Sketch) mergeSparse(o *Sketch) {
	if o.enc.less(s.enc) {
		s.downgradeSparse(newEncoding(min(s.enc.p, o.enc.p), min(s.enc.sp, o.enc.sp)))
	}
	if s.normal || s.enc != o.enc {
		// Downgraded values lose their order: one by one.
		for _, v := range o.values() {
			s.add(o.enc, v)
		}
		return
	}
	// The same encodings: both lists merged in one pass, as ZetaSQL does,
	// then the size checked.
	s.flush()
	s.setSparse(mergeSorted(s.sparse, o.values()))
	s.normalizeIfFull()
}

package hll

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"logq/protofields"
)

// The fields of AggregatorStateProto's extension 112,
// HyperLogLogPlusUniqueStateProto, that a sketch reads and writes (the
// envelope is protofields.AggregatorState).
const (
	fieldSparseSize      = 2
	fieldPrecision       = 3
	fieldSparsePrecision = 4
	fieldData            = 5
	fieldSparseData      = 6

	typeHLLPlusUnique = 112
	encodingVersion   = 2
)

func varintLen(v uint64) int { return protowire.SizeVarint(v) }

// Bytes serializes the sketch as ZetaSQL does: the fields in order, the
// defaults (encoding version 1, value type 0, zero sizes) left out.
func (s *Sketch) Bytes() []byte { return s.BytesAs(AnyType) }

// BytesAs is Bytes with vt written as the value type when the sketch
// records none. Serializing compacts the sketch, as ZetaSQL's does: the
// buffer is flushed and a sparse sketch past its share turns normal.
func (s *Sketch) BytesAs(vt ValueType) []byte {
	s.flush()
	s.normalizeIfFull()
	if s.vt != AnyType {
		vt = s.vt
	}
	var h []byte
	if len(s.sparse) > 0 {
		h = protowire.AppendTag(h, fieldSparseSize, protowire.VarintType)
		h = protowire.AppendVarint(h, uint64(len(s.sparse)))
	}
	h = protowire.AppendTag(h, fieldPrecision, protowire.VarintType)
	h = protowire.AppendVarint(h, uint64(s.enc.p))
	if s.enc.sp != 0 {
		h = protowire.AppendTag(h, fieldSparsePrecision, protowire.VarintType)
		h = protowire.AppendVarint(h, uint64(s.enc.sp))
	}
	switch {
	case s.normal && s.regs != nil:
		h = protowire.AppendTag(h, fieldData, protowire.BytesType)
		h = protowire.AppendBytes(h, s.regs)
	case len(s.sparse) > 0:
		var d []byte
		var last uint32
		for _, v := range s.sparse {
			d = protowire.AppendVarint(d, uint64(v-last))
			last = v
		}
		h = protowire.AppendTag(h, fieldSparseData, protowire.BytesType)
		h = protowire.AppendBytes(h, d)
	}
	return protofields.AppendAggregatorState(nil, protofields.AggregatorState{
		Type: typeHLLPlusUnique, NumValues: uint64(s.numValues), EncodingVersion: encodingVersion,
		ValueType: uint64(vt), Ext: h})
}

// ValueType is what the sketch counts.
func (s *Sketch) ValueType() ValueType { return s.vt }

// Parse reads a serialized sketch. Anything but a well-formed HLL++ state
// of encoding version 2 is an error; unknown fields are skipped.
func Parse(b []byte) (*Sketch, error) {
	st, err := protofields.ParseAggregatorState(b, typeHLLPlusUnique)
	if err != nil {
		return nil, err
	}
	var (
		p, sp            uint64
		data, sparseData []byte
		sawData          bool
	)
	err = protofields.Each(st.Ext, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
		switch {
		case num == fieldPrecision && !isBytes:
			p = v
		case num == fieldSparsePrecision && !isBytes:
			sp = v
		case num == fieldData && isBytes:
			data, sawData = raw, true
		case num == fieldSparseData && isBytes:
			sparseData = raw
		}
		return nil
	})
	typ, version, numValues, vt := st.Type, st.EncodingVersion, st.NumValues, st.ValueType
	switch {
	case err != nil:
		return nil, err
	case typ != typeHLLPlusUnique || !st.HasNumValues || !st.HasExt:
		return nil, errors.New("not an HLL++ sketch")
	case version != encodingVersion:
		return nil, fmt.Errorf("encoding version %d, not %d", version, encodingVersion)
	case vt != uint64(AnyType) && vt != uint64(Integers) && vt != uint64(Integers3) && vt != uint64(Bytes):
		return nil, fmt.Errorf("value type %d", vt)
	case p < minReadPrecision || p > MaxPrecision:
		return nil, fmt.Errorf("precision %d", p)
	case sp != 0 && (sp < p || sp > maxSparsePrecision):
		return nil, fmt.Errorf("sparse precision %d", sp)
	}
	s := &Sketch{numValues: int64(numValues), vt: ValueType(vt), enc: newEncoding(int(p), int(sp))}
	if sawData || sp == 0 {
		s.normal = true
		if !sawData {
			return s, nil // no registers set yet: they are made when one is
		}
		if len(data) != 1<<p {
			return nil, fmt.Errorf("%d registers, not %d", len(data), 1<<p)
		}
		s.regs = make([]uint8, 1<<p)
		for i, r := range data {
			if int(r) > 64-int(p)+1 {
				return nil, fmt.Errorf("register %d is %d", i, r)
			}
			s.regs[i] = r
		}
		return s, nil
	}
	var last uint64
	limit := uint64(s.enc.flag) << 1
	for len(sparseData) > 0 {
		d, n := protowire.ConsumeVarint(sparseData)
		if n < 0 {
			return nil, errors.New("truncated sparse data")
		}
		sparseData = sparseData[n:]
		if d >= limit-last || (len(s.sparse) > 0 && d == 0) {
			return nil, errors.New("sparse values out of order or range") // deltas are positive and small
		}
		if last += d; !s.enc.valid(uint32(last)) {
			return nil, fmt.Errorf("sparse value %d", last)
		}
		s.sparse = append(s.sparse, uint32(last))
	}
	s.setSparse(s.sparse)
	return s, nil
}

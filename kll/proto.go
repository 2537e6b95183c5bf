package kll

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"logq/protofields"
)

// The fields of AggregatorStateProto's extension 113,
// KllQuantilesStateProto (with its Compactor and Sampler), that a sketch
// reads and writes (the envelope is protofields.AggregatorState).
const (
	fieldK          = 1
	fieldInvEps     = 2
	fieldMin        = 3
	fieldMax        = 4
	fieldCompactors = 5
	fieldSampler    = 6

	fieldPacked      = 1 // Compactor.packed_values
	fieldDiffEncoded = 2 // Compactor.diff_encoded_packed_values
	fieldOther       = 3 // Compactor.other_values (NonPackableValues.values = 1)

	fieldSampledItem   = 1
	fieldSampledWeight = 2
	fieldLogCapacity   = 3

	typeKLLQuantiles = 113
)

// appendValue appends one value in the sketch's encoding: an INT64 as the
// varint of its two's complement (not zigzag), a FLOAT64 as its 8
// little-endian IEEE 754 bytes.
func (s *Sketch) appendValue(b []byte, k Key) []byte {
	if s.vt == Float64 {
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(k.Float64()))
	}
	return protowire.AppendVarint(b, uint64(k.Int64()))
}

// Bytes serializes the sketch as BigQuery does: type 113, num_values, the
// value type, and the extension's k, inv_eps, min, max, one compactor per
// level (packed values, sorted) and the sampler when there is one. An
// empty sketch writes k and inv_eps only. It sorts the levels in place.
func (s *Sketch) Bytes() []byte {
	var e []byte
	e = protowire.AppendTag(e, fieldK, protowire.VarintType)
	e = protowire.AppendVarint(e, uint64(s.k))
	e = protowire.AppendTag(e, fieldInvEps, protowire.VarintType)
	e = protowire.AppendVarint(e, uint64(s.invEps))
	if s.n > 0 {
		e = protowire.AppendTag(e, fieldMin, protowire.BytesType)
		e = protowire.AppendBytes(e, s.appendValue(nil, s.min))
		e = protowire.AppendTag(e, fieldMax, protowire.BytesType)
		e = protowire.AppendBytes(e, s.appendValue(nil, s.max))
		var packed, c []byte
		for _, l := range s.levels {
			slices.Sort(l)
			packed = packed[:0]
			for _, v := range l {
				packed = s.appendValue(packed, v)
			}
			c = protowire.AppendTag(c[:0], fieldPacked, protowire.BytesType)
			c = protowire.AppendBytes(c, packed)
			e = protowire.AppendTag(e, fieldCompactors, protowire.BytesType)
			e = protowire.AppendBytes(e, c)
		}
		if s.lal > 0 {
			var sm []byte
			if s.sampleW > 0 {
				sm = protowire.AppendTag(sm, fieldSampledItem, protowire.BytesType)
				sm = protowire.AppendBytes(sm, s.appendValue(nil, s.sample))
				sm = protowire.AppendTag(sm, fieldSampledWeight, protowire.VarintType)
				sm = protowire.AppendVarint(sm, uint64(s.sampleW))
			}
			sm = protowire.AppendTag(sm, fieldLogCapacity, protowire.VarintType)
			sm = protowire.AppendVarint(sm, uint64(s.lal))
			e = protowire.AppendTag(e, fieldSampler, protowire.BytesType)
			e = protowire.AppendBytes(e, sm)
		}
	}
	return protofields.AppendAggregatorState(nil, protofields.AggregatorState{
		Type: typeKLLQuantiles, NumValues: uint64(s.n), EncodingVersion: 1, ValueType: uint64(s.vt), Ext: e})
}

// decoder reads the values of one value type.
type decoder ValueType

// one decodes a field holding exactly one value.
func (d decoder) one(b []byte) (Key, error) {
	k, n, err := d.next(b)
	if err == nil && n != len(b) {
		err = errors.New("a value field holds more than one value")
	}
	return k, err
}

// next decodes the value b starts with and its length.
func (d decoder) next(b []byte) (Key, int, error) {
	if ValueType(d) == Float64 {
		if len(b) < 8 {
			return 0, 0, errors.New("a FLOAT64 value is not 8 bytes")
		}
		return FloatKey(math.Float64frombits(binary.LittleEndian.Uint64(b))), 8, nil
	}
	v, n := protowire.ConsumeVarint(b)
	if n < 0 {
		return 0, 0, errors.New("a malformed INT64 varint")
	}
	return IntKey(int64(v)), n, nil
}

// packed decodes concatenated values.
func (d decoder) packed(b []byte) ([]Key, error) {
	var out []Key
	for len(b) > 0 {
		k, n, err := d.next(b)
		if err != nil {
			return nil, err
		}
		out = append(out, k)
		b = b[n:]
	}
	return out, nil
}

// diffEncoded decodes sorted INT64s written as the first and the
// differences to each next.
func (d decoder) diffEncoded(b []byte) ([]Key, error) {
	if ValueType(d) != Int64 {
		return nil, errors.New("difference-encoded values that are not INT64")
	}
	var out []Key
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return nil, errors.New("a malformed varint")
		}
		b = b[n:]
		if len(out) == 0 {
			out = append(out, IntKey(int64(v)))
			continue
		}
		last := out[len(out)-1]
		if v > math.MaxUint64-uint64(last) {
			return nil, errors.New("difference-encoded values past INT64")
		}
		out = append(out, last+Key(v))
	}
	return out, nil
}

// compactor decodes one Compactor: the oneof's last field set wins, and
// repeated other_values merge.
func (d decoder) compactor(b []byte) ([]Key, error) {
	var out []Key
	err := protofields.Each(b, func(num protowire.Number, _ uint64, raw []byte, isBytes bool) error {
		if !isBytes {
			return nil
		}
		var err error
		switch num {
		case fieldPacked:
			out, err = d.packed(raw)
		case fieldDiffEncoded:
			out, err = d.diffEncoded(raw)
		case fieldOther:
			err = protofields.Each(raw, func(num protowire.Number, _ uint64, raw []byte, isBytes bool) error {
				if num != 1 || !isBytes {
					return nil
				}
				k, err := d.one(raw)
				out = append(out, k)
				return err
			})
		}
		return err
	})
	return out, err
}

// Parse reads a serialized sketch: an AggregatorStateProto of type
// KLL_QUANTILES (113) of INT64 or FLOAT64 values whose extension 113 is
// well formed and consistent (a precision of 1 to 100000, levels whose
// items lie between min and max, a sampler below its capacity, a count
// that agrees with them). Anything else is an error; unknown fields are
// skipped, and a message given twice merges as protobuf merges it.
func Parse(b []byte) (*Sketch, error) {
	st, err := protofields.ParseAggregatorState(b, typeKLLQuantiles)
	typ, version, numValues, vt, ext := st.Type, st.EncodingVersion, st.NumValues, st.ValueType, st.Ext
	switch {
	case err != nil:
		return nil, err
	case typ != typeKLLQuantiles || !st.HasNumValues || !st.HasExt:
		return nil, errors.New("not a KLL quantiles sketch")
	case version != 1:
		return nil, fmt.Errorf("encoding version %d, not 1", version)
	case vt != uint64(Int64) && vt != uint64(Float64):
		return nil, fmt.Errorf("value type %d (only INT64, 4, and FLOAT64, 10, are read)", vt)
	case numValues > maxTotal:
		return nil, fmt.Errorf("num_values %d", int64(numValues))
	}
	s := &Sketch{vt: ValueType(vt), n: int64(numValues), rng: seed}
	d := decoder(vt)
	var (
		k, invEps                       uint64
		minB, maxB, sampler             []byte
		sawK, sawInvEps, sawMin, sawMax bool
	)
	err = protofields.Each(ext, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
		switch {
		case num == fieldK && !isBytes:
			k, sawK = v, true
		case num == fieldInvEps && !isBytes:
			invEps, sawInvEps = v, true
		case num == fieldMin && isBytes:
			minB, sawMin = raw, true
		case num == fieldMax && isBytes:
			maxB, sawMax = raw, true
		case num == fieldCompactors && isBytes:
			if len(s.levels) >= maxLevels {
				return fmt.Errorf("more than %d compactors", maxLevels)
			}
			l, err := d.compactor(raw)
			if err != nil {
				return fmt.Errorf("compactor %d: %w", len(s.levels), err)
			}
			s.levels = append(s.levels, l)
		case num == fieldSampler && isBytes:
			sampler = append(sampler, raw...)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case !sawK || k < minK || k > maxK:
		return nil, fmt.Errorf("k %d", k)
	case !sawInvEps || invEps < MinPrecision || invEps > MaxPrecision:
		return nil, fmt.Errorf("inv_eps (precision) %d", invEps)
	}
	s.k, s.invEps = int(k), int64(invEps)
	if len(s.levels) == 0 {
		s.levels = [][]Key{nil}
	}
	if sampler != nil {
		if err := s.parseSampler(d, sampler); err != nil {
			return nil, err
		}
	}
	if err := s.check(d, minB, maxB, sawMin, sawMax); err != nil {
		return nil, err
	}
	s.restructure(false)
	return s, nil
}

// parseSampler reads the Sampler message.
func (s *Sketch) parseSampler(d decoder, b []byte) error {
	var (
		item          []byte
		sawItem       bool
		weight, logCp uint64
	)
	err := protofields.Each(b, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
		switch {
		case num == fieldSampledItem && isBytes:
			item, sawItem = raw, true
		case num == fieldSampledWeight && !isBytes:
			weight = v
		case num == fieldLogCapacity && !isBytes:
			logCp = v
		}
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("sampler: %w", err)
	case logCp >= maxLevels:
		return fmt.Errorf("sampler capacity 2^%d", logCp)
	case weight >= 1<<logCp:
		return fmt.Errorf("sampled weight %d at capacity 2^%d", weight, logCp)
	case weight > 0 && !sawItem:
		return errors.New("sampled weight without a sampled item")
	}
	s.lal, s.sampleW = int(logCp), int64(weight)
	if weight > 0 {
		k, err := d.one(item)
		if err != nil {
			return fmt.Errorf("sampled item: %w", err)
		}
		s.sample = k
	}
	return nil
}

// check reads min and max and checks that the count, the levels and the
// sampler agree.
func (s *Sketch) check(d decoder, minB, maxB []byte, sawMin, sawMax bool) error {
	stored := s.storedWeight()
	switch {
	case stored > maxTotal:
		return errors.New("the items' weight passes 2^62")
	case (s.n == 0) != (stored == 0):
		return fmt.Errorf("num_values %d, but the items weigh %d", s.n, stored)
	case s.n == 0:
		return nil // empty: min and max mean nothing
	case !sawMin || !sawMax:
		return errors.New("no min or max")
	case s.Exact() && int64(len(s.levels[0])) != s.n:
		return fmt.Errorf("num_values %d, but %d values are kept exactly", s.n, len(s.levels[0]))
	}
	var err error
	if s.min, err = d.one(minB); err != nil {
		return fmt.Errorf("min: %w", err)
	}
	if s.max, err = d.one(maxB); err != nil {
		return fmt.Errorf("max: %w", err)
	}
	if s.min > s.max {
		return errors.New("min above max")
	}
	out := func(k Key) bool { return k < s.min || k > s.max }
	for _, l := range s.levels {
		if slices.ContainsFunc(l, out) {
			return errors.New("a value outside min … max")
		}
	}
	if s.sampleW > 0 && out(s.sample) {
		return errors.New("the sampled item outside min … max")
	}
	return nil
}

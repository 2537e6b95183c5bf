package protofields

import "google.golang.org/protobuf/encoding/protowire"

// The fields of ZetaSQL's AggregatorStateProto, the envelope every sketch
// (HLL++, KLL quantiles) is serialized in; the sketch itself is an
// extension whose field number is also the envelope's type.
const (
	fieldType            = 1
	fieldNumValues       = 2
	fieldEncodingVersion = 3
	fieldValueType       = 4
)

// AggregatorState is an AggregatorStateProto: the sketch's type, how many
// values it saw, its encoding version and value type, and the bytes of its
// extension.
type AggregatorState struct {
	Type            uint64
	NumValues       uint64
	HasNumValues    bool
	EncodingVersion uint64 // 1 when absent, the proto's default
	ValueType       uint64 // 0 when absent
	// Ext holds the fields of the extension numbered Type, every occurrence
	// of it one after the other (protobuf merges a message given twice as
	// its fields read in order), and HasExt whether there was one.
	Ext    []byte
	HasExt bool
}

// AppendAggregatorState appends s as ZetaSQL writes it: type, num_values,
// the encoding version unless it is the default 1, the value type unless
// it is 0, then the extension.
func AppendAggregatorState(b []byte, s AggregatorState) []byte {
	b = protowire.AppendTag(b, fieldType, protowire.VarintType)
	b = protowire.AppendVarint(b, s.Type)
	b = protowire.AppendTag(b, fieldNumValues, protowire.VarintType)
	b = protowire.AppendVarint(b, s.NumValues)
	if s.EncodingVersion != 1 {
		b = protowire.AppendTag(b, fieldEncodingVersion, protowire.VarintType)
		b = protowire.AppendVarint(b, s.EncodingVersion)
	}
	if s.ValueType != 0 {
		b = protowire.AppendTag(b, fieldValueType, protowire.VarintType)
		b = protowire.AppendVarint(b, s.ValueType)
	}
	b = protowire.AppendTag(b, protowire.Number(s.Type), protowire.BytesType)
	return protowire.AppendBytes(b, s.Ext)
}

// ParseAggregatorState reads an AggregatorStateProto whose extension is
// field ext (the caller's sketch type; whether Type agrees is the caller's
// to check). Unknown fields are skipped; a malformed message is an error.
func ParseAggregatorState(b []byte, ext protowire.Number) (AggregatorState, error) {
	s := AggregatorState{EncodingVersion: 1}
	err := Each(b, func(num protowire.Number, v uint64, raw []byte, isBytes bool) error {
		switch {
		case num == fieldType && !isBytes:
			s.Type = v
		case num == fieldNumValues && !isBytes:
			s.NumValues, s.HasNumValues = v, true
		case num == fieldEncodingVersion && !isBytes:
			s.EncodingVersion = v
		case num == fieldValueType && !isBytes:
			s.ValueType = v
		case num == ext && isBytes:
			// Each occurrence must be whole on its own: joined, a field cut
			// short in one would be completed by the next.
			if err := Each(raw, func(protowire.Number, uint64, []byte, bool) error { return nil }); err != nil {
				return err
			}
			s.Ext, s.HasExt = append(s.Ext, raw...), true
		}
		return nil
	})
	return s, err
}

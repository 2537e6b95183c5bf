// Package protofields walks the fields of a serialized protobuf message
// without its generated code: the HLL++ sketches (package hll), the KLL
// quantile sketches (package kll) and the Tink keysets (package aead) are read
// field by field with it (Each). aggregator_state.go reads and writes the
// envelope ZetaSQL wraps every sketch in, AggregatorStateProto, defined here
// once for hll and kll.
package protofields

import "google.golang.org/protobuf/encoding/protowire"

// Each calls f with each varint field (its value in v) and each
// length-delimited field (its bytes in raw, isBytes true) of message b, in
// order; fields of other wire types are skipped. A malformed message, or an
// error from f, ends the walk with that error.
func Each(b []byte, f func(num protowire.Number, v uint64, raw []byte, isBytes bool) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var raw []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			raw, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.VarintType || typ == protowire.BytesType {
			if err := f(num, v, raw, typ == protowire.BytesType); err != nil {
				return err
			}
		}
	}
	return nil
}

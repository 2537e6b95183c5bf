// Package hll is the HyperLogLog++ cardinality sketch of BigQuery's
// HLL_COUNT functions (Heule, Nunkesser and Hall, "HyperLogLog in
// Practice", 2013), kept and serialized as ZetaSQL and BigQuery keep it: an
// AggregatorStateProto of type HYPERLOGLOG_PLUS_UNIQUE (112), encoding
// version 2, whose extension 112 holds the precisions and either the sparse
// data (difference-encoded varints of the sparse values) or the 2^p
// registers. A sketch BigQuery wrote can be read, merged and extracted here,
// and merging two sketches gives the bytes ZetaSQL's reference
// implementation gives.
//
// The hash is BigQuery's: Fingerprint2011 of an INT64's 8 little-endian
// bytes, or of a STRING's (UTF-8) or BYTES' bytes; INIT over the example
// of BigQuery's documentation gives the bytes it prints. So sketches move
// between logq and BigQuery both ways. NUMERIC and BIGNUMERIC are hashed
// by their canonical text, which is logq's own: such sketches are not
// BigQuery's.
//
// The estimate follows HLL++ where its rules are exact: linear counting over
// the 2^sp buckets while the sketch is sparse, and over the registers below
// HLL++'s thresholds. Above them HLL++ subtracts an empirically measured bias
// that logq does not carry; logq uses Ertl's improved estimator ("New
// cardinality estimation algorithms for HyperLogLog sketches", 2017), which
// needs no tables and is unbiased over the whole range. Large counts can
// therefore differ from BigQuery's in the last digits: both are estimates
// with the same standard error, 1.04/√(2^p).
package hll

// Package kll is the KLL quantiles sketch of BigQuery's KLL_QUANTILES
// functions (Karnin, Lang and Liberty, "Optimal Quantile Approximation in
// Streams", 2016), kept and serialized as Google keeps it. It owns the
// sketch (New, Add, Merge), its serialized form (Bytes, Parse) and the
// reading of quantiles (Quantiles, Quantile); the SQL functions are
// sqlfunc's (funcs_kll.go), the aggregate states exec's (op_agg_kll.go).
//
// # Format
//
// A sketch is a zetasketch AggregatorStateProto: type 113 (KLL_QUANTILES),
// num_values (the inputs' total weight), value_type 4 (INT64) or 10
// (DOUBLE, for FLOAT64), no encoding_version (1), and the extension 113,
// a KllQuantilesStateProto: k (the top level's capacity), inv_eps (the
// SQL precision), min and max (exact), one Compactor per level (level h
// holds items that stand for 2^h inputs each; its values sorted, written
// as packed_values, an empty level as an empty packed_values), and a
// Sampler (sampled_item, sampled_weight, log_capacity) once levels are
// sampled. An INT64 value is the varint of its two's complement (not
// zigzag: a negative one takes 10 bytes); a FLOAT64 value its 8
// little-endian IEEE 754 bytes. A sketch of nothing writes k and inv_eps
// only. Bytes writes the fields in that order; INIT over BigQuery's
// documented example (1…5 at precision 1000) and MERGE_PARTIAL of its two
// documented sketches give the bytes the documentation prints (kll_test.go).
//
// Parse also reads the other encodings a Compactor may use
// (diff_encoded_packed_values for INT64, other_values), skips unknown
// fields and merges a message given twice as protobuf does. Anything else
// is an error, never a panic (FuzzParse): another type (an HLL sketch),
// another value type (UINT64's 8 is not read), a k outside 4 … 2^22, an
// inv_eps outside 1 … 100000, more than 63 levels, a total weight past
// 2^62, a sampler at or past its capacity, min above max or a value
// outside them, a num_values that disagrees with the items (0 with items,
// or an exact sketch whose count is not its number of values).
//
// # Algorithm
//
// As Google's implementation (the open "libkll" of Android's StatsD, which
// is compatible with Google's internal library: compactor_stack.cpp,
// sampler.cpp, kll.cpp there): k =
// 2^round(log2(inv_eps·√log2(1/δ))) with δ = 10^-5 (precision 1 → 4, 10
// → 32, 100 → 512, 1000 → 4096, 10000 → 32768, 100000 → 524288). With L
// levels, level h's capacity is ⌈(2/3)^(L−h−1)·k⌉; when the stack holds as
// many items as the capacities' sum, the lowest level past its capacity is
// sorted and halved: the items at even or at odd positions, at random,
// move up a level, the others are dropped. A level whose capacity would be
// 2 or less is replaced by a sampler, a reservoir of one item standing for
// up to 2^lal inputs. A weighted input goes to the levels of its weight's
// set bits (and the sampler below them). Min, max and num_values are kept
// exactly.
//
// Quantiles sorts the stored items (weighted 2^h, the sampled one by its
// weight) and returns the exact min, the items of ranks ⌈i·W/q⌉ (i = 1 …
// q−1, W the items' total weight, computed in 128 bits) and the exact max;
// Quantile(phi) the min for 0, the max for 1, else the item of rank
// ⌈phi·W⌉. These are the rules every documented example follows.
//
// # What is exact
//
// A sketch whose level 0 never reached k items holds every input: up to
// k−1 inputs of weight 1 (4095 at the default precision 1000, 31 at
// precision 10), and the merge of exact sketches that still fits. Its
// quantiles are the exact ones (rank ⌈phi·n⌉) and its bytes are
// deterministic (the values sorted), which is why every documented example
// gives the documented answer. Past that, the rank of an answer is within
// n/precision of the exact rank with probability 1−δ. Measured over a
// million distinct values (TestRankError, q = 1000, every quantile), the
// worst rank error was 0.10–0.25/precision at precision 100, 0.17–0.41 at
// 1000 and 0.11–0.37 at 10000 (shuffled, ascending and descending input,
// and 16 merged sketches), keeping about 1500, 11600 and 80000 values
// (17 KB, 166 KB and 1.1 MB of memory);
// ten million values at precision 10, through the sampler, 0.26/precision
// with 92 values kept. The tests require 1/precision.
//
// # Differences from BigQuery
//
// These are logq's choices where BigQuery's behaviour is not public:
//
//   - The coin of each halving and the sampler's draws come from a
//     pseudo-random sequence with a fixed seed (splitmix64), not from a
//     random device as in Google's implementation: logq's sketches are
//     reproducible. BigQuery says its sketches of the same data may
//     differ; both are KLL sketches with the same error bound.
//   - Merging (not public): a sketch that is exact is added to the other
//     input by input; two exact sketches merge into the one of the higher
//     precision, and a merge that stays exact keeps that precision
//     (BigQuery: "the mergee's precision is maintained"). Any other merge
//     takes the lower precision and k of the two (BigQuery: "downgraded to
//     the lowest precision involved"), and two compacted sketches merge
//     level by level (the sampled item added with its weight), then
//     compact to the merged capacities. So an exact sketch of a low
//     precision merged into an exact one of a higher precision that both
//     fit is forgotten, as its data was exact.
//   - A FLOAT64 value is written as its 8 little-endian bytes, the
//     encoding of zetasketch's DefaultOps<double>; no FLOAT64 sketch of
//     BigQuery's has been seen to confirm it. Every NaN is one value,
//     written as the quiet NaN 0x7ff8000000000000.
//   - Quantile ranks count W, the weight the stored items stand for, which
//     equals num_values while the sketch is exact and may differ from it by
//     a few halvings' rounding after.
//   - An empty sketch (num_values 0) has no quantiles: EXTRACT of it is
//     NULL.
//   - An empty level is written as a Compactor holding an empty
//     packed_values (0a 00), as libkll writes it.
//
// And at the SQL level (sqlfunc, exec):
//
//   - The _FLOAT64 names are registered (BigQuery's); ZetaSQL's _DOUBLE
//     and _UINT64 forms are not.
//   - INIT over no rows, or over only NULL values, is NULL (as HLL_COUNT.INIT
//     and MERGE_PARTIAL; BigQuery does not document it). A row whose weight
//     is NULL is skipped, as one whose value is; a weight outside 1 …
//     2^31−1 is an error ("The weight of KLL_QUANTILES.INIT_INT64 must be
//     between 1 and 2147483647, not 0"). The weight is taken by name
//     (weight => w) as in BigQuery, but a third positional argument is
//     taken as the weight too.
//   - Argument errors use ZetaSQL's words where ZetaSQL has them ("Argument 2
//     to KLL_QUANTILES.MERGE_INT64 must be at least 1", "… must be between 0
//     and 1", "… must be non-NULL", "… must be a literal or query
//     parameter"); BigQuery's own limits get the same form ("… must be
//     between 1 and 100000" for the precision, "… must be at most 100000"
//     for num_quantiles). A query parameter is given as CAST(@p AS INT64)
//     (logq's parameters are STRINGs).
//   - BigQuery's texts for a sketch that is not one, or of the other type,
//     are not public: logq's are "Invalid sketch in
//     KLL_QUANTILES.EXTRACT_INT64: <why>", "KLL_QUANTILES.EXTRACT_INT64
//     needs a sketch of INT64 values, not one of FLOAT64 values (made by
//     KLL_QUANTILES.INIT_FLOAT64)" and "KLL_QUANTILES.MERGE_PARTIAL cannot
//     merge a sketch of INT64 values with one of FLOAT64 values".
//
// This package imports logq/protofields, google.golang.org/protobuf's
// protowire and the standard library.
package kll

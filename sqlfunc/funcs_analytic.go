package sqlfunc

import "logq/expr"

func init() {
	for _, a := range []*expr.Analytic{
		{Name: "row_number", Args: expr.NumberingInt64},
		{Name: "rank", NeedsOrder: true, Args: expr.NumberingInt64},
		{Name: "dense_rank", NeedsOrder: true, Args: expr.NumberingInt64},
		{Name: "percent_rank", NeedsOrder: true, Args: expr.NumberingFloat64},
		{Name: "cume_dist", NeedsOrder: true, Args: expr.NumberingFloat64},
		{Name: "ntile", MinArgs: 1, MaxArgs: 1, NeedsOrder: true, Args: expr.BucketCount},
		{Name: "percentile_cont", MinArgs: 2, MaxArgs: 2, NoOrder: true, IgnoreNulls: true, RespectNulls: true, Args: expr.Percentile},
		{Name: "percentile_disc", MinArgs: 2, MaxArgs: 2, NoOrder: true, IgnoreNulls: true, RespectNulls: true, Args: expr.Percentile},
		{Name: "lag", MinArgs: 1, MaxArgs: 3, NeedsOrder: true, RespectNulls: true, Args: expr.Navigation, PassesCollation: true},
		{Name: "lead", MinArgs: 1, MaxArgs: 3, NeedsOrder: true, RespectNulls: true, Args: expr.Navigation, PassesCollation: true},
		{Name: "first_value", MinArgs: 1, MaxArgs: 1, NeedsOrder: true, Framed: true, IgnoreNulls: true, RespectNulls: true, Args: expr.ValueArg, PassesCollation: true},
		{Name: "last_value", MinArgs: 1, MaxArgs: 1, NeedsOrder: true, Framed: true, IgnoreNulls: true, RespectNulls: true, Args: expr.ValueArg, PassesCollation: true},
		{Name: "nth_value", MinArgs: 2, MaxArgs: 2, NeedsOrder: true, Framed: true, IgnoreNulls: true, RespectNulls: true, Args: expr.NthValue, PassesCollation: true},
	} {
		expr.RegisterAnalytic(a)
	}
}

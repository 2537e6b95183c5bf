package api

import (
	"slices"
	"strconv"

	"logq/exec"
	"logq/types"
)

// encodeResult writes {"result": [...]} with each row's keys in select-list
// order and values encoded as Logflare does (CONTRACT.md §2).
func encodeResult(res *exec.Result, maxRows int) []byte {
	b := make([]byte, 0, 256+len(res.Rows)*64)
	b = append(b, `{"result":[`...)
	var enc types.ResponseEncoder
	keys := make([][]byte, len(res.Columns))
	for i, c := range res.Columns {
		keys[i] = strconv.AppendQuote(nil, c.Name)
	}
	for r, row := range res.Rows {
		if maxRows > 0 && r >= maxRows {
			break
		}
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for i := range row {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, keys[i]...)
			b = append(b, ':')
			b = enc.Append(b, &row[i])
		}
		b = append(b, '}')
		if r == 0 && len(res.Rows) > 1 {
			// The rest of the rows are sized like the first (and a quarter
			// more): wide rows then cost no series of copies as b grows.
			n := len(res.Rows)
			if maxRows > 0 {
				n = min(n, maxRows)
			}
			b = slices.Grow(b, (len(b)+len(b)/4)*(n-1))
		}
	}
	return append(b, "]}\n"...)
}

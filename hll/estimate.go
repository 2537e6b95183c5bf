package hll

import "math"

// linearCountingThreshold is HLL++'s estimate below which linear counting
// over the registers is the better estimate, for p = 4…18 (the paper's
// table); past 18, 2.5·2^p.
var linearCountingThreshold = [...]float64{10, 20, 40, 80, 220, 400, 900, 1800, 3100, 6500, 11500, 20000, 50000, 120000, 350000}

func threshold(p int) float64 {
	if p-4 < len(linearCountingThreshold) {
		return linearCountingThreshold[p-4]
	}
	return 2.5 * float64(int64(1)<<p)
}

// Estimate is the number of distinct values the sketch has counted.
func (s *Sketch) Estimate() int64 {
	if !s.normal {
		s.flush()
		// Linear counting over the 2^sp sparse buckets (while one is
		// empty; a sparse sketch read from bytes can fill them all).
		m := float64(int64(1) << s.enc.sp)
		if n := float64(len(s.sparse)); n < m {
			return round(m * math.Log(m/(m-n)))
		}
		s.normalize()
	}
	if s.regs == nil {
		return 0
	}
	m := float64(len(s.regs))
	var hist [256]float64 // registers by value: 0 … 64−p+1 (all of uint8, to be safe)
	for _, r := range s.regs {
		hist[r]++
	}
	if hist[0] > 0 {
		if h := m * math.Log(m/hist[0]); h <= threshold(s.enc.p) {
			return round(h)
		}
	}
	return round(ertl(hist[:], m, 64-s.enc.p))
}

// round is Java's Math.round, which ZetaSQL's estimate uses: halves up.
func round(x float64) int64 { return int64(math.Floor(x + 0.5)) }

// ertl is Ertl's improved raw estimator over a register histogram (q =
// 64−p, so registers reach q+1).
func ertl(hist []float64, m float64, q int) float64 {
	z := m * tau(1-hist[q+1]/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + hist[k])
	}
	z += m * sigma(hist[0]/m)
	return m * m / (2 * math.Ln2 * z)
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

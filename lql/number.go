package lql

import "strconv"

// number is a parsed numeric value. Integers (no fraction, no exponent)
// keep their digits and compare exactly at any size, so that large ids do
// not collide through float rounding; other comparisons use float64.
type number struct {
	f      float64
	digits []byte // an integer's digits without leading zeros ("" is 0)
	neg    bool   // an integer below zero
	isInt  bool
}

// parseNumber parses JSON's number syntax, also allowing leading zeros:
// -?digits(.digits)?([eE][+-]?digits)?. No "+", ".5", "5.", hex, Inf or NaN.
// The digits of a []byte alias it.
func parseNumber[T string | []byte](s T) (number, bool) {
	i, n := 0, len(s)
	if i < n && s[i] == '-' {
		i++
	}
	start := i
	for i < n && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == start {
		return number{}, false
	}
	isInt := true
	if i < n && s[i] == '.' {
		i++
		frac := i
		for i < n && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == frac {
			return number{}, false
		}
		isInt = false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := i
		for i < n && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == exp {
			return number{}, false
		}
		isInt = false
	}
	if i != n {
		return number{}, false
	}
	if isInt {
		for start < n && s[start] == '0' {
			start++
		}
		num := number{digits: []byte(s[start:]), neg: s[0] == '-' && start < n, isInt: true}
		if len(num.digits) <= 18 { // fits an int64, whose float64 is correctly rounded
			var v int64
			for _, d := range num.digits {
				v = v*10 + int64(d-'0')
			}
			if num.neg {
				v = -v
			}
			num.f = float64(v)
			return num, true
		}
		num.f, _ = strconv.ParseFloat(string(s), 64)
		return num, true
	}
	// The syntax is checked, so the only error left is a range error, whose
	// result (±Inf or ±0) still sorts right. The string conversion does not
	// escape, so a short []byte is not copied to the heap.
	f, _ := strconv.ParseFloat(string(s), 64)
	return number{f: f}, true
}

// cmp compares a with b: -1, 0 or +1.
func (a number) cmp(b number) int {
	if a.isInt && b.isInt {
		switch {
		case a.neg != b.neg:
			if a.neg {
				return -1
			}
			return 1
		case len(a.digits) != len(b.digits):
			c := -1
			if len(a.digits) > len(b.digits) {
				c = 1
			}
			if a.neg {
				c = -c
			}
			return c
		}
		c := 0
		for i := range a.digits {
			if a.digits[i] != b.digits[i] {
				c = -1
				if a.digits[i] > b.digits[i] {
					c = 1
				}
				break
			}
		}
		if a.neg {
			c = -c
		}
		return c
	}
	switch {
	case a.f < b.f:
		return -1
	case a.f > b.f:
		return 1
	}
	return 0
}

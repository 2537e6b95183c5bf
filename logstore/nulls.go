package logstore

// nullMask says which stored rows of a column are NULL. While the column is
// open it keeps one byte per row (appends must not share memory words with
// rows a reader sees); sealing turns it into a bitmap, which is also the
// form a segment file stores (part partNullBits). Neither form is allocated
// until a row is NULL.
type nullMask struct {
	count int      // NULL rows
	flags []bool   // open: one per stored row, or nil while none is NULL
	bits  []uint64 // sealed: bit i%64 of word i/64, or nil when none is NULL
}

// has reports whether row i is NULL.
func (m *nullMask) has(i int) bool {
	switch {
	case m.count == 0:
		return false
	case m.bits != nil:
		return m.bits[i>>6]&(1<<(uint(i)&63)) != 0
	}
	return m.flags[i]
}

// add records the NULL flag of the next row; n is the rows stored before it.
func (m *nullMask) add(isNull bool, n int) {
	if isNull {
		m.count++
		if m.flags == nil {
			m.flags = make([]bool, n, max(n+1, 64))
		}
	}
	if m.flags != nil {
		m.flags = append(m.flags, isNull)
	}
}

// truncate keeps the flags of the first n rows.
func (m *nullMask) truncate(n int) {
	if m.flags == nil || n >= len(m.flags) {
		return
	}
	for _, isNull := range m.flags[n:] {
		if isNull {
			m.count--
		}
	}
	m.flags = m.flags[:n]
}

// view is the mask of the first n rows, sharing the flags.
func (m *nullMask) view(n int) nullMask {
	v := nullMask{flags: m.flags, bits: m.bits, count: m.count}
	if m.flags != nil && n < len(m.flags) {
		v.flags, v.count = m.flags[:n], 0
		for _, isNull := range v.flags {
			if isNull {
				v.count++
			}
		}
	}
	return v
}

// seal turns the open flags of n rows into a bitmap.
func (m *nullMask) seal(n int) {
	if m.count > 0 {
		m.bits = make([]uint64, (n+63)/64)
		for i, isNull := range m.flags[:n] {
			if isNull {
				m.bits[i>>6] |= 1 << (uint(i) & 63)
			}
		}
	}
	m.flags = nil
}

func (m *nullMask) bytes() int64 { return int64(len(m.flags)) + 8*int64(len(m.bits)) }

// loadNulls reads a sealed mask from a segment file.
func loadNulls(r *partReader) nullMask {
	m := nullMask{count: r.m.nulls}
	if m.count > 0 {
		m.bits = readPart[uint64](r, partNullBits)
	}
	return m
}

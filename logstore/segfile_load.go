package logstore

import (
	"fmt"
	"hash/crc32"
)

// partReader reads a column's parts from a segment file, in part order,
// checksumming them as the writer did; its first error stops the rest.
type partReader struct {
	f   fileReader
	m   *colMeta
	crc uint32
	err error
}

// readPart reads part p into a new slice of its element type (nil when the
// part is empty or an earlier read failed).
func readPart[T any](r *partReader, p int) []T {
	n := int(r.m.parts[p].len) / partSize[p]
	if n == 0 || r.err != nil {
		return nil
	}
	out := make([]T, n)
	_, r.err = r.f.ReadAt(asBytes(out), r.m.parts[p].off)
	r.crc = crc32.Update(r.crc, crcTable, asBytes(out))
	return out
}

// fileForm is one encoding as segment files store it, defined beside the
// encoding (enc_*.go, compress.go), whose write fills the meta that names
// it: is says whether a column's meta names this form (by kind, width and
// flags), fits whether its parts hold n stored rows (checked when the meta
// is read, so that a damaged file that passed its checksum cannot make a
// reader index past a slice), and load reads the parts into the encoding
// (an error there is reported after the checksum's). An encoding that must
// check its values too implements validator.
type fileForm struct {
	is   func(m *colMeta) bool
	fits func(m *colMeta, n int) bool
	load func(r *partReader) (encoding, error)
}

// fileForms are every encoding a segment file may hold.
var fileForms = []*fileForm{&intsForm, &floatsForm, &dictForm, &zstringsForm, &plainForm, &arraysForm}

// formOf is the form a column's meta names, or nil.
func formOf(m *colMeta) *fileForm {
	for _, f := range fileForms {
		if f.is(m) {
			return f
		}
	}
	return nil
}

// loadColumn reads one column from the file into memory: its NULL bitmap,
// then its encoding's parts (formOf), checked against the column's checksum
// and then for what indexing relies on.
func loadColumn(f fileReader, m *colMeta) (*Column, error) {
	form := formOf(m)
	if form == nil {
		return nil, fmt.Errorf("segment file %s, column %s: %w: a column of kind %v", f.Name(), m.path, errSegFile, m.kind)
	}
	r := &partReader{f: f, m: m}
	c := &Column{Path: m.path, kind: m.kind, n: m.n, lo: m.lo, hi: m.hi}
	c.nulls = loadNulls(r)
	enc, loadErr := form.load(r)
	if r.err != nil {
		return nil, fmt.Errorf("segment file %s, column %s: %w", f.Name(), m.path, r.err)
	}
	if r.crc != m.crc {
		return nil, fmt.Errorf("segment file %s, column %s: %w: checksum mismatch", f.Name(), m.path, errSegFile)
	}
	if loadErr != nil {
		return nil, fmt.Errorf("segment file %s, column %s: %w", f.Name(), m.path, loadErr)
	}
	c.setEnc(enc)
	if v, ok := enc.(validator); ok {
		if err := v.validate(m.stored(), &c.nulls); err != nil {
			return nil, fmt.Errorf("segment file %s: column %s: %w", f.Name(), m.path, err)
		}
	}
	return c, nil
}

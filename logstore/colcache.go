package logstore

import (
	"os"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// diskSegment is what a sealed segment written to its file keeps in memory:
// its column index. The columns themselves are read on demand into the
// store's column cache.
type diskSegment struct {
	path      string
	fileBytes int64
	cols      map[string]*colMeta
	cache     *colCache
	owner     *Source // moves the file aside if a column is found damaged
	tree      []byte  // the field tree the file carries (encodeNode), for merges

	mu sync.Mutex // serialises loads of this segment's columns, and uses of f
	f  *os.File   // nil when the budget closed it (openfiles.go)
	// files is the store's budget of open segment files; pinned takes d
	// out of it (its path is about to name another file, or none).
	files  *openFiles
	pinned bool
}

// column returns a column, from the cache or read from the file; nil when
// the segment has no such column. A column that cannot be read (its
// checksum fails, or the disk does) is a *StorageError; a damaged file is
// moved aside first, so that the next query does not meet it again.
func (d *diskSegment) column(path string) (*Column, error) {
	m := d.cols[path]
	if m == nil {
		return nil, nil
	}
	key := colKey{d, path}
	if c, ok := d.cache.get(key); ok {
		return c, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.cache.get(key); ok {
		return c, nil // loaded while we waited
	}
	f, err := d.open()
	if err != nil {
		return nil, &StorageError{File: d.path, Err: err}
	}
	c, err := loadColumn(f, m)
	if err != nil {
		if d.owner != nil && isDamage(err) {
			go d.owner.quarantine(d, err) // it takes the source's lock
		}
		return nil, &StorageError{File: d.path, Err: err}
	}
	d.cache.put(key, c, m.bytes())
	return c, nil
}

// verify reads every column of the segment once, checking its checksum and
// structure, without caching it.
func (d *diskSegment) verify() error {
	for _, m := range d.cols {
		// Locked per column, so that a query loading a column of this
		// segment waits for one column's check at most.
		d.mu.Lock()
		f, err := d.open()
		if err == nil {
			_, err = loadColumn(f, m)
		}
		d.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// forget drops the segment's columns from the cache; its file handle stays
// for queries still holding the segment.
func (d *diskSegment) forget() { d.cache.drop(d) }

// close releases the file handle (the store is closing).
func (d *diskSegment) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f != nil {
		d.f.Close()
		d.f = nil
	}
	d.pinned = true // not to be reopened
	if d.files != nil {
		d.files.forget(d)
	}
}

type colKey struct {
	seg  *diskSegment
	path string
}

type cached struct {
	col   *Column
	bytes int64
}

// colCache holds recently read columns up to a byte budget, least recently
// used out first. A column a running query holds stays valid after eviction
// (it is ordinary memory); the budget bounds what the cache keeps alive.
type colCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[colKey, cached]
	bytes  int64
	budget int64
	hits   int64
	misses int64
}

func newColCache(budget int64) *colCache {
	c := &colCache{budget: budget}
	c.lru, _ = simplelru.NewLRU[colKey, cached](1<<30, func(_ colKey, v cached) { c.bytes -= v.bytes })
	return c
}

func (c *colCache) get(k colKey) (*Column, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.lru.Get(k)
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return v.col, ok
}

func (c *colCache) put(k colKey, col *Column, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Add(k, cached{col, bytes})
	c.bytes += bytes
	for c.bytes > c.budget && c.lru.Len() > 1 {
		c.lru.RemoveOldest()
	}
}

// drop forgets every column of a segment (its file is gone).
func (c *colCache) drop(d *diskSegment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range d.cols {
		c.lru.Remove(colKey{d, p})
	}
}

// CacheStats reports the column cache's use.
type CacheStats struct {
	Bytes, Budget, Hits, Misses int64
}

// CacheStats reports the column cache's use.
func (s *Store) CacheStats() CacheStats { return s.cache.stats() }

func (c *colCache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Bytes: c.bytes, Budget: c.budget, Hits: c.hits, Misses: c.misses}
}

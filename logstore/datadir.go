package logstore

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// The data directory:
//
//	DIR/LOCK                         held (flock) by the server using DIR
//	DIR/sources/<name>/wal-<seq>.log one per segment, seq in 16 digits
//
// <name> is the source name with every byte outside [A-Za-z0-9_.-] written
// as %XX (and a leading '.' too), so any name maps to one directory.

const walPrefix, walSuffix = "wal-", ".log"

func walPath(dir string, seq uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%s%016d%s", walPrefix, seq, walSuffix))
}

// encodeName maps a source name to a directory name.
func encodeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0
		if safe {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func decodeName(enc string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(enc); i++ {
		if enc[i] != '%' {
			b.WriteByte(enc[i])
			continue
		}
		if i+2 >= len(enc) {
			return "", fmt.Errorf("bad source directory name %q", enc)
		}
		v, err := strconv.ParseUint(enc[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad source directory name %q", enc)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// RecoveryStats counts what opening a data directory found damaged.
type RecoveryStats struct {
	TornTails      int // WAL files whose damaged tail was cut off
	CorruptRecords int // damaged WAL records skipped in the middle of a file
	CorruptFiles   int // files moved aside as unreadable
	Replayed       int // events replayed from the WAL
}

// ErrLocked means another process holds the data directory.
var ErrLocked = errors.New("data directory is in use")

// Open opens (creating it if needed) a data directory and returns a store
// holding everything acknowledged into it before. Damaged WAL tails are cut
// off and logged; a WAL file of an unknown format version stops the open
// (replaying or dropping it would lose events silently).
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "sources"), 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	s := New(opts)
	s.dir, s.lock = dir, lock
	if err := s.load(); err != nil {
		s.sealer.wait()
		lock.Close()
		return nil, err
	}
	return s, nil
}

func lockDir(dir string) (*os.File, error) {
	name := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		holder := strings.TrimSpace(string(pid))
		if holder == "" {
			holder = "unknown"
		}
		return nil, fmt.Errorf("%w: %s is locked by another logq process (pid %s); stop it or choose another --data-dir", ErrLocked, dir, holder)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

// load replays every source's WAL files, oldest first: each file becomes one
// segment, the newest stays open and takes new events.
func (s *Store) load() error {
	root := filepath.Join(s.dir, "sources")
	ents, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		name, err := decodeName(e.Name())
		if err != nil {
			s.log().Warn("skipping a directory that is not a source", "dir", filepath.Join(root, e.Name()))
			continue
		}
		src := s.Source(name, true)
		if err := src.load(filepath.Join(root, e.Name()), s); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) log() *slog.Logger {
	if s.opts.Logger != nil {
		return s.opts.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// load replays one source's directory and leaves its WAL open for appends.
func (src *Source) load(dir string, st *Store) error {
	seqs, err := listWAL(dir)
	if err != nil {
		return err
	}
	w := &wal{dir: dir, fs: st.fs, genEnd: map[uint64]int64{}}
	var full []*Segment
	defer func() {
		for _, seg := range full {
			src.sealer.run(func() { src.seal(seg) })
		}
	}()
	for i, seq := range seqs {
		last := i == len(seqs)-1
		name := walPath(dir, seq)
		data, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("wal: %w", err)
		}
		scan, err := scanWAL(data)
		if err != nil {
			return fmt.Errorf("%s: %w; refusing to start rather than lose its events (run the logq version that wrote it)", name, err)
		}
		for _, off := range scan.skipped {
			st.recovery.CorruptRecords++
			st.log().Error("wal: skipped a damaged record (its events are lost)", "file", name, "offset", off)
		}
		if scan.validEnd == 0 {
			// Not even a header: a file torn as it was created, or not ours.
			st.recovery.CorruptFiles++
			aside := name + ".corrupt"
			st.log().Error("wal: file has no valid header; moved aside", "file", name, "moved_to", aside, "reason", scan.tail)
			if err := os.Rename(name, aside); err != nil {
				return fmt.Errorf("wal: %w", err)
			}
			if last {
				w.seq = seq + 1
			}
			continue
		}
		if scan.validEnd < int64(len(data)) {
			st.recovery.TornTails++
			st.log().Warn("wal: cut off a damaged tail", "file", name, "offset", scan.validEnd, "bytes", int64(len(data))-scan.validEnd, "reason", scan.tail)
			if err := os.Truncate(name, scan.validEnd); err != nil {
				return fmt.Errorf("wal: %w", err)
			}
		}
		src.mu.Lock()
		if src.open.rows > 0 {
			full = append(full, src.retireOpen())
		}
		src.open.seq = seq
		for _, b := range scan.batches {
			acc, _ := src.apply(&b, 0)
			st.recovery.Replayed += acc
			src.events += int64(acc)
		}
		src.mu.Unlock()
		if last {
			f, err := os.OpenFile(name, os.O_WRONLY, 0o644)
			if err != nil {
				return fmt.Errorf("wal: %w", err)
			}
			if _, err := f.Seek(scan.validEnd, io.SeekStart); err != nil {
				f.Close()
				return fmt.Errorf("wal: %w", err)
			}
			w.f, w.seq, w.fileHead = f, seq, scan.validEnd
		}
		data = nil
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	src.seq = max(w.seq, src.open.seq)
	if w.f == nil {
		// No usable file: start the next segment's.
		if src.open.rows > 0 {
			full = append(full, src.retireOpen())
		}
		src.seq++
		src.open.seq = src.seq
		w.seq = src.seq
		if err := w.openFile(); err != nil {
			return err
		}
	}
	src.wal = w
	return nil
}

// listWAL returns the sequence numbers of a source's WAL files, ascending.
func listWAL(dir string) ([]uint64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	var seqs []uint64
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, walPrefix) || !strings.HasSuffix(n, walSuffix) {
			continue
		}
		seq, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n, walPrefix), walSuffix), 10, 64)
		if err != nil {
			continue
		}
		seqs = append(seqs, seq)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs, nil
}

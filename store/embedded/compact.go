package embedded

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/store"
)

const (
	// Compaction starts when replaced and deleted rows outnumber half the
	// live ones (and are at least minDeadRows), which bounds the files, and
	// the memory a reopened library needs, to 1.5 times the live data.
	minDeadRows = 1024
	// compactRecord is the payload size at which compaction starts a new
	// commit record.
	compactRecord = 16 << 20
)

// maybeCompact compacts when enough rows are dead; the caller holds wsem.
// A failed compaction changes nothing and is retried by a later write.
func (s *Store) maybeCompact() {
	d := s.disk
	if d == nil || d.deadRows < minDeadRows || d.deadRows <= s.nsegs/2 {
		return
	}
	unlock, err := d.lockFile(context.Background())
	if err != nil {
		return
	}
	defer unlock()
	if s.catchUp() == nil && d.damage == nil {
		_ = s.compactLocked()
	}
}

// Compact rewrites the library's files with only the live documents, so
// that replaced and deleted ones no longer take space. A crash during Compact
// leaves the library as it was. Writes compact by themselves when enough
// space is dead; this is for tools and tests.
func (s *Store) Compact(ctx context.Context) error {
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	if s.isClosed() {
		return store.ErrClosed
	}
	d := s.disk
	if d == nil {
		return nil
	}
	if d.damage != nil || !d.writable() {
		return fmt.Errorf("%w: %w", store.ErrReadOnly, s.Damage())
	}
	unlock, err := s.lockCaughtUp(ctx, d)
	if err != nil {
		return err
	}
	defer unlock()
	return s.compactLocked()
}

// compactLocked writes generation N+1 beside N, in the current format, and
// switches to it by replacing the manifest: that rename is the commit.
// Until then Open reads generation N, and the next writer removes N+1's
// files as stray. The caller holds wsem and the library's lock, and is
// caught up (so s.docs is the library); readers go on meanwhile.
func (s *Store) compactLocked() error {
	d := s.disk
	if err := d.tidyUp(); err != nil {
		return err
	}
	gen := d.man.Generation + 1
	entries := make([]*entry, 0, len(s.docs))
	for _, e := range s.docs {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(a.doc.ID, b.doc.ID) })

	rows := make([]int, len(entries))
	logEnd, nrows, err := d.writeGeneration(gen, entries, rows)
	if err != nil {
		removeIfExists(d.path(logName(gen)))
		removeIfExists(d.path(vectorName(gen)))
		return fmt.Errorf("couldn't compact library: %w", err)
	}
	m := d.man
	m.Generation = gen
	m.Format = formatVersion
	if err := writeManifest(d.dir, m); err != nil {
		removeIfExists(d.path(logName(gen)))
		removeIfExists(d.path(vectorName(gen)))
		return fmt.Errorf("couldn't compact library: %w", err)
	}

	// Committed: switch to the new generation.
	old := d.man.Generation
	d.closeFiles()
	d.adopt(m)
	d.logEnd, d.rows, d.deadRows = logEnd, nrows, 0
	d.noteLog()
	s.mu.Lock()
	for i, e := range entries {
		e.row = rows[i]
	}
	s.mu.Unlock()
	removeIfExists(d.path(logName(old)))
	removeIfExists(d.path(vectorName(old)))
	return nil
}

// writeGeneration writes entries into generation gen's files and syncs
// them, storing each entry's first row in rows. It returns the log's length
// and the number of rows written.
func (d *disk) writeGeneration(gen int, entries []*entry, rows []int) (int64, int, error) {
	lf, err := os.OpenFile(d.path(logName(gen)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, 0, err
	}
	defer lf.Close()
	vf, err := os.OpenFile(d.path(vectorName(gen)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, 0, err
	}
	defer vf.Close()

	lw, vw := bufio.NewWriterSize(lf, 1<<20), bufio.NewWriterSize(vf, 1<<20)
	var (
		logEnd  int64
		row     int
		ops     []byte
		nops    int
		flushOp = func() error {
			if nops == 0 {
				return nil
			}
			rec := frame(append(binary.AppendUvarint(nil, uint64(nops)), ops...))
			logEnd += int64(len(rec))
			ops, nops = ops[:0], 0
			_, err := lw.Write(rec)
			return err
		}
	)
	for i, e := range entries {
		rows[i] = row
		if ops, err = appendPut(ops, &e.doc, e.segs, e.zero, row, vecSum(e.vecs)); err != nil {
			return 0, 0, err
		}
		nops++
		if _, err := vw.Write(floatBytes(e.vecs)); err != nil {
			return 0, 0, err
		}
		row += len(e.segs)
		if len(ops) >= compactRecord {
			if err := flushOp(); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := flushOp(); err != nil {
		return 0, 0, err
	}
	for _, w := range []*bufio.Writer{lw, vw} {
		if err := w.Flush(); err != nil {
			return 0, 0, err
		}
	}
	for _, f := range []*os.File{lf, vf} {
		if err := f.Sync(); err != nil {
			return 0, 0, err
		}
	}
	return logEnd, row, syncDir(d.dir)
}

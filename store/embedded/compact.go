package embedded

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/internal/regular"
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
	texts := make([][]textRef, len(entries))
	m := d.man
	m.Generation = gen
	m.Format = formatVersion
	logEnd, nrows, err := s.writeGeneration(m, entries, rows, texts)
	var codesEnd int64
	if err == nil {
		codesEnd, err = d.writeCodesFile(gen, entries, rows)
	}
	var vf, lf *os.File
	if err == nil {
		vf, err = os.Open(d.path(vectorName(gen)))
	}
	if err == nil {
		if lf, err = os.Open(d.path(logName(gen))); err != nil {
			vf.Close()
		}
	}
	if err != nil {
		removeGeneration(d.dir, gen)
		return fmt.Errorf("couldn't compact library: %w", err)
	}
	if err := writeManifest(d.dir, m); err != nil {
		vf.Close()
		lf.Close()
		removeGeneration(d.dir, gen)
		return fmt.Errorf("couldn't compact library: %w", err)
	}

	// Committed: switch to the new generation.
	old := d.man.Generation
	d.closeFiles()
	d.adopt(m)
	d.logEnd, d.rows, d.deadRows, d.hasInfo = logEnd, nrows, 0, true
	d.codesEnd, d.codesBroken, d.codesMissing = codesEnd, false, nil
	d.codesSeen, _ = os.Stat(d.path(codesName(gen)))
	d.noteLog()
	s.mu.Lock()
	for i, e := range entries {
		e.row = rows[i]
		if e.texts != nil {
			e.texts = texts[i]
		}
	}
	s.dense.rebuild(s.docs)
	replaced := view{vf: s.vf, lf: s.lf} // the entries keep their codes
	s.vf, s.lf = vf, lf
	s.mu.Unlock()
	replaced.release()
	removeGeneration(d.dir, old)
	d.snapEnd = 0
	_ = s.saveSnapshot() // a failure costs the next open a whole replay
	return nil
}

// removeGeneration removes generation gen's files from dir (what is
// missing is fine).
func removeGeneration(dir string, gen int) {
	for _, name := range generationFiles(gen) {
		removeIfExists(filepath.Join(dir, name))
	}
}

// generationFiles names generation gen's files.
func generationFiles(gen int) []string {
	return []string{logName(gen), vectorName(gen), markName(gen), codesName(gen), snapshotName(gen)}
}

// writeGeneration writes entries into the files of generation
// m.Generation, whose manifest will be m, and syncs them, storing each
// entry's first row in rows and, when texts is not nil, where its
// segments' texts lie in the new log in texts: the log starts with an
// info record (m), and the commit file, written and synced last, says the
// generation is whole. Texts and vectors are read from the current
// generation's files where the entries do not hold them. It returns the
// log's length and the number of rows written. An entry whose vectors were
// lost (lost, or unembedded already) is written with its text and zero
// vectors, flagged to be embedded again. The caller holds wsem (or is the
// only user of s).
func (s *Store) writeGeneration(m manifest, entries []*entry, rows []int, texts [][]textRef) (int64, int, error) {
	d := s.disk
	gen := m.Generation
	removeIfExists(d.path(markName(gen))) // a leftover would vouch for what is not written yet
	removeIfExists(d.path(snapshotName(gen)))
	lf, _, err := regular.OpenFile(d.path(logName(gen)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, 0, err
	}
	defer lf.Close()
	vf, _, err := regular.OpenFile(d.path(vectorName(gen)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, 0, err
	}
	defer vf.Close()

	nrows := 0
	for _, e := range entries {
		nrows += len(e.segs)
	}
	vecBytes := int64(nrows) * int64(m.Dimension) * 4
	lw, vw := bufio.NewWriterSize(lf, fileBuffer(vecBytes+int64(nrows)*256)), bufio.NewWriterSize(vf, fileBuffer(vecBytes))
	info := infoRecord(m)
	if _, err := lw.Write(info); err != nil {
		return 0, 0, err
	}
	var (
		logEnd  = int64(len(info))
		row     int
		nsegs   int
		ops     []byte
		nops    int
		pending []int // the entries whose ops are in ops
		flushOp = func() error {
			if nops == 0 {
				return nil
			}
			count := binary.AppendUvarint(nil, uint64(nops))
			rec := frame(append(count, ops...))
			if texts != nil {
				// The ops' offsets were relative to ops; the record
				// puts them after its header and the count.
				base := logEnd + recordHeader + int64(len(count))
				for _, i := range pending {
					for j := range texts[i] {
						texts[i][j].off += base
					}
				}
			}
			logEnd += int64(len(rec))
			ops, nops, pending = ops[:0], 0, pending[:0]
			_, err := lw.Write(rec)
			return err
		}
	)
	for i, e := range entries {
		rows[i] = row
		zero := e.zero
		unembedded := e.lost || e.unembedded
		var vecs []float32
		if unembedded {
			vecs = make([]float32, len(e.segs)*m.Dimension)
			zero = make([]bool, len(e.segs))
			for j := range zero {
				zero[j] = true
			}
		} else if vecs, err = s.entryVectors(e); err != nil {
			return 0, 0, err
		}
		segs, err := s.fullSegments(e)
		if err != nil {
			return 0, 0, err
		}
		var refs []textRef
		if texts != nil {
			refs = make([]textRef, len(segs))
			texts[i] = refs
			pending = append(pending, i)
		}
		if ops, err = appendPutAt(ops, &e.doc, segs, zero, row, vecSum(vecs), unembedded, refs); err != nil {
			return 0, 0, err
		}
		nops++
		if _, err := vw.Write(floatBytes(vecs)); err != nil {
			return 0, 0, err
		}
		row += len(e.segs)
		nsegs += len(e.segs)
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
	if err := createMark(d.dir, mark{man: m, logEnd: logEnd, rows: row, docs: len(entries), segs: nsegs}); err != nil {
		return 0, 0, err
	}
	return logEnd, row, syncDir(d.dir)
}

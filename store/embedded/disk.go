package embedded

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrChanged is returned by a write when another process changed the
// library since this store opened it; reopen the library and retry.
var ErrChanged = errors.New("library was changed by another process; reopen it")

// disk is a library folder's files. All fields are owned by the store's
// single writer (Chromem.wmu).
//
// Invariant: the log holds exactly logEnd committed bytes and the vector
// file at least rows committed rows; anything beyond is uncommitted and is
// overwritten by the next write or removed by the next Open.
type disk struct {
	dir      string
	man      manifest
	lockf    *os.File // nil when the folder is read-only
	log, vec *os.File // opened on the first write
	logEnd   int64
	rows     int // committed rows in the vector file
	deadRows int // rows of replaced or deleted documents
}

func (d *disk) path(name string) string { return filepath.Join(d.dir, name) }

// readManifest reads dir's manifest; ok is false when there is none.
func readManifest(dir string) (m manifest, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return manifest{}, false, nil
	}
	if err != nil {
		return manifest{}, false, fmt.Errorf("couldn't read library manifest: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return manifest{}, false, fmt.Errorf("couldn't read library manifest %s: %w", filepath.Join(dir, manifestName), err)
	}
	if m.Format != formatVersion {
		return manifest{}, false, fmt.Errorf("library in %s has format %d; this ibid reads format %d", dir, m.Format, formatVersion)
	}
	if err := validInfo(m.info()); err != nil || m.Generation < 1 {
		return manifest{}, false, fmt.Errorf("library manifest %s is damaged", filepath.Join(dir, manifestName))
	}
	return m, true, nil
}

// writeManifest replaces dir's manifest atomically: temp file, fsync,
// rename, fsync of the folder.
func writeManifest(dir string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, manifestTmp())
	if err := writeFileSync(tmp, append(b, '\n')); err != nil {
		return fmt.Errorf("couldn't write library manifest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, manifestName)); err != nil {
		return fmt.Errorf("couldn't write library manifest: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("couldn't sync library folder: %w", err)
	}
	return nil
}

func writeFileSync(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openDisk opens or creates the library in dir and loads its live
// documents, removing anything uncommitted.
func openDisk(dir string, want Info) (*disk, []*entry, error) {
	m, ok, err := readManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	zero := want == (Info{})
	switch {
	case !ok && zero:
		return nil, nil, fmt.Errorf("no library in %s: %w", dir, fs.ErrNotExist)
	case !ok:
		if err := validInfo(want); err != nil {
			return nil, nil, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("couldn't create library folder: %w", err)
		}
	case !zero && m.info() != want:
		return nil, nil, mismatch(dir, m.info(), want)
	}

	d := &disk{dir: dir}
	d.lockf, err = os.OpenFile(d.path(lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if !ok {
			return nil, nil, fmt.Errorf("couldn't create library: %w", err)
		}
		d.lockf = nil // read-only folder: load, but never write or clean
	}
	if d.lockf != nil {
		if err := lockFile(d.lockf); err != nil {
			d.lockf.Close()
			return nil, nil, fmt.Errorf("couldn't lock library: %w", err)
		}
		defer unlockFile(d.lockf)
	}

	// Under the lock, look again: another process may have created it.
	m, ok, err = readManifest(dir)
	if err != nil {
		d.close()
		return nil, nil, err
	}
	if !ok {
		m = manifest{Format: formatVersion, Embedder: want.Embedder, Dimension: want.Dimension, Generation: 1}
		if err := writeManifest(dir, m); err != nil {
			d.close()
			return nil, nil, err
		}
	} else if !zero && m.info() != want {
		d.close()
		return nil, nil, mismatch(dir, m.info(), want)
	}
	d.man = m
	entries, err := d.load()
	if err != nil {
		d.close()
		return nil, nil, err
	}
	return d, entries, nil
}

// load replays the current generation's log and drops its uncommitted
// tail. It reads the vector file as one block, in one read, while it
// replays the log; rows of replaced or deleted documents are then squeezed
// out of the block in place (their space stays allocated until the library
// is compacted, at most half the live rows by the compaction rule).
func (d *disk) load() ([]*entry, error) {
	dim := d.man.Dimension
	writable := d.lockf != nil
	if writable {
		if err := d.removeStray(); err != nil {
			return nil, err
		}
	}

	type vectors struct {
		block []float32
		err   error
	}
	vc := make(chan vectors, 1)
	go func() {
		var v vectors
		v.block, v.err = readVectorFile(d.path(vectorName(d.man.Generation)), dim)
		vc <- v
	}()

	live := make(map[string]*entry)
	var err error
	if f, ferr := os.Open(d.path(logName(d.man.Generation))); ferr == nil {
		d.logEnd, err = d.replay(f, live)
		f.Close()
	} else if !errors.Is(ferr, fs.ErrNotExist) {
		err = fmt.Errorf("couldn't open library log: %w", ferr)
	}
	v := <-vc
	if err != nil {
		return nil, err
	}
	if v.err != nil {
		return nil, fmt.Errorf("couldn't read library vectors: %w", v.err)
	}
	block := v.block
	if len(block) < d.rows*dim {
		return nil, fmt.Errorf("library in %s is damaged: its vector file holds %d rows, its log commits %d",
			d.dir, len(block)/dim, d.rows)
	}

	if writable {
		if err := truncateTo(d.path(logName(d.man.Generation)), d.logEnd); err != nil {
			return nil, fmt.Errorf("couldn't drop uncommitted log tail: %w", err)
		}
		if err := truncateTo(d.path(vectorName(d.man.Generation)), int64(d.rows)*int64(dim)*4); err != nil {
			return nil, fmt.Errorf("couldn't drop uncommitted vectors: %w", err)
		}
	}

	entries := make([]*entry, 0, len(live))
	for _, e := range live {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b *entry) int { return a.row - b.row })
	at := 0 // next free row of the block; never past the entry being moved
	for _, e := range entries {
		size := len(e.segs) * dim
		if e.row != at {
			copy(block[at*dim:at*dim+size], block[e.row*dim:e.row*dim+size])
		}
		e.vecs = block[at*dim : at*dim+size : at*dim+size]
		at += len(e.segs)
	}
	d.deadRows = d.rows - at
	return entries, nil
}

// readVectorFile reads a vector file's whole rows with one read; a missing
// file has none.
func readVectorFile(path string, dim int) ([]float32, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rows := int(st.Size() / int64(dim) / 4)
	block := make([]float32, rows*dim)
	if err := readFloats(f, block, 0); err != nil {
		return nil, err
	}
	return block, nil
}

// replay reads committed records from the log into live and returns the
// offset just past the last one.
func (d *disk) replay(f *os.File, live map[string]*entry) (int64, error) {
	r := bufio.NewReaderSize(f, 1<<20)
	var (
		off     int64
		hdr     [recordHeader]byte
		payload []byte
		ops     []op
	)
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return off, nil // clean end, or a torn header: uncommitted
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		sum := binary.LittleEndian.Uint32(hdr[4:8])
		if n > maxRecordSize {
			return off, nil
		}
		if cap(payload) < int(n) {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(r, payload); err != nil {
			return off, nil
		}
		if crc32.Checksum(payload, crcTable) != sum {
			return off, nil
		}
		var err error
		ops, err = decodePayload(payload, ops[:0])
		if err != nil {
			// The CRC matched, so this is not a torn write.
			return 0, fmt.Errorf("library log in %s is damaged at byte %d: %w", d.dir, off, err)
		}
		for i := range ops {
			if err := d.apply(&ops[i], live); err != nil {
				return 0, err
			}
		}
		off += recordHeader + int64(n)
	}
}

// apply replays one committed op into live.
func (d *disk) apply(o *op, live map[string]*entry) error {
	switch o.kind {
	case opDelete:
		delete(live, o.id)
	case opPut:
		if o.firstRow != d.rows {
			return fmt.Errorf("library log in %s is damaged: document %s starts at row %d, expected %d",
				d.dir, o.doc.ID, o.firstRow, d.rows)
		}
		e := &entry{doc: o.doc, segs: o.segs, zero: o.zero, row: o.firstRow}
		e.doc.Segments = len(e.segs)
		for i := range e.segs {
			s := &e.segs[i]
			s.DocumentID = e.doc.ID
			s.Index = i
			s.ID = e.doc.ID + ":" + strconv.Itoa(i)
		}
		live[e.doc.ID] = e
		d.rows += len(e.segs)
	}
	return nil
}

// removeStray deletes data files of other generations and temp files: what
// an interrupted compaction or manifest write left behind.
func (d *disk) removeStray() error {
	names, err := os.ReadDir(d.dir)
	if err != nil {
		return fmt.Errorf("couldn't read library folder: %w", err)
	}
	keep := map[string]bool{logName(d.man.Generation): true, vectorName(d.man.Generation): true}
	for _, de := range names {
		name := de.Name()
		ours := strings.HasSuffix(name, ".tmp") ||
			(strings.HasPrefix(name, "segments-") && strings.HasSuffix(name, ".log")) ||
			(strings.HasPrefix(name, "vectors-") && strings.HasSuffix(name, ".f32"))
		if ours && !keep[name] {
			if err := removeIfExists(d.path(name)); err != nil {
				return fmt.Errorf("couldn't remove uncommitted %s: %w", name, err)
			}
		}
	}
	return nil
}

// truncateTo shortens an existing file to size; a missing file is fine.
func truncateTo(path string, size int64) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Size() <= size {
		return nil
	}
	return os.Truncate(path, size)
}

// readFloats fills dst from f at byte offset off with one read.
func readFloats(f *os.File, dst []float32, off int64) error {
	b := floatView(dst)
	if _, err := f.ReadAt(b, off); err != nil {
		return err
	}
	if !littleEndian {
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
		}
	}
	return nil
}

// begin takes the folder's lock for one write and checks that no other
// process changed the library since it was loaded. The returned func
// releases the lock.
func (d *disk) begin() (func(), error) {
	if d.lockf == nil {
		return nil, fmt.Errorf("library in %s is read-only", d.dir)
	}
	if err := lockFile(d.lockf); err != nil {
		return nil, fmt.Errorf("couldn't lock library: %w", err)
	}
	unlock := func() { unlockFile(d.lockf) }
	m, ok, err := readManifest(d.dir)
	if err != nil {
		unlock()
		return nil, err
	}
	if !ok || m.Generation != d.man.Generation {
		unlock()
		return nil, ErrChanged
	}
	st, err := os.Stat(d.path(logName(d.man.Generation)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if d.logEnd != 0 {
			unlock()
			return nil, ErrChanged
		}
	case err != nil:
		unlock()
		return nil, fmt.Errorf("couldn't read library log: %w", err)
	case st.Size() != d.logEnd:
		unlock()
		return nil, ErrChanged
	}
	return unlock, nil
}

// openFiles opens the current generation's files for writing.
func (d *disk) openFiles() error {
	if d.log != nil {
		return nil
	}
	var err error
	if d.vec, err = os.OpenFile(d.path(vectorName(d.man.Generation)), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return fmt.Errorf("couldn't open library vectors: %w", err)
	}
	if d.log, err = os.OpenFile(d.path(logName(d.man.Generation)), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		d.vec.Close()
		d.vec = nil
		return fmt.Errorf("couldn't open library log: %w", err)
	}
	if err := syncDir(d.dir); err != nil {
		return fmt.Errorf("couldn't sync library folder: %w", err)
	}
	return nil
}

// commit appends vecs (whole rows, starting at row d.rows) to the vector
// file and then the record holding payload to the log, syncing each. The
// record is the commit: until it is whole on disk, none of it counts.
func (d *disk) commit(payload []byte, vecs [][]float32) error {
	unlock, err := d.begin()
	if err != nil {
		return err
	}
	defer unlock()
	if err := d.openFiles(); err != nil {
		return err
	}
	dim := d.man.Dimension
	off := int64(d.rows) * int64(dim) * 4
	rows := 0
	for _, v := range vecs {
		if _, err := d.vec.WriteAt(floatBytes(v), off); err != nil {
			return fmt.Errorf("couldn't write vectors: %w", err)
		}
		off += int64(len(v)) * 4
		rows += len(v) / dim
	}
	if rows > 0 {
		if err := d.vec.Sync(); err != nil {
			return fmt.Errorf("couldn't sync vectors: %w", err)
		}
	}
	rec := frame(payload)
	if _, err := d.log.WriteAt(rec, d.logEnd); err != nil {
		d.log.Truncate(d.logEnd)
		return fmt.Errorf("couldn't write library log: %w", err)
	}
	if err := d.log.Sync(); err != nil {
		d.log.Truncate(d.logEnd)
		return fmt.Errorf("couldn't sync library log: %w", err)
	}
	d.logEnd += int64(len(rec))
	d.rows += rows
	return nil
}

func (d *disk) close() error {
	var errs []error
	for _, f := range []*os.File{d.log, d.vec, d.lockf} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	d.log, d.vec, d.lockf = nil, nil, nil
	return errors.Join(errs...)
}

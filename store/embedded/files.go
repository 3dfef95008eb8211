package embedded

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
)

// disk is a library folder's files. All fields are owned by the store's
// writer (Store.wsem).
//
// Invariant: the log holds at least logEnd committed bytes and the vector
// file at least rows committed rows, all applied to the store's memory;
// anything beyond is either another process's commit not yet caught up
// with (seen by catchUp) or uncommitted, removed by the next writer.
type disk struct {
	dir      string
	library  string // the library's name, for the repair hint
	man      manifest
	readOnly bool         // opened read-only, or the folder cannot be written
	flk      *flock.Flock // the library's lock file
	log, vec *os.File     // opened by a writer, for the current generation
	mark     *os.File     // the generation's commit file, opened with log
	logEnd   int64
	rows     int // committed rows in the vector file
	deadRows int // rows of replaced or deleted documents
	damage   *DamageError

	hasInfo bool     // the current generation's log holds an info record
	info    manifest // the last info record read
	cut     bool     // the log is shorter than its commit file says (damage.go)
	seen    mark     // the commit file as the last load read it, when seenErr is nil
	seenErr error    // why there was none
	lostOps int      // changes of damaged records that could not be read

	dirSeen fs.FileInfo // the library's folder, when this store last locked it
	manSeen fs.FileInfo // the manifest as last read
	logSize int64       // the log's size and time when last looked at
	logTime time.Time
	tidy    bool // this generation's stray files and uncommitted tails are gone

	kwDirty bool // the keyword index changed since saved
	kwSaved time.Time

	// The codes file (codes.go): the end of its intact blocks as this
	// process last followed them, the file then, and what a writer must
	// fix: the whole file (no intact header), or blocks for these entries.
	codesEnd     int64
	codesSeen    fs.FileInfo
	codesBroken  bool
	codesMissing []*entry

	// checkAll makes a load check every vector before it returns (doctor,
	// and a reload after the background pass found damage); unchecked is
	// what the last load left to that pass (check.go).
	checkAll  bool
	unchecked []span

	// snapEnd is how far into the log the snapshot this process last read
	// or wrote reaches (0: none); logUnchecked is the log's start the last
	// load took from the snapshot, for the background pass to check
	// (snapshot.go).
	snapEnd      int64
	logUnchecked *logMark
}

func (d *disk) path(name string) string { return filepath.Join(d.dir, name) }

func (d *disk) writable() bool { return !d.readOnly }

// readManifest reads dir's manifest; ok is false when there is none.
func readManifest(dir string) (m manifest, fi fs.FileInfo, ok bool, err error) {
	path := filepath.Join(dir, manifestName)
	f, fi, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return manifest{}, nil, false, nil
	}
	if errors.Is(err, regular.ErrNotRegular) {
		return manifest{}, nil, false, &ManifestError{Dir: dir, Err: err}
	}
	if err != nil {
		return manifest{}, nil, false, fmt.Errorf("couldn't read library manifest: %w", err)
	}
	defer f.Close()
	if err := json.NewDecoder(io.LimitReader(f, markMax)).Decode(&m); err != nil {
		return manifest{}, nil, false, &ManifestError{Dir: dir, Err: err}
	}
	if m.Format > formatVersion {
		return manifest{}, nil, false, fmt.Errorf("library in %s was written by a newer ibid (format %d; this one reads formats 1 to %d): "+
			"use a newer ibid (nothing was changed)", dir, m.Format, formatVersion)
	}
	if err := validInfo(m.info()); err != nil || m.Generation < 1 || m.Format < 1 {
		return manifest{}, nil, false, &ManifestError{Dir: dir, Err: fmt.Errorf("format %d, generation %d, embedder %q, dimension %d is not a library's",
			m.Format, m.Generation, m.Embedder, m.Dimension)}
	}
	return m, fi, true, nil
}

// writeManifest replaces dir's manifest atomically and durably.
func writeManifest(dir string, m manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, manifestName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("couldn't write library manifest: %w", err)
	}
	return syncDir(dir)
}

// replaceFile writes the library's file name afresh through write: a
// temporary file beside it (buffered), synced, renamed over it, and the
// folder synced. A reader that mapped or opened the old file keeps reading
// it; a crash leaves the old file or the new one, whole, and at worst a
// temporary file that the next writer removes (tidyUp).
func (d *disk) replaceFile(name string, write func(w io.Writer) error) error {
	f, err := os.CreateTemp(d.dir, "."+name+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())           // after the rename, nothing
	w := bufio.NewWriterSize(f, 64<<10) // not fileBufferMax: most such files are small
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), d.path(name))
	}
	if err == nil {
		err = syncDir(d.dir)
	}
	return err
}

// syncDir makes a folder's entries (created, renamed files) durable; on
// Windows, where folders cannot be synced, it does nothing.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("couldn't sync library folder: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("couldn't sync library folder: %w", err)
	}
	return nil
}

// newLock is the lock of the library in dir (its file is opened when a
// writer first locks it: see lockLibrary).
func newLock(dir string) *flock.Flock {
	return flock.New(filepath.Join(dir, lockName), flock.SetFlag(os.O_CREATE|os.O_RDWR))
}

// lockWait is how often a writer retries a lock another process holds.
const lockWait = 20 * time.Millisecond

// lockFile takes the library's lock for one write, waiting for other
// processes as long as ctx allows; the returned func releases it. A lock
// taken on a library folder that was dropped (and perhaps created again)
// while this process waited is the old folder's: lockFile then takes the
// new folder's lock, or says the library is gone.
func (d *disk) lockFile(ctx context.Context) (func(), error) {
	for {
		unlock, err := lockLibrary(ctx, d.flk, d.dir)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(d.dir)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("%w: the library in %s was removed", store.ErrNoLibrary, d.dir)
		}
		if d.dirSeen == nil || os.SameFile(fi, d.dirSeen) {
			d.dirSeen = fi
			return unlock, nil
		}
		d.dirSeen = fi
		unlock()
	}
}

func lockLibrary(ctx context.Context, flk *flock.Flock, dir string) (func(), error) {
	// Opening a named pipe waits for ever: anything at the lock's path that
	// is not a regular file is no one's lock, and is put right first.
	if fi, err := os.Lstat(flk.Path()); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		os.Remove(flk.Path())
	}
	ok, err := flk.TryLock()
	if err == nil && !ok {
		ok, err = flk.TryLockContext(ctx, lockWait)
		if !ok && err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("%w (another process is writing to the library in %s): %w", store.ErrBusy, dir, ctx.Err())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't lock library in %s: %w", dir, err)
	}
	if !ok {
		return nil, fmt.Errorf("%w (the library in %s)", store.ErrBusy, dir)
	}
	return func() { flk.Unlock() }, nil
}

// openFiles opens the current generation's files for writing.
func (d *disk) openFiles() error {
	if d.log != nil {
		return nil
	}
	var err error
	gen := d.man.Generation
	if d.vec, _, err = regular.OpenFile(d.path(vectorName(gen)), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		return fmt.Errorf("couldn't open library vectors: %w", err)
	}
	if d.log, _, err = regular.OpenFile(d.path(logName(gen)), os.O_RDWR|os.O_CREATE, 0o644); err != nil {
		d.closeFiles()
		return fmt.Errorf("couldn't open library log: %w", err)
	}
	if d.man.Format >= 4 {
		path := d.path(markName(gen))
		d.mark, _, err = regular.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if errors.Is(err, regular.ErrNotRegular) {
			// Not one: evidence nobody can read. Put a commit file there.
			if err = os.Remove(path); err == nil {
				d.mark, _, err = regular.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
			}
		}
		if err != nil {
			d.closeFiles()
			return fmt.Errorf("couldn't open library commit file: %w", err)
		}
	}
	return syncDir(d.dir)
}

// closeFiles closes the write handles (before a generation switch).
func (d *disk) closeFiles() {
	for _, f := range []*os.File{d.log, d.vec, d.mark} {
		if f != nil {
			f.Close()
		}
	}
	d.log, d.vec, d.mark = nil, nil, nil
}

// tidyUp removes what an interrupted writer left: other generations' files,
// temporary files, and the uncommitted tails of the log and vector file.
// The caller holds the library's lock and is caught up, and found no
// damage: so the commit file, when there is one, vouches that the tails
// are uncommitted (damage.go), and without one the vector file holds no row
// past the log's.
func (d *disk) tidyUp() error {
	if d.tidy {
		return nil
	}
	names, err := os.ReadDir(d.dir)
	if err != nil {
		return fmt.Errorf("couldn't read library folder: %w", err)
	}
	keep := map[string]bool{}
	for _, name := range generationFiles(d.man.Generation) {
		keep[name] = true
	}
	for _, de := range names {
		name := de.Name()
		ours := strings.HasSuffix(name, ".tmp") ||
			(strings.HasPrefix(name, ".") && (strings.Contains(name, manifestName) || strings.Contains(name, keywordName))) ||
			(strings.HasPrefix(name, "segments-") && strings.HasSuffix(name, ".log")) ||
			(strings.HasPrefix(name, "vectors-") && strings.HasSuffix(name, ".f32")) ||
			(strings.HasPrefix(name, "commit-") && len(name) == len(markName(1))) ||
			(strings.HasPrefix(name, "codes-") && strings.HasSuffix(name, ".q8")) ||
			(strings.HasPrefix(name, "snapshot-") && len(name) == len(snapshotName(1)))
		if ours && !keep[name] {
			if err := removeIfExists(d.path(name)); err != nil {
				return fmt.Errorf("couldn't remove uncommitted %s: %w", name, err)
			}
		}
	}
	if err := truncateTo(d.path(logName(d.man.Generation)), d.logEnd); err != nil {
		return fmt.Errorf("couldn't drop uncommitted log tail: %w", err)
	}
	if err := truncateTo(d.path(vectorName(d.man.Generation)), int64(d.rows)*int64(d.man.Dimension)*4); err != nil {
		return fmt.Errorf("couldn't drop uncommitted vectors: %w", err)
	}
	d.tidy = true
	return nil
}

// commit appends vecs (whole rows, starting at row d.rows) to the vector
// file and then the record holding payload to the log, syncing each. The
// record is the commit: until it is whole on disk, none of it counts. Then
// the commit file records it, with the library's documents and segments
// after it. ctx is honoured until the record is written.
func (d *disk) commit(ctx context.Context, payload []byte, vecs [][]float32, docs, segs int) error {
	if err := d.openFiles(); err != nil {
		return err
	}
	dim := d.man.Dimension
	off := int64(d.rows) * int64(dim) * 4
	// What lies beyond the committed ends was never committed (a writer
	// of another process that died): cut it, so that it cannot follow
	// this commit's record.
	if err := cutTo(d.log, d.logEnd); err != nil {
		return fmt.Errorf("couldn't drop uncommitted log tail: %w", err)
	}
	if err := cutTo(d.vec, off); err != nil {
		return fmt.Errorf("couldn't drop uncommitted vectors: %w", err)
	}
	rows := 0
	for _, v := range vecs {
		if err := ctx.Err(); err != nil {
			return err
		}
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
	if err := ctx.Err(); err != nil {
		return err
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
	d.writeMark(docs, segs)
	d.noteLog()
	return nil
}

// noteLog remembers the log's size and time, so that catchUp can tell a
// change by another process from our own.
func (d *disk) noteLog() {
	if fi, err := os.Stat(d.path(logName(d.man.Generation))); err == nil {
		d.logSize, d.logTime = fi.Size(), fi.ModTime()
	} else {
		d.logSize, d.logTime = 0, time.Time{}
	}
}

func (d *disk) close() error {
	d.closeFiles()
	return nil
}

// cutTo shortens an open file to size if it is longer.
func cutTo(f *os.File, size int64) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() <= size {
		return err
	}
	return f.Truncate(size)
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

// removeIfExists removes path, ignoring its absence.
func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// fileBuffer is the size of a buffer for reading or writing about n bytes
// of a library's file: n, at least 4 KiB, at most fileBufferMax. A buffer
// larger than the file costs an open or a compaction of a small library
// the zeroing of memory it never uses (much of its CPU under the race
// detector).
func fileBuffer(n int64) int {
	return int(min(max(n, 4<<10), fileBufferMax))
}

// fileBufferMax bounds fileBuffer: 1 MiB; a variable so that a test can
// read through windows smaller than a record (at least blockHeader bytes).
var fileBufferMax int64 = 1 << 20

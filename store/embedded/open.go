package embedded

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/internal/quant"
	"github.com/ibid-dev/ibid/store/keyword"
)

// OpenDir opens the library in the folder dir itself (not a folder of
// libraries): for tests and `ibid eval`. Options are those of store.Open;
// Library is ignored.
//
// A library whose files are damaged (see DamageError) opens read-only:
// Damage says what was found, and Update refuses with an error wrapping
// store.ErrReadOnly. Open never truncates or removes anything; the first
// write removes what an interrupted writer left uncommitted.
func OpenDir(ctx context.Context, dir string, opt store.Options) (*Store, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m, fi, ok, err := readManifest(dir)
	var me *ManifestError
	if errors.As(err, &me) {
		me.Library = opt.Library
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		if len(libraryFiles(dir)) > 0 {
			return nil, &ManifestError{Dir: dir, Library: opt.Library, Missing: true}
		}
		if !opt.Create || opt.ReadOnly {
			return nil, fmt.Errorf("%w in %s; add documents to create it (ibid add FILE)", store.ErrNoLibrary, dir)
		}
		if m, fi, err = create(ctx, dir, opt.Info); err != nil {
			if errors.As(err, &me) {
				me.Library = opt.Library
			}
			return nil, err
		}
	}
	return openWith(dir, m, fi, opt, false)
}

// openWith opens the library in dir as manifest m (read from the file
// whose FileInfo is fi, or recovered by a repair when fi is nil) says.
// With checkAll every vector is checked before it returns (doctor);
// otherwise those of a large library may be checked after (check.go).
func openWith(dir string, m manifest, fi fs.FileInfo, opt store.Options, checkAll bool) (*Store, error) {
	if opt.Info != (store.Info{}) && m.info() != opt.Info {
		return nil, mismatch(dir, m.info(), opt.Info)
	}
	d := &disk{dir: dir, man: m, manSeen: fi, readOnly: opt.ReadOnly, library: opt.Library, flk: newLock(dir), checkAll: checkAll}
	var err error
	if d.dirSeen, err = os.Stat(dir); err != nil {
		return nil, fmt.Errorf("couldn't open library: %w", err)
	}
	if !d.readOnly {
		// A folder we cannot write to opens read-only.
		f, err := os.OpenFile(d.path(lockName), os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			d.readOnly = true
		} else {
			f.Close()
		}
	}
	s, err := newStore(dir, m.info())
	if err != nil {
		return nil, err
	}
	s.disk = d
	// Held so that the background check of vectors the load may start
	// (check.go) waits for the open to end.
	s.wsem <- struct{}{}
	defer s.unlock()
	if err := s.loadLocked(); err != nil {
		return nil, err
	}
	s.fixCodesNow()
	s.saveSnapshotNow()
	return s, nil
}

// create makes a new library in dir under its lock (another process may
// be creating it at the same moment; the first one wins).
func create(ctx context.Context, dir string, info store.Info) (manifest, fs.FileInfo, error) {
	if err := validInfo(info); err != nil {
		return manifest{}, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return manifest{}, nil, fmt.Errorf("couldn't create library folder: %w", err)
	}
	flk := newLock(dir)
	defer flk.Close()
	unlock, err := lockLibrary(ctx, flk, dir)
	if err != nil {
		return manifest{}, nil, err
	}
	defer unlock()
	m, fi, ok, err := readManifest(dir)
	if err != nil || ok {
		return m, fi, err
	}
	if len(libraryFiles(dir)) > 0 {
		return manifest{}, nil, &ManifestError{Dir: dir, Missing: true}
	}
	m = manifest{Format: formatVersion, Embedder: info.Embedder, Dimension: info.Dimension, Generation: 1}
	if err := writeManifest(dir, m); err != nil {
		return manifest{}, nil, err
	}
	m, fi, _, err = readManifest(dir)
	return m, fi, err
}

// loadLocked (re)loads everything from the current generation: documents,
// vectors and codes, the collection and the keyword index. The caller
// holds wsem or is the only user of s.
func (s *Store) loadLocked() error {
	d := s.disk
	var (
		entries []*entry
		v       view
	)
	keep := func(dense int) bool { return dense <= exactMax }
	// The saved keyword index is read beside the log and the vectors.
	// A large one's checksum is left to the background pass (check.go).
	type loaded struct {
		kw     *keyword.BM25
		intact func() bool // nil: checked
		err    error
	}
	kwc := make(chan loaded, 1)
	kwLater := false
	if fi, err := os.Stat(d.path(keywordName)); err == nil && !d.checkAll && fi.Size() >= keywordCheckLater {
		kwLater = true
	}
	go func() {
		var l loaded
		if kwLater {
			l.kw, l.intact, l.err = keyword.LoadUnchecked(d.path(keywordName))
		} else {
			l.kw, l.err = keyword.Load(d.path(keywordName))
		}
		kwc <- l
	}()
	kwl := sync.OnceValue(func() loaded { return <-kwc })
	defer kwl() // the reading ends before loadLocked returns
	for try := 0; ; try++ {
		d.damage = nil
		d.noteLog()
		var err error
		if entries, v, err = d.loadAll(keep); err != nil {
			return err
		}
		// Another process may have compacted while this one read: its
		// files of the old generation vanish half-read. What looks like
		// damage then is only that: read the new generation.
		if d.damage == nil || try == 2 {
			break
		}
		m, fi, ok, err := readManifest(d.dir)
		if err != nil || !ok || m == d.man || m.info() != s.info {
			break
		}
		v.release()
		d.man, d.manSeen = m, fi
	}
	docs := make(map[string]*entry, len(entries))
	nsegs := 0
	for _, e := range entries {
		nsegs += len(e.segs)
	}
	var (
		ids  = make([]string, 0, nsegs)
		sums = make([]uint32, 0, nsegs)
		at   = make([][2]int, 0, nsegs) // the entry and segment of ids[i]
	)
	for j, e := range entries {
		docs[e.doc.ID] = e
		for i := range e.segs {
			if !e.parent[i] {
				ids = append(ids, e.segs[i].ID)
				sums = append(sums, e.sums[i])
				at = append(at, [2]int{j, i})
			}
		}
	}
	fresh, err := newStore(s.dir, s.info)
	if err != nil {
		v.release()
		return err
	}
	fresh.lf = v.lf // for reading texts; fresh does not own it
	fresh.docs = docs
	fresh.dense.rebuild(docs)
	fresh.dense.exact = fresh.dense.n <= exactMax
	if fresh.dense.exact {
		if err := fresh.addAll(entries); err != nil {
			v.release()
			return err
		}
	}
	// The keyword index is checked against the checksums of the texts;
	// only texts it lacks are read from the log, a segment at a time (all
	// of them, a document at a time, when there is no saved index to
	// reconcile). A text that cannot be read is indexed as empty: reading
	// the segment then reports the damage.
	text := func(i int) string {
		t, _ := fresh.keywordText(entries[at[i][0]], at[i][1])
		return t
	}
	kw, kwIntact, err := kwl().kw, kwl().intact, kwl().err
	if err != nil || !kw.ReconcileSums(ids, sums, text) {
		kw, kwIntact = keyword.BuildFunc(ids, fresh.keywordTexts(entries, at)), nil
		d.kwDirty = true
	} else if kw.OldFormat() {
		d.kwDirty = true // saved again in the current format
	}
	s.mu.Lock()
	kw.K1, kw.B = s.kw.K1, s.kw.B
	old := s.view
	s.docs, s.nsegs, s.coll, s.kw, s.dense, s.view = docs, nsegs, fresh.coll, kw, fresh.dense, v
	s.mu.Unlock()
	// No reader holds the old entries now: their files and codes may go.
	old.release()
	d.tidy = false
	s.startCheck(d.unchecked, d.logUnchecked, kwIntact)
	d.unchecked, d.logUnchecked = nil, nil
	s.publishDamage()
	return nil
}

// refresh brings a reader's view up to date with what another process
// committed, unless a writer of this process is at work (it catches up
// itself). Its cost when nothing changed is two stats.
func (s *Store) refresh() {
	if s.disk == nil || !s.tryLock() {
		return
	}
	defer s.unlock()
	if s.isClosed() {
		return
	}
	err := s.catchUp()
	if errors.Is(err, store.ErrNoLibrary) {
		// Another process dropped the library (ibid rm --all): what it
		// held is gone, so a reader (ibid serve, the chat) must not go on
		// showing or citing it. The view empties; a library created again
		// under the name is loaded whole by the next catch-up (its
		// manifest is a new file).
		s.forget()
	}
	// On another failure the old view stays, and the next read tries again.
}

// forget empties the in-memory view of a library that was dropped. The
// caller holds wsem.
func (s *Store) forget() {
	fresh, err := newStore(s.dir, s.info)
	if err != nil {
		return
	}
	s.disk.manSeen = nil
	s.mu.Lock()
	fresh.kw.K1, fresh.kw.B = s.kw.K1, s.kw.B
	old := s.view
	s.docs, s.nsegs, s.coll, s.kw, s.dense, s.view = fresh.docs, 0, fresh.coll, fresh.kw, fresh.dense, view{}
	s.mu.Unlock()
	old.release()
}

// catchUp applies what another process committed since this one last
// looked: new records of the log, or, after a compaction (a new
// generation), everything. The caller holds wsem.
func (s *Store) catchUp() error {
	d := s.disk
	mfi, err := os.Stat(d.path(manifestName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: the library in %s was removed", store.ErrNoLibrary, d.dir)
		}
		return fmt.Errorf("couldn't read library manifest: %w", err)
	}
	if !os.SameFile(mfi, d.manSeen) || !mfi.ModTime().Equal(d.manSeen.ModTime()) || mfi.Size() != d.manSeen.Size() {
		m, fi, ok, err := readManifest(d.dir)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: the library in %s was removed", store.ErrNoLibrary, d.dir)
		}
		if m.info() != s.info {
			return mismatch(d.dir, m.info(), s.info)
		}
		// A new manifest means a new generation (a compaction, a repair),
		// or a new library in place of a dropped one: load it whole.
		d.manSeen = fi
		d.closeFiles()
		d.man = m
		return s.loadLocked()
	}
	lfi, err := os.Stat(d.path(logName(d.man.Generation)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if d.logEnd == 0 {
			return nil
		}
		return s.loadLocked() // replaced under us; the manifest will say by what
	case err != nil:
		return fmt.Errorf("couldn't read library log: %w", err)
	case lfi.Size() == d.logSize && lfi.ModTime().Equal(d.logTime):
		return nil
	case lfi.Size() < d.logEnd:
		return s.loadLocked() // cut by a repair
	}
	d.logSize, d.logTime = lfi.Size(), lfi.ModTime()
	if lfi.Size() == d.logEnd {
		return nil
	}
	intact := d.damage == nil
	delta, err := d.catchUpEntries()
	if intact && d.damage != nil {
		// As in loadLocked: a compaction by another process may have
		// removed the files half-read. Then read the new generation.
		if m, _, ok, merr := readManifest(d.dir); merr == nil && ok && m != d.man {
			return s.loadLocked()
		}
	}
	s.publishDamage()
	if err != nil {
		return err
	}
	if len(delta) == 0 {
		return nil
	}
	var deletes []string
	for id, e := range delta {
		if e == nil {
			deletes = append(deletes, id)
		}
	}
	entries := entriesOf(delta)
	stride := quant.Stride(s.info.Dimension)
	s.openFiles()
	var a keyword.Analyser
	for _, e := range entries {
		e.encodeCodes(nil, e.vecs, s.info.Dimension, stride)
		e.terms = make([]keyword.Terms, len(e.segs))
		for i := range e.segs {
			if !e.parent[i] {
				t, err := s.keywordText(e, i)
				if err != nil {
					return err
				}
				e.terms[i] = a.Terms(t)
			}
		}
	}
	return s.link(deletes, entries)
}

// prepareFiles readies the files for a write, under the library's lock
// and caught up: it removes what interrupted writers left and brings an
// older library to the current format, so that nothing is appended to a
// log its manifest does not describe. Format 1 is rewritten whole (a
// compaction); format 2 records are format 3 records, so only its manifest
// is replaced (upgradeLocked).
func (s *Store) prepareFiles(ctx context.Context, d *disk) error {
	if err := d.tidyUp(); err != nil {
		return err
	}
	s.fixCodes()
	switch d.man.Format {
	case formatVersion:
	case 2, 3:
		if err := d.upgradeLocked(); err != nil {
			return fmt.Errorf("couldn't convert the library to format %d: %w", formatVersion, err)
		}
	default:
		if err := s.compactLocked(); err != nil {
			return fmt.Errorf("couldn't convert the library to format %d: %w", formatVersion, err)
		}
	}
	if d.hasInfo {
		return nil
	}
	// A new library's first write, or an upgraded one's: the log gets the
	// manifest's facts, so that a damaged manifest can be rewritten.
	s.mu.RLock()
	docs, segs := len(s.docs), s.nsegs
	s.mu.RUnlock()
	if err := d.commit(ctx, appendInfo(binary.AppendUvarint(nil, 1), d.man), nil, docs, segs); err != nil {
		return fmt.Errorf("couldn't write the library log's header: %w", err)
	}
	d.hasInfo = true
	return nil
}

// upgradeLocked marks a library of format 2 or 3 as format 4 by replacing
// its manifest (atomically, as every manifest is written); its records are
// valid format 4 records. An older ibid then refuses the library rather
// than misread what later records may hold (boxes, info records, the
// segUnembedded flag). prepareFiles then appends the info record, and
// every commit writes the commit file. Other processes see a new manifest
// and reload. The caller holds the library's lock and is caught up.
func (d *disk) upgradeLocked() error {
	m := d.man
	m.Format = formatVersion
	if err := writeManifest(d.dir, m); err != nil {
		return err
	}
	d.adopt(m)
	return nil
}

// adopt makes m, just written, the manifest d works with, and notes the
// file as seen so that this process does not reload what it wrote (when
// the file cannot be read back, the next check reloads it).
func (d *disk) adopt(m manifest) {
	d.man = m
	if fi, err := os.Stat(d.path(manifestName)); err == nil {
		d.manSeen = fi
	}
}

// generations lists the generations whose log is in dir, in increasing
// order.
func generations(dir string) []int {
	names, _ := filepath.Glob(filepath.Join(dir, "segments-*.log"))
	var out []int
	for _, n := range names {
		var g int
		if _, err := fmt.Sscanf(filepath.Base(n), "segments-%06d.log", &g); err == nil && g > 0 {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}

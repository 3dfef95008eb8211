package rag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// AddProgress is where an Add is. Counts are cumulative over the run.
type AddProgress struct {
	// Stage is one of "waiting" (for another process adding to the
	// library), "load" (reading File), "embed", "store" (committing),
	// "skip" (File was skipped), "file" (File is done) and "done".
	Stage      string
	File       string
	FilesDone  int // files done (added, unchanged, replaced or skipped)
	FilesTotal int // files found
	Segments   int // segments of the documents loaded so far
	Embedded   int // segments embedded so far
	ToEmbed    int // segments loaded so far that need embedding
	// With Stage "file": Status is "new", "changed", "unchanged" or "moved
	// from PATH", and FileSegments the file's segments; with Stage "skip",
	// Status is the reason.
	Status       string
	FileSegments int
}

// AddReport is what an Add did. Every file found is in exactly one list
// (Moved counts files whose content was in the library under a path that
// no longer exists: the document now has the new path).
type AddReport struct {
	Added, Unchanged, Replaced, Moved []store.Document
	Skipped                           []*ingest.SkipError
}

// Commit batching: small documents are committed together (each commit
// syncs the disk twice), but never more than these at once, and at least
// every libFlushEvery, so that an interrupted add keeps what it has done.
const (
	libEmbedBatch   = 64
	libFlushDocs    = 32
	libFlushSegs    = 1024
	libFlushEvery   = 2 * time.Second
	libFlushLimitMB = 64 // vectors held before a commit
)

// libPending is a loaded, embedded document waiting for its commit.
type libPending struct {
	doc  store.Document
	segs []store.Segment
	old  string // id of the document this one replaces ("" if none)
	move bool   // same id as a document at a path that is gone
}

// libAdder is the state of one Add run.
type libAdder struct {
	l        *Library
	ctx      context.Context
	progress func(AddProgress)
	rep      *AddReport
	p        AddProgress
	loader   *ingest.Loader

	byPath    map[string]string // absolute path → document id, in the store
	pending   []libPending
	pendSegs  int
	lastFlush time.Time
}

// Add reads the files, folders (recursively) and globs in paths into the
// library, file by file: a new file is added; a file already in the library
// with the same content at the same path is left alone (Unchanged); a file
// whose content changed replaces its old document (Replaced); content that
// is in the library under another path that still exists is skipped as
// "same content as PATH", and under a path that is gone, the document takes
// the new path (Moved). Bad input never stops the run: each file that
// cannot be read is in Skipped with its reason.
//
// progress, if not nil, is called from Add's goroutine as it goes.
//
// Cancelling ctx stops the run after committing the documents that were
// whole; Add then returns the report so far and ctx's error. At every
// moment, even if the process is killed, the library holds whole documents
// only. An error that would fail every file (the embedder cannot be
// reached, the disk is full) stops the run with the report so far.
func (l *Library) Add(ctx context.Context, paths []string, progress func(AddProgress)) (*AddReport, error) {
	rep := &AddReport{}
	if l.emb == nil {
		return rep, l.noEmbedder()
	}
	if progress == nil {
		progress = func(AddProgress) {}
	}
	files, skipped := ingest.Expand(paths)
	rep.Skipped = append(rep.Skipped, skipped...)
	a := &libAdder{l: l, ctx: ctx, progress: progress, rep: rep}
	a.p.FilesTotal = len(files) + len(skipped)
	for _, s := range skipped {
		a.p.FilesDone++
		a.p.Status = s.Reason
		a.report("skip", s.Path)
	}
	if len(files) == 0 {
		return rep, nil
	}

	l.wmu.Lock()
	defer l.wmu.Unlock()
	unlock, err := libLock(ctx, l.dir, func() { a.report("waiting", "") })
	if err != nil {
		return rep, err
	}
	defer unlock()

	a.indexPaths()
	a.lastFlush = time.Now()
	a.loader = l.getLoader()
	// Files are read and loaded one ahead, while the one before is
	// embedded; the reader stops when Add returns.
	rctx, stop := context.WithCancel(ctx)
	next := a.reader(rctx, files)
	defer func() {
		stop()
		for range next { // until the reader is gone: it uses the loader
		}
	}()
	var runErr error
	for _, f := range files {
		if runErr = ctx.Err(); runErr != nil {
			break
		}
		a.report("load", f)
		r, ok := <-next
		if !ok {
			runErr = ctx.Err()
			break
		}
		if runErr = a.file(r); runErr != nil {
			break
		}
	}
	// Whole documents loaded before a cancel are kept.
	if err := a.flush(); err != nil && runErr == nil {
		runErr = err
	}
	if len(rep.Added)+len(rep.Replaced)+len(rep.Moved) > 0 {
		l.saveIndex()
	}
	a.report("done", "")
	return rep, runErr
}

func (a *libAdder) report(stage, file string) {
	a.p.Stage, a.p.File = stage, file
	a.progress(a.p)
}

func (a *libAdder) skip(path, reason string) {
	a.rep.Skipped = append(a.rep.Skipped, &ingest.SkipError{Path: path, Reason: reason})
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = reason, 0
	a.report("skip", path)
}

// indexPaths maps the store's documents by path.
func (a *libAdder) indexPaths() {
	a.byPath = make(map[string]string)
	for _, d := range a.l.store().Documents() {
		a.byPath[d.Path] = d.ID
	}
}

// libRead is a file read, hashed and, unless the library holds its
// content already, loaded.
type libRead struct {
	path, abs, id string
	data          []byte         // the file's bytes, when not loaded
	ld            *ingest.Loaded // nil: not loaded
	skip          string         // the reason the file is skipped, if it is
	err           error          // what stops the run (ctx's error)
}

// reader reads files in a goroutine of its own, one ahead of the caller,
// and sends each on the returned channel, which it closes when done or
// when ctx is.
func (a *libAdder) reader(ctx context.Context, files []string) <-chan libRead {
	ch := make(chan libRead)
	go func() {
		defer close(ch)
		for _, f := range files {
			r := a.read(ctx, f)
			select {
			case ch <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// read reads and hashes one file and, if its content is not in the
// library, loads it. It runs in the reader's goroutine: it only reads the
// store.
func (a *libAdder) read(ctx context.Context, path string) libRead {
	r := libRead{path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		r.skip = "unreadable path: " + err.Error()
		return r
	}
	r.abs = abs
	b, err := os.ReadFile(abs)
	if err != nil {
		r.skip = "unreadable: " + libCause(err)
		return r
	}
	r.id = ingest.DocumentID(ingest.HashBytes(b))
	if _, ok := a.l.store().Document(r.id); ok {
		r.data = b // probably unchanged; the caller decides
		return r
	}
	r.ld, r.skip, r.err = a.load(ctx, abs, b)
	return r
}

// load loads a file's bytes; a file that cannot be used gets a reason to
// skip it; err is only ctx's error.
func (a *libAdder) load(ctx context.Context, abs string, b []byte) (*ingest.Loaded, string, error) {
	ld, err := a.loader.LoadBytes(ctx, abs, b)
	switch {
	case err == nil && len(ld.Segments) == 0:
		return nil, "no text to index", nil
	case err == nil:
		return ld, "", nil
	case ctx.Err() != nil:
		return nil, "", ctx.Err()
	}
	var se *ingest.SkipError
	if errors.As(err, &se) {
		return nil, se.Reason, nil
	}
	return nil, err.Error(), nil
}

// file adds one file the reader read. It returns an error only for what
// stops the run.
func (a *libAdder) file(r libRead) error {
	switch {
	case r.err != nil:
		return r.err
	case r.skip != "":
		a.skip(r.path, r.skip)
		return nil
	case a.known(r.path, r.abs, r.id):
		return nil
	}
	if r.ld == nil { // its content was in the library when read, but is not now
		ld, reason, err := a.load(a.ctx, r.abs, r.data)
		switch {
		case err != nil:
			return err
		case reason != "":
			a.skip(r.path, reason)
			return nil
		}
		r.ld = ld
	}
	doc, segs := r.ld.Document, r.ld.Segments
	doc.Path = r.abs
	doc.Segments = len(segs)
	if doc.Added == 0 {
		doc.Added = time.Now().Unix()
	}
	a.p.Segments += len(segs)
	a.p.ToEmbed += len(segs)
	if err := a.embed(r.path, segs); err != nil {
		return err
	}
	if err := a.ctx.Err(); err != nil {
		return err // cancelled: the document in progress is dropped
	}
	old := a.oldAt(r.abs, doc.ID)
	a.pending = append(a.pending, libPending{doc: doc, segs: segs, old: old})
	a.pendSegs += len(segs)
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = "new", len(segs)
	if old != "" {
		a.p.Status = "changed"
	}
	a.report("file", r.path)
	if len(a.pending) >= libFlushDocs || a.pendSegs >= libFlushSegs ||
		a.pendSegs*a.l.store().Info().Dimension*4 >= libFlushLimitMB<<20 || time.Since(a.lastFlush) >= libFlushEvery {
		return a.flush()
	}
	return nil
}

// oldAt is the id of the document at path abs, other than id.
func (a *libAdder) oldAt(abs, id string) string {
	if old, ok := a.byPath[abs]; ok && old != id {
		return old
	}
	return ""
}

// known settles a file whose content (id) is in the library or pending
// already, and reports whether it did.
func (a *libAdder) known(path, abs, id string) bool {
	for _, p := range a.pending {
		if p.doc.ID == id {
			a.skip(path, "same content as "+p.doc.Path)
			return true
		}
	}
	doc, ok := a.l.store().Document(id)
	if !ok {
		return false
	}
	switch {
	case doc.Path == abs:
		a.rep.Unchanged = append(a.rep.Unchanged, doc)
		a.p.FilesDone++
		a.p.Status, a.p.FileSegments = "unchanged", doc.Segments
		a.report("file", path)
		return true
	case libExists(doc.Path):
		a.skip(path, "same content as "+doc.Path)
		return true
	}
	// Moved: the document takes the new path, with its stored segments and
	// vectors.
	segs := a.l.store().Segments(id)
	for i := range segs {
		v, ok := a.l.store().Vector(segs[i].ID)
		if !ok {
			return false // cannot happen in a whole document; load it again
		}
		segs[i].Vector = v
	}
	from := doc.Path
	doc.Path = abs
	a.pending = append(a.pending, libPending{doc: doc, segs: segs, old: a.oldAt(abs, id), move: true})
	a.pendSegs += len(segs)
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = "moved from "+from, len(segs)
	a.report("file", path)
	return true
}

func libExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// libCause is an error's last part, without the path that the report shows
// beside it.
func libCause(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// embed fills segs' vectors, in batches.
func (a *libAdder) embed(path string, segs []store.Segment) error {
	texts := make([]string, 0, libEmbedBatch)
	for start := 0; start < len(segs); start += libEmbedBatch {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		end := min(start+libEmbedBatch, len(segs))
		texts = texts[:0]
		for _, s := range segs[start:end] {
			texts = append(texts, s.Text)
		}
		vs, err := a.l.emb.Embed(a.ctx, texts)
		if err != nil {
			if ce := a.ctx.Err(); ce != nil {
				return ce
			}
			return fmt.Errorf("couldn't embed %s with %s: %w", path, a.l.emb.Name(), err)
		}
		if len(vs) != len(texts) {
			return fmt.Errorf("embedder %s returned %d vectors for %d texts", a.l.emb.Name(), len(vs), len(texts))
		}
		for i, v := range vs {
			segs[start+i].Vector = v
		}
		a.p.Embedded += len(vs)
		a.report("embed", path)
	}
	return nil
}

// flush commits the pending documents in one update, replacing the
// documents they replace, and then indexes them. If another process changed
// the library since it was loaded, flush reloads it, settles the pending
// documents again against what is there now, and commits once more (under
// the writer lock no other ibid process can change it again).
func (a *libAdder) flush() error {
	if len(a.pending) == 0 {
		return nil
	}
	a.report("store", "")
	// A cancel must not lose documents that are whole.
	ctx := context.WithoutCancel(a.ctx)
	puts, deletes := a.updates()
	err := a.l.store().Update(ctx, puts, deletes)
	if errors.Is(err, store.ErrChanged) {
		if err := a.l.reload(); err != nil {
			return err
		}
		a.indexPaths()
		a.resettle()
		puts, deletes = a.updates()
		err = a.l.store().Update(ctx, puts, deletes)
	}
	if err != nil {
		return fmt.Errorf("couldn't store documents in library %q: %w", a.l.name, err)
	}

	a.l.mu.Lock()
	for _, id := range deletes {
		a.l.idx.RemoveDocument(id)
	}
	for _, p := range a.pending {
		a.l.idx.AddDocument(p.doc, libStripVectors(p.segs))
	}
	a.l.mu.Unlock()
	a.l.touched()

	for _, p := range a.pending {
		if p.old != "" {
			delete(a.byPath, a.pathOf(p.old))
		}
		a.byPath[p.doc.Path] = p.doc.ID
		switch {
		case p.move:
			a.rep.Moved = append(a.rep.Moved, p.doc)
		case p.old != "":
			a.rep.Replaced = append(a.rep.Replaced, p.doc)
		default:
			a.rep.Added = append(a.rep.Added, p.doc)
		}
	}
	a.pending, a.pendSegs, a.lastFlush = a.pending[:0], 0, time.Now()
	return nil
}

// pathOf is the path of the document with id in byPath.
func (a *libAdder) pathOf(id string) string {
	for p, d := range a.byPath {
		if d == id {
			return p
		}
	}
	return ""
}

func (a *libAdder) updates() (puts []store.Put, deletes []string) {
	for _, p := range a.pending {
		puts = append(puts, store.Put{Document: p.doc, Segments: p.segs})
		if p.old != "" {
			deletes = append(deletes, p.old)
		}
	}
	return puts, deletes
}

// resettle decides the pending documents again after a reload: those the
// other process added meanwhile are unchanged or duplicates now, and the
// documents they replace are whatever is at their paths now.
func (a *libAdder) resettle() {
	keep := a.pending[:0]
	a.pendSegs = 0
	for _, p := range a.pending {
		if doc, ok := a.l.store().Document(p.doc.ID); ok && !(p.move && doc.Path != p.doc.Path && !libExists(doc.Path)) {
			if doc.Path == p.doc.Path {
				a.rep.Unchanged = append(a.rep.Unchanged, doc)
			} else {
				a.rep.Skipped = append(a.rep.Skipped, &ingest.SkipError{Path: p.doc.Path, Reason: "same content as " + doc.Path})
			}
			continue
		}
		p.old = a.oldAt(p.doc.Path, p.doc.ID)
		keep = append(keep, p)
		a.pendSegs += len(p.segs)
	}
	a.pending = keep
}

// libStripVectors returns segs without their vectors (the index keeps no
// vectors; the store has them).
func libStripVectors(segs []store.Segment) []store.Segment {
	out := make([]store.Segment, len(segs))
	for i, s := range segs {
		s.Vector = nil
		out[i] = s
	}
	return out
}

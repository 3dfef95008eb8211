package library

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// Stage is where an Add is; its string is the stage's name.
type Stage string

// The stages of an Add, in the order a file passes them (StageSkip
// instead of the rest for a file that is skipped).
const (
	StageLoad   Stage = "load"   // reading File
	StageOCR    Stage = "ocr"    // Tesseract reading File's scanned pages (OCRDone of OCRTotal)
	StageEnrich Stage = "enrich" // the model writing what a strategy indexes
	StageEmbed  Stage = "embed"
	StageStore  Stage = "store" // committing
	StageSkip   Stage = "skip"  // File was skipped
	StageFile   Stage = "file"  // File is done
	StageDone   Stage = "done"  // the whole Add is
)

func (s Stage) String() string { return string(s) }

// AddProgress is where an Add is. Counts are cumulative over the run.
type AddProgress struct {
	Stage      Stage
	File       string
	FilesDone  int // files done (added, unchanged, replaced or skipped)
	FilesTotal int // files found
	Segments   int // segments of the documents loaded so far
	Embedded   int // segments embedded so far
	ToEmbed    int // segments loaded so far that need embedding
	// With StageEnrich: the chunks of File the model has enriched so
	// far, of ToEnrich.
	Enriched, ToEnrich int
	// With StageOCR: the pages of File without a text layer that
	// Tesseract has read, of OCRTotal.
	OCRDone, OCRTotal int
	// With StageFile: Status is "new", "changed", "unchanged",
	// "re-indexed" (same content, indexed again with another strategy) or
	// "moved from PATH", and FileSegments the file's segments; with StageSkip,
	// Status is the reason.
	Status       string
	FileSegments int
}

// AddReport is what an Add did. Every file found is in exactly one list
// (Moved counts files whose content was in the library under a path that
// no longer exists: the document now has the new path).
type AddReport struct {
	Added, Unchanged, Replaced, Moved []store.Document
	// Reindexed are documents indexed again, same content at the same
	// path, with another strategy (AddOptions.Reindex).
	Reindexed []store.Document
	// Updated are documents whose content is unchanged and whose
	// metadata changed: their bibliography entry did (AddBibliography,
	// AttachBibliography).
	Updated []store.Document
	Skipped []*ingest.SkipError
	// Notes say what loading changed or left out of files that were added
	// (base64 blobs dropped, deep nesting flattened, front matter not read).
	Notes []Note
}

// Note is one thing loading changed or left out of a file.
type Note struct {
	Path, Text string
}

// Commit batching: small documents are committed together (each commit
// syncs the disk twice), but never more than these at once, and at least
// every flushEvery, so that an interrupted add keeps what it has done.
const (
	embedBatch   = 64
	flushDocs    = 32
	flushSegs    = 1024
	flushEvery   = 2 * time.Second
	flushLimitMB = 64 // vectors held before a commit
)

// queued is a loaded, embedded document waiting for its commit.
type queued struct {
	doc  store.Document
	segs []store.Segment
	old  string // id of the document this one replaces ("" if none)
	move bool   // same id as a document at a path that is gone
	// update: the same document, at the same path, with new metadata.
	update bool
	// restat: the same document, at the same path, recording its file's
	// new size and time (reported as unchanged).
	restat bool
}

// adder is the state of one Add run.
type adder struct {
	l        *Library
	ctx      context.Context
	progress func(AddProgress)
	rep      *AddReport
	opt      AddOptions
	strategy ingest.Strategy // settled by settleStrategy
	pmu      sync.Mutex      // serialises progress reports from enrichment's goroutines
	p        AddProgress
	loader   *ingest.Loader

	byPath map[string]string // absolute path → document id, in the store
	// prior: the documents by absolute path when the run began, but those
	// waiting to be embedded again; read by the reader, never changed.
	prior map[string]store.Document
	// unembedded: documents whose vectors a repair lost (store.Unembedded):
	// their file, met again, is embedded again.
	unembedded map[string]bool
	pending    []queued
	pendSegs   int
	// skipStats: the size and time of the files skipped, as they were
	// read, for the memory of skipped files (skips.go)
	skipStats map[string]fileStat
	lastFlush time.Time
	ocr       ocrTicker
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
// progress, if not nil, is called as it goes, one call at a time.
//
// Cancelling ctx stops the run after committing the documents that were
// whole; Add then returns the report so far and ctx's error. At every
// moment, even if the process is killed, the library holds whole documents
// only. An error that would fail every file (the embedder cannot be
// reached, the disk is full) stops the run with the report so far.
func (l *Library) Add(ctx context.Context, paths []string, progress func(AddProgress)) (*AddReport, error) {
	return l.AddWith(ctx, paths, AddOptions{}, progress)
}

// AddOptions tune an Add.
type AddOptions struct {
	// MaxFileSize skips files larger than this many bytes, with the reason;
	// 0 leaves it to the loader's limits per format.
	MaxFileSize int64
	// Strategy indexes the files (ingest.Strategy, recorded on each
	// document); "" keeps the library's, Recursive for a new library. A
	// strategy other than the library's is refused with a *StrategyError
	// unless Reindex.
	Strategy ingest.Strategy
	// Reindex indexes again, with Strategy, every document of the library
	// indexed otherwise (besides the paths given), each replaced whole
	// when its new index is committed.
	Reindex bool
	// Enrich writes what the strategies that need a model index; without
	// it they are refused with ErrNeedsModel before anything is written.
	Enrich Enricher
	// Follow remembers the paths (folders, files, globs) as roots of the
	// library, with these options, so that Sync and Watch keep the library
	// in step with them (roots.go). A run that is refused, or fails, for
	// a reason other than a cancel remembers nothing; a bibliography's
	// files are never followed.
	Follow bool

	// bib, set by AddBibliography, gives documents their entries'
	// metadata.
	bib *bibAdd
	// synced: the add of a Sync, which remembers the files it skips
	// (skips.go) as an add that follows does.
	synced bool
}

// AddWith is Add with options.
func (l *Library) AddWith(ctx context.Context, paths []string, opt AddOptions, progress func(AddProgress)) (*AddReport, error) {
	rep := &AddReport{}
	if l.emb == nil {
		return rep, l.noEmbedder()
	}
	if progress == nil {
		progress = func(AddProgress) {}
	}
	files, skipped := ingest.Expand(paths)
	rep.Skipped = append(rep.Skipped, skipped...)
	a := &adder{l: l, ctx: ctx, progress: progress, rep: rep, opt: opt}
	a.ocr.tick = make(chan struct{}, 1)
	a.p.FilesTotal = len(files) + len(skipped)
	for _, s := range skipped {
		a.p.FilesDone++
		a.p.Status = s.Reason
		a.report(StageSkip, s.Path)
	}
	if len(files) == 0 && !opt.Reindex {
		if opt.Follow && opt.bib == nil { // an empty folder is followed for what comes
			st, _, err := l.Strategy(ctx)
			if err != nil {
				return rep, err
			}
			if opt.Strategy != "" {
				st = opt.Strategy
			}
			return rep, l.follow(ctx, paths, opt, st)
		}
		return rep, nil
	}

	ctx, cancel := l.bind(ctx) // Close cancels the run
	defer cancel()
	a.ctx = ctx
	l.wmu.Lock()
	defer l.wmu.Unlock()

	docs, err := a.indexPaths()
	if err != nil {
		return rep, err
	}
	if err := a.settleStrategy(docs); err != nil {
		return rep, err
	}
	a.prior = make(map[string]store.Document, len(docs))
	for _, d := range docs {
		if !a.unembedded[d.ID] {
			a.prior[d.Path] = d
		}
	}
	if opt.Reindex {
		files = union(files, a.stale(docs))
		a.p.FilesTotal = len(files) + len(skipped)
	}
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
		a.report(StageLoad, f)
		r, ok := a.next(next)
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
	if runErr == nil || errors.Is(runErr, context.Canceled) {
		// The paths are followed even when the run was cancelled: a sync
		// finishes it.
		wctx := context.WithoutCancel(ctx)
		if opt.Follow && opt.bib == nil { // a bibliography's files are its own
			if err := l.follow(wctx, paths, opt, a.strategy); err != nil && runErr == nil {
				runErr = err
			}
		}
		if opt.Follow && opt.bib == nil || opt.synced {
			a.rememberSkips()
		}
		if opt.Reindex && runErr == nil {
			if err := l.restrategise(wctx, a.strategy); err != nil {
				runErr = err
			}
		}
	}
	a.report(StageDone, "")
	return rep, runErr
}

func (a *adder) report(stage Stage, file string) {
	a.p.Stage, a.p.File = stage, file
	a.progress(a.p)
}

func (a *adder) skip(path, reason string) {
	a.rep.Skipped = append(a.rep.Skipped, &ingest.SkipError{Path: path, Reason: reason})
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = reason, 0
	a.report(StageSkip, path)
}

// skipRead skips a file read, noting its size and time.
func (a *adder) skipRead(r fileRead, reason string) {
	if r.statOK && r.abs != "" {
		if a.skipStats == nil {
			a.skipStats = map[string]fileStat{}
		}
		a.skipStats[r.abs] = r.st
	}
	a.skip(r.path, reason)
}

// indexPaths maps the store's documents by path, and returns them.
func (a *adder) indexPaths() ([]store.Document, error) {
	docs, err := a.l.st.Documents(context.WithoutCancel(a.ctx))
	if err != nil {
		return nil, fmt.Errorf("couldn't read library %q: %w", a.l.name, err)
	}
	a.byPath = make(map[string]string, len(docs))
	for _, d := range docs {
		a.byPath[d.Path] = d.ID
	}
	if a.unembedded, err = a.l.unembedded(context.WithoutCancel(a.ctx)); err != nil {
		return nil, err
	}
	return docs, nil
}

// union is files with the paths of more that it lacks, in order.
func union(files, more []string) []string {
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if abs, err := filepath.Abs(f); err == nil {
			seen[abs] = true
		}
	}
	for _, m := range more {
		if !seen[m] {
			files = append(files, m)
			seen[m] = true
		}
	}
	return files
}

// file adds one file the reader read. It returns an error only for what
// stops the run.
func (a *adder) file(r fileRead) error {
	switch {
	case r.err != nil:
		return r.err
	case r.skip != "":
		a.skipRead(r, r.skip)
		return nil
	case r.same != nil:
		if a.stillSame(r) {
			return nil
		}
		// Replaced or removed by another process since the run began:
		// read the file after all.
		if r = a.read(a.ctx, r.path, false); r.err != nil || r.skip != "" {
			return a.file(r)
		}
	}
	if a.known(r) {
		return nil
	}
	if r.ld == nil { // its content was in the library when read, but is not now
		ld, reason, err := a.load(a.ctx, r.file)
		switch {
		case err != nil:
			return err
		case reason != "":
			a.skipRead(r, reason)
			return nil
		}
		r.ld = ld
	}
	for _, n := range r.ld.Notes {
		a.rep.Notes = append(a.rep.Notes, Note{Path: r.path, Text: n})
	}
	if err := a.enrich(r.path, r.ld); err != nil {
		return err
	}
	doc, segs := r.ld.Document, r.ld.Segments
	doc.Path = r.abs
	if r.statOK {
		doc, _ = withStat(doc, r.st)
	}
	if m, ok := a.opt.bib.metaFor(r.abs); ok {
		doc, _ = withEntry(doc, m)
	}
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
	a.pending = append(a.pending, queued{doc: doc, segs: segs, old: old})
	a.pendSegs += len(segs)
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = "new", len(segs)
	switch {
	case old != "":
		a.p.Status = "changed"
	case a.byPath[r.abs] == doc.ID:
		a.p.Status = "re-indexed"
	}
	a.report(StageFile, r.path)
	if len(a.pending) >= flushDocs || a.pendSegs >= flushSegs ||
		a.pendSegs*a.l.built.Dimension*4 >= flushLimitMB<<20 || time.Since(a.lastFlush) >= flushEvery {
		return a.flush()
	}
	return nil
}

// oldAt is the id of the document at path abs, other than id.
func (a *adder) oldAt(abs, id string) string {
	if old, ok := a.byPath[abs]; ok && old != id {
		return old
	}
	return ""
}

// stillSame settles a file the reader found unchanged by its size and
// time (r.same), and reports whether it could: false when the document
// is no longer in the library at that path.
func (a *adder) stillSame(r fileRead) bool {
	doc, err := a.l.st.Document(a.ctx, r.same.ID)
	if err != nil || doc.Path != r.abs {
		return false
	}
	a.rep.Unchanged = append(a.rep.Unchanged, doc)
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = "unchanged", doc.Segments
	a.report(StageFile, r.path)
	return true
}

// known settles a file whose content (id) is in the library or pending
// already, and reports whether it did.
func (a *adder) known(r fileRead) bool {
	path, abs, id := r.path, r.abs, r.id
	for _, p := range a.pending {
		if p.doc.ID == id {
			a.skip(path, "same content as "+p.doc.Path)
			return true
		}
	}
	doc, err := a.l.st.Document(a.ctx, id)
	if err != nil {
		return false // not there (or unreadable: then loading it again is right)
	}
	reindex := DocumentStrategy(doc) != a.strategy || a.unembedded[id]
	switch {
	case doc.Path == abs && reindex:
		return false // indexed with another strategy, or its vectors lost: load it again
	case doc.Path == abs:
		next, restat := doc, false
		if r.statOK {
			next, restat = withStat(doc, r.st)
		}
		if m, ok := a.opt.bib.metaFor(abs); ok {
			if next, changed := withEntry(next, m); changed {
				return a.updateMeta(path, next, false)
			}
		}
		if restat && a.updateMeta(path, next, true) {
			return true
		}
		a.rep.Unchanged = append(a.rep.Unchanged, doc)
		a.p.FilesDone++
		a.p.Status, a.p.FileSegments = "unchanged", doc.Segments
		a.report(StageFile, path)
		return true
	case exists(doc.Path):
		a.skip(path, "same content as "+doc.Path)
		return true
	case reindex:
		return false // moved, and to index again: load it at its new path
	}
	// Moved: the document takes the new path, with its stored segments and
	// vectors.
	segs, err := a.l.st.Segments(a.ctx, id, 0, -1)
	if err != nil {
		return false // load it again
	}
	vecs, err := a.l.st.Vectors(a.ctx, id)
	if err != nil || len(vecs) != len(segs) {
		return false // cannot happen in a whole document; load it again
	}
	for i := range segs {
		segs[i].Vector = vecs[i]
	}
	from := doc.Path
	doc.Path = abs
	if r.statOK {
		doc, _ = withStat(doc, r.st)
	}
	if m, ok := a.opt.bib.metaFor(abs); ok {
		doc, _ = withEntry(doc, m)
	}
	a.pending = append(a.pending, queued{doc: doc, segs: segs, old: a.oldAt(abs, id), move: true})
	a.pendSegs += len(segs)
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = "moved from "+from, len(segs)
	a.report(StageFile, path)
	return true
}

// updateMeta queues doc, unchanged but for its metadata, to be stored
// again with its segments and vectors; false when they cannot be read
// (the file is then loaded again). restat says that only the file's size
// and time changed: the file is reported as unchanged.
func (a *adder) updateMeta(path string, doc store.Document, restat bool) bool {
	put, err := a.l.reput(a.ctx, doc)
	if err != nil {
		return false
	}
	a.pending = append(a.pending, queued{doc: doc, segs: put.Segments, update: !restat, restat: restat})
	a.pendSegs += len(put.Segments)
	a.p.FilesDone++
	a.p.Status, a.p.FileSegments = "metadata updated", doc.Segments
	if restat {
		a.p.Status = "unchanged"
	}
	a.report(StageFile, path)
	return true
}

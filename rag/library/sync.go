package library

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// Sync keeps a library in step with its roots (roots.go): files that are
// new under them are added, files that changed replace their documents,
// and documents whose files are gone are removed. It reads only what is
// new or changed: a file whose size and time are those its document
// recorded is not opened (stat.go), nor is a file skipped before and
// unchanged since (skips.go).
//
// Removing is where a mistake costs most (a folder deleted or a drive
// unmounted would empty the library), so a sync removes on its own only a
// few documents: when a followed folder is gone, or more than pruneMin
// documents and more than a pruneShare of those under the roots are gone,
// it keeps them (SyncReport.Held) and says so; SyncOptions.Prune removes
// them.

// When removals are held back without SyncOptions.Prune.
const (
	pruneMin   = 10   // more than this many documents gone...
	pruneShare = 0.25 // ...and more than this share of those under the roots
)

// More stages of a Sync's progress (AddProgress.Stage); the files it adds
// report the stages of an add.
const (
	StageScan   Stage = "scan"   // listing the roots: FilesDone files seen so far
	StageSettle Stage = "settle" // waiting for FilesTotal new or changed files to settle
	StageRemove Stage = "remove" // removing FilesTotal documents whose files are gone
)

// SyncOptions tune a Sync.
type SyncOptions struct {
	// Prune removes the documents whose files are gone however many they
	// are; without it, removals that look like a mistake are held back
	// (SyncReport.Held).
	Prune bool
	// Settle, when not zero, takes a new or changed file only when its
	// size and time stay the same for this long, so that a file being
	// written is not read half; the others are left for the next sync
	// (SyncReport.Unsettled).
	Settle time.Duration
	// Enrich writes what a strategy that needs a model indexes, as in
	// AddOptions.
	Enrich Enricher
}

// SyncReport is what a Sync did.
type SyncReport struct {
	Roots []Root // the roots synced
	// Missing are the folders followed that are gone; the documents
	// under them are held unless Prune.
	Missing []Root
	// Add is what adding the new and changed files did (Added, Replaced,
	// Moved, Skipped, …).
	Add *AddReport
	// Unchanged counts the files found unchanged by their size and time,
	// not read.
	Unchanged int
	// KnownSkips counts the files skipped by an earlier sync and unchanged
	// since, not read again.
	KnownSkips int
	// Removed are the documents removed because their files are gone.
	Removed []store.Document
	// Held are the documents whose files are gone and that were kept:
	// too many to remove without SyncOptions.Prune.
	Held []store.Document
	// Under counts the documents under the roots before the sync removed
	// any.
	Under int
	// Unsettled are files that were still being written (SyncOptions.Settle).
	Unsettled []string
}

// Changed reports whether the sync changed the library.
func (r *SyncReport) Changed() bool {
	a := r.Add
	return len(a.Added)+len(a.Replaced)+len(a.Moved)+len(a.Reindexed)+len(a.Updated)+len(r.Removed) > 0
}

// Summary is the sync in one line: "2 added, 1 replaced, 3 removed, 996
// unchanged, 1 skipped (2 folders)", then what was held back.
func (r *SyncReport) Summary() string {
	a := r.Add
	parts := []string{fmt.Sprintf("%d added", len(a.Added))}
	if n := len(a.Replaced); n > 0 {
		parts = append(parts, fmt.Sprintf("%d replaced", n))
	}
	if n := len(a.Moved); n > 0 {
		parts = append(parts, fmt.Sprintf("%d moved", n))
	}
	if n := len(a.Reindexed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d re-indexed", n))
	}
	parts = append(parts, fmt.Sprintf("%d removed", len(r.Removed)),
		fmt.Sprintf("%d unchanged", r.Unchanged+len(a.Unchanged)+len(a.Updated)))
	if n := len(a.Skipped) + r.KnownSkips; n > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", n))
	}
	s := strings.Join(parts, ", ") + " (" + plural(len(r.Roots), "followed path") + ")"
	if len(r.Unsettled) > 0 {
		s += fmt.Sprintf("; %s still being written", plural(len(r.Unsettled), "file"))
	}
	if h := r.HeldReason(); h != "" {
		s += "; " + h
	}
	return s
}

// HeldReason says why documents whose files are gone were kept, and how
// to remove them; "" when none were.
func (r *SyncReport) HeldReason() string {
	if len(r.Held) == 0 {
		return ""
	}
	why := fmt.Sprintf("%d of the %d documents under the followed folders are gone", len(r.Held), r.Under)
	if len(r.Missing) > 0 {
		names := make([]string, 0, len(r.Missing))
		for _, m := range r.Missing {
			names = append(names, m.Path)
		}
		why = strings.Join(names, ", ") + " is gone"
		if len(names) > 1 {
			why = strings.Join(names, ", ") + " are gone"
		}
	}
	them := "them"
	if len(r.Held) == 1 {
		them = "it"
	}
	return fmt.Sprintf("%s: %s kept (ibid sync --prune removes %s; ibid sync --forget PATH stops following a folder)",
		why, plural(len(r.Held), "document"), them)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// changedFile is a file a sync found new or changed.
type changedFile struct {
	path string
	st   fileStat
	root int // index in the roots
}

// Sync brings the library in step with its roots: see the comment at the
// top of this file. progress, if not nil, is called as it goes, one call
// at a time. A library that follows nothing syncs nothing. Cancelling ctx
// stops it, keeping the documents that were whole (as Add).
func (l *Library) Sync(ctx context.Context, opt SyncOptions, progress func(AddProgress)) (*SyncReport, error) {
	return l.sync(ctx, opt, nil, progress)
}

// sync is Sync reading the roots' files from listed when it lists the
// roots the library follows now (a watcher's listing, taken just before),
// and listing them itself otherwise: a sync lists the roots once.
func (l *Library) sync(ctx context.Context, opt SyncOptions, listed *listing, progress func(AddProgress)) (*SyncReport, error) {
	rep := &SyncReport{Add: &AddReport{}}
	if progress == nil {
		progress = func(AddProgress) {}
	}
	if l.emb == nil {
		return rep, l.noEmbedder()
	}
	roots, err := l.Roots(ctx)
	if err != nil {
		return rep, err
	}
	rep.Roots = roots
	if len(roots) == 0 {
		return rep, nil
	}
	docs, err := l.st.Documents(ctx)
	if err != nil {
		return rep, fmt.Errorf("couldn't read library %q: %w", l.name, err)
	}
	if listed == nil || !slices.Equal(listed.roots, roots) {
		if listed, err = listRoots(ctx, roots, progress); err != nil {
			return rep, err
		}
	}
	cands, err := l.scan(ctx, listed, docs, rep)
	if err != nil {
		return rep, err
	}
	if cands, err = settle(ctx, cands, opt.Settle, rep, progress); err != nil {
		return rep, err
	}
	if err := l.syncAdd(ctx, roots, cands, opt, rep, progress); err != nil {
		return rep, err
	}
	return rep, l.syncRemove(ctx, roots, opt, rep, progress)
}

// listing is what listing roots found: for each root, in order, whether
// it is gone, its files with their sizes and times, and what Expand
// skipped.
//
// Invariant: len(files) == len(skipped) == len(missing) == len(roots);
// a file is listed once, under the first root that holds it, by its
// absolute path.
type listing struct {
	roots   []Root
	missing []bool // a followed folder or file that does not exist
	files   [][]listedFile
	skipped [][]*ingest.SkipError
}

// listedFile is a file of a root, as it was listed.
type listedFile struct {
	path string // absolute
	st   fileStat
}

// listRoots lists the roots' files (ingest.Expand) and their sizes and
// times, reporting StageScan progress; it stops when ctx does.
func listRoots(ctx context.Context, roots []Root, progress func(AddProgress)) (*listing, error) {
	if progress == nil {
		progress = func(AddProgress) {}
	}
	ls := &listing{roots: roots, missing: make([]bool, len(roots)),
		files: make([][]listedFile, len(roots)), skipped: make([][]*ingest.SkipError, len(roots))}
	seen := map[string]bool{}
	p := AddProgress{Stage: StageScan}
	for i, r := range roots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.Kind != KindGlob {
			if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
				ls.missing[i] = true
				continue
			}
		}
		files, skipped := ingest.Expand([]string{r.Path})
		ls.skipped[i] = skipped
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			abs, err := filepath.Abs(f)
			if err != nil || seen[abs] {
				continue
			}
			seen[abs] = true
			p.FilesDone++
			if p.FilesDone%256 == 0 {
				progress(p)
			}
			fi, err := os.Stat(abs)
			if err != nil {
				continue // gone since it was listed
			}
			ls.files[i] = append(ls.files[i], listedFile{path: abs, st: statOf(fi)})
		}
	}
	progress(p)
	return ls, nil
}

// fingerprint is a digest of the listing: the roots, their files' names,
// sizes and times. Two listings with the same fingerprint found the same.
func (ls *listing) fingerprint() string {
	h := sha256.New()
	for i, r := range ls.roots {
		fmt.Fprintf(h, "root %s\n", r.Path)
		for _, f := range ls.files[i] {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", f.path, f.st.size, f.st.mtime)
		}
	}
	return string(h.Sum(nil))
}

// scan returns the listed files that are new or changed by their size
// and time, counting the others in rep.
func (l *Library) scan(ctx context.Context, ls *listing, docs []store.Document, rep *SyncReport) ([]changedFile, error) {
	strategy, _ := strategyOf(docs)
	lost, err := l.unembedded(ctx)
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]store.Document, len(docs))
	for _, d := range docs {
		byPath[d.Path] = d
	}
	skips := l.skipMemo()
	var cands []changedFile
	for i, r := range ls.roots {
		if ls.missing[i] {
			if r.Kind == KindFolder { // a file root gone is a file gone
				rep.Missing = append(rep.Missing, r)
			}
			continue
		}
		for _, s := range ls.skipped[i] {
			if r.Kind == KindGlob && s.Path == r.Path {
				continue // a glob that matches nothing now: its files are gone
			}
			rep.Add.Skipped = append(rep.Add.Skipped, s)
		}
		for _, f := range ls.files[i] {
			if d, ok := byPath[f.path]; ok && !lost[d.ID] && unchangedAs(d, f.st, strategy) {
				rep.Unchanged++
				continue
			}
			if skips.known(f.path, f.st) {
				rep.KnownSkips++
				continue
			}
			cands = append(cands, changedFile{path: f.path, st: f.st, root: i})
		}
	}
	return cands, nil
}

// settle waits d and keeps the candidates whose size and time did not
// change meanwhile; the others are left for the next sync.
func settle(ctx context.Context, cands []changedFile, d time.Duration, rep *SyncReport, progress func(AddProgress)) ([]changedFile, error) {
	if d <= 0 || len(cands) == 0 {
		return cands, nil
	}
	progress(AddProgress{Stage: StageSettle, FilesTotal: len(cands)})
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
	}
	ready := cands[:0]
	for _, c := range cands {
		fi, err := os.Stat(c.path)
		switch {
		case err != nil:
			// gone meanwhile: nothing to add
		case statOf(fi) != c.st:
			rep.Unsettled = append(rep.Unsettled, c.path)
		default:
			ready = append(ready, c)
		}
	}
	return ready, nil
}

// syncAdd adds the candidates, each with its root's options; the adds
// remember the files they skip.
func (l *Library) syncAdd(ctx context.Context, roots []Root, cands []changedFile, opt SyncOptions, rep *SyncReport, progress func(AddProgress)) error {
	defer l.skipMemo().save() // forgets the files that are gone, added or not
	if len(cands) == 0 {
		return nil
	}
	// One add per set of options, in the roots' order.
	groups := map[int64][]string{}
	var order []int64
	for _, c := range cands {
		size := roots[c.root].MaxFileSize
		if _, ok := groups[size]; !ok {
			order = append(order, size)
		}
		groups[size] = append(groups[size], c.path)
	}
	for _, size := range order {
		ar, err := l.AddWith(ctx, groups[size], AddOptions{MaxFileSize: size, Enrich: opt.Enrich, synced: true}, progress)
		merge(rep.Add, ar)
		if err != nil {
			return err
		}
	}
	return nil
}

// merge adds b's lists to a's.
func merge(a, b *AddReport) {
	if b == nil {
		return
	}
	a.Added = append(a.Added, b.Added...)
	a.Unchanged = append(a.Unchanged, b.Unchanged...)
	a.Replaced = append(a.Replaced, b.Replaced...)
	a.Moved = append(a.Moved, b.Moved...)
	a.Reindexed = append(a.Reindexed, b.Reindexed...)
	a.Updated = append(a.Updated, b.Updated...)
	a.Skipped = append(a.Skipped, b.Skipped...)
	a.Notes = append(a.Notes, b.Notes...)
}

// syncRemove removes the documents under the roots whose files are gone,
// or holds them back (see the top of this file).
func (l *Library) syncRemove(ctx context.Context, roots []Root, opt SyncOptions, rep *SyncReport, progress func(AddProgress)) error {
	ctx, cancel := l.bind(ctx)
	defer cancel()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	for try := 0; ; try++ {
		docs, err := l.st.Documents(ctx)
		if err != nil {
			return fmt.Errorf("couldn't read library %q: %w", l.name, err)
		}
		var gone []store.Document
		under, missing := 0, false
		for _, d := range docs {
			i := slices.IndexFunc(roots, func(r Root) bool { return r.Contains(d.Path) })
			if i < 0 {
				continue
			}
			under++
			if _, err := os.Lstat(d.Path); errors.Is(err, fs.ErrNotExist) {
				gone = append(gone, d)
				missing = missing || slices.ContainsFunc(rep.Missing, func(m Root) bool { return m.Contains(d.Path) })
			}
		}
		rep.Under = under
		if len(gone) == 0 {
			return nil
		}
		if !opt.Prune && (missing || len(gone) > pruneMin && float64(len(gone)) > pruneShare*float64(under)) {
			rep.Held = gone
			return nil
		}
		progress(AddProgress{Stage: StageRemove, FilesTotal: len(gone)})
		ids := make([]string, len(gone))
		for i, d := range gone {
			ids[i] = d.ID
		}
		err = l.st.Update(ctx, nil, ids)
		if errors.Is(err, store.ErrNotFound) && try < 3 {
			continue // another process removed or replaced one meanwhile: look again
		}
		if err != nil {
			return fmt.Errorf("couldn't remove documents from library %q: %w", l.name, err)
		}
		rep.Removed = gone
		progress(AddProgress{Stage: StageRemove, FilesDone: len(gone), FilesTotal: len(gone)})
		return nil
	}
}

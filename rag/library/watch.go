package library

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// A watcher keeps a library in step with its roots while a program runs
// (the chat, ibid serve): it syncs once when it starts, then again after
// the file system reports a change under a root and has been quiet for a
// debounce interval, taking new and changed files only once they have
// settled (SyncOptions.Settle), so that a file being copied in is not read
// half. Changes are seen through the operating system's notifications
// (fsnotify: inotify, kqueue, ReadDirectoryChangesW); every poll interval
// it also reads the roots again (another process may have added a folder)
// and lists them, and syncs when their files' names, sizes or times
// changed: that is how it follows roots it cannot watch (a network file
// system, the notification limits reached), and what catches an event
// the system dropped. It never removes more than a sync would on its own:
// mass removals are held and reported (SyncReport.Held).

// Defaults of WatchOptions.
const (
	DefaultDebounce = time.Second
	DefaultPoll     = 3 * time.Second
)

// WatchOptions tune Watch.
type WatchOptions struct {
	// Debounce is how long the file system must be quiet after a change
	// before a sync, and how long a new or changed file's size and time
	// must stay the same before it is read (DefaultDebounce if 0).
	Debounce time.Duration
	// Poll is how often the roots are read again and listed
	// (DefaultPoll if 0); a listing that takes long stretches it, up to
	// a twentieth of the time spent listing.
	Poll time.Duration
	// PollOnly lists the roots every Poll instead of asking the system
	// for notifications (as where they cannot be had).
	PollOnly bool
	// Enrich, as in SyncOptions, for a library whose strategy needs a
	// model.
	Enrich Enricher
	// Report is told what the watcher does, from its goroutine, one call
	// at a time; it must not block for long.
	Report func(WatchEvent)
}

// WatchKind is what a WatchEvent reports.
type WatchKind int

// The kinds of WatchEvent.
const (
	// WatchMode: how the roots are followed (Note), at the start and when
	// that changes.
	WatchMode WatchKind = iota
	// WatchProgress: a sync is under way (Progress).
	WatchProgress
	// WatchSynced: a sync ended (Report).
	WatchSynced
	// WatchFailed: a sync failed (Err); the watcher goes on.
	WatchFailed
)

func (k WatchKind) String() string {
	switch k {
	case WatchMode:
		return "mode"
	case WatchProgress:
		return "progress"
	case WatchSynced:
		return "synced"
	case WatchFailed:
		return "failed"
	}
	return "WatchKind(" + strconv.Itoa(int(k)) + ")"
}

// WatchEvent is something a watcher did.
type WatchEvent struct {
	Kind     WatchKind
	Note     string      // WatchMode: "watching 2 folders", "listing 1 folder every 3s (…)"
	Progress AddProgress // WatchProgress
	Report   *SyncReport // WatchSynced
	Err      error       // WatchFailed
}

// Watcher is a running watch of a library's roots.
type Watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Stop stops the watcher and waits for it; a sync under way is cancelled
// and keeps the documents that were whole. Stop may be called more than
// once.
func (w *Watcher) Stop() {
	w.cancel()
	<-w.done
}

// Watch starts watching the library's roots in a goroutine of its own,
// until Stop, ctx is done or the library is closed.
func (l *Library) Watch(ctx context.Context, opt WatchOptions) *Watcher {
	if opt.Debounce <= 0 {
		opt.Debounce = DefaultDebounce
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Report == nil {
		opt.Report = func(WatchEvent) {}
	}
	ctx, cancel := l.bind(ctx)
	w := &Watcher{cancel: cancel, done: make(chan struct{})}
	r := &watchRun{l: l, opt: opt}
	go func() {
		defer close(w.done)
		defer cancel()
		r.run(ctx)
	}()
	return w
}

// watchRun is the state of a watcher's goroutine.
type watchRun struct {
	l     *Library
	opt   WatchOptions
	roots []Root
	fsw   *fsnotify.Watcher // nil: polling only
	dirs  map[string]bool   // folders watched
	why   string            // why some roots are only listed ("" if none is)
	note  string            // the last WatchMode note sent
	print string            // the roots' listing (fingerprint) after the last sync
	poll  time.Duration     // the current poll interval
}

func (r *watchRun) run(ctx context.Context) {
	if !r.opt.PollOnly {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			r.why = "the system's file notifications are not available: " + err.Error()
		} else {
			r.fsw = fsw
			defer fsw.Close()
		}
	} else {
		r.why = "listing asked for"
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if r.fsw != nil {
		events, errs = r.fsw.Events, r.fsw.Errors
	}
	r.poll = r.opt.Poll
	r.reroot(ctx)

	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	if r.sync(ctx, nil) {
		debounce.Reset(r.opt.Debounce) // files still being written
	}
	poll := time.NewTimer(r.poll)
	defer debounce.Stop()
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if r.relevant(ev) {
				debounce.Reset(r.opt.Debounce)
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				debounce.Reset(r.opt.Debounce) // events were lost: look at everything
			}
		case <-r.l.rootsChange():
			r.reroot(ctx)
			debounce.Reset(r.opt.Debounce)
		case <-debounce.C:
			if r.sync(ctx, nil) {
				debounce.Reset(r.opt.Debounce) // files still being written
			}
		case <-poll.C:
			r.rewatch()
			rerooted := r.reroot(ctx)
			if ls := r.list(ctx, nil); ls != nil && (rerooted || ls.fingerprint() != r.print) {
				if r.sync(ctx, ls) {
					debounce.Reset(r.opt.Debounce)
				}
			}
			poll.Reset(r.poll)
		}
	}
}

// sync runs a sync over ls (the roots as just listed; nil: listed now),
// reporting it, and reports whether files were still being written
// (another sync should follow).
func (r *watchRun) sync(ctx context.Context, ls *listing) (again bool) {
	if len(r.roots) == 0 {
		r.print = ""
		return false
	}
	progress := func(p AddProgress) {
		r.opt.Report(WatchEvent{Kind: WatchProgress, Progress: p})
	}
	if ls == nil {
		if ls = r.list(ctx, progress); ls == nil {
			return false
		}
	}
	// The listing before the sync: what changes during it is seen by the
	// next poll. A failed sync is tried again at the next change.
	rep, err := r.l.sync(ctx, SyncOptions{Settle: r.opt.Debounce, Enrich: r.opt.Enrich}, ls, progress)
	if ctx.Err() != nil {
		return false
	}
	r.print = ls.fingerprint()
	if err != nil {
		r.opt.Report(WatchEvent{Kind: WatchFailed, Err: err})
		return false
	}
	r.opt.Report(WatchEvent{Kind: WatchSynced, Report: rep})
	return len(rep.Unsettled) > 0
}

// reroot reads the roots again and, when they changed, watches the new
// ones; it reports whether they changed.
func (r *watchRun) reroot(ctx context.Context) bool {
	roots, err := r.l.Roots(ctx)
	if err != nil {
		return false // kept as they were; the next poll tries again
	}
	changed := !slices.Equal(roots, r.roots) || r.dirs == nil
	r.roots = roots
	if changed && r.fsw != nil {
		for d := range r.dirs {
			r.fsw.Remove(d)
		}
		r.dirs = map[string]bool{}
		r.why = ""
		for _, root := range roots {
			r.watchRoot(root)
		}
	}
	if r.dirs == nil {
		r.dirs = map[string]bool{}
	}
	r.sayMode()
	return changed
}

// watchRoot asks for notifications of the folders where root's files
// are: a folder root's whole tree, a file root's folder, a glob's folder
// (a glob with wildcards in its folder part is only listed).
func (r *watchRun) watchRoot(root Root) {
	switch root.Kind {
	case KindFile:
		r.watchDir(filepath.Dir(root.Path))
	case KindGlob:
		dir := filepath.Dir(root.Path)
		if hasMeta(dir) {
			// Its folders could be anywhere under the first wildcard:
			// listed, not watched.
			if r.why == "" {
				r.why = "a glob with wildcards in its folders is listed, not watched"
			}
			return
		}
		r.watchDir(dir)
	default:
		r.watchTree(root.Path)
	}
}

// rewatch watches again the followed folders that are back after they
// were gone (deleted, a drive unmounted), and the folder above those that
// are gone, which tells when they come back.
func (r *watchRun) rewatch() {
	if r.fsw == nil {
		return
	}
	for _, root := range r.roots {
		if root.Kind == KindFolder && !r.dirs[root.Path] {
			r.watchTree(root.Path)
		}
	}
}

// watchTree watches dir and the folders under it, but hidden ones.
func (r *watchRun) watchTree(dir string) {
	if _, err := os.Stat(dir); err != nil {
		// gone: its parent tells when it comes back
		r.watchDir(filepath.Dir(dir))
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if !r.watchDir(p) {
			return filepath.SkipAll
		}
		return nil
	})
}

// watchDir watches one folder; false when the system refused (the roots
// are then also followed by listing them, and why is said).
func (r *watchRun) watchDir(dir string) bool {
	if r.fsw == nil || r.dirs[dir] {
		return r.fsw != nil
	}
	if err := r.fsw.Add(dir); err != nil {
		if _, serr := os.Stat(dir); serr != nil {
			return true // gone meanwhile: nothing to watch
		}
		if r.why == "" {
			r.why = fmt.Sprintf("couldn't watch %s: %v", dir, err)
			if errors.Is(err, syscall.ENOSPC) {
				r.why += " (the limit of watched folders; raise it with: sysctl fs.inotify.max_user_watches=524288)"
			}
		}
		return false
	}
	r.dirs[dir] = true
	return true
}

// relevant reports whether ev may change what the roots hold; a new
// folder under a watched one is watched too.
func (r *watchRun) relevant(ev fsnotify.Event) bool {
	p := filepath.Clean(ev.Name)
	if ev.Has(fsnotify.Create) && r.dirs[filepath.Dir(p)] {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && !strings.HasPrefix(fi.Name(), ".") {
			for _, root := range r.roots {
				if root.Kind == KindFolder && (root.Path == p || root.Contains(p)) {
					r.watchTree(p)
					r.sayMode()
					return true
				}
			}
		}
	}
	if r.dirs[p] && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		delete(r.dirs, p) // the system forgets a removed folder
		for _, root := range r.roots {
			if root.Kind == KindFolder && root.Path == p {
				r.watchDir(filepath.Dir(p)) // to see it come back
			}
		}
	}
	for _, root := range r.roots {
		if root.Path == p || root.Contains(p) || strings.HasPrefix(root.Path, p+string(filepath.Separator)) {
			return true // a file of the root, or a folder on the way to it
		}
	}
	return false
}

// sayMode reports how the roots are followed, when that changed.
func (r *watchRun) sayMode() {
	n := plural(len(r.roots), "followed path")
	note := "watching " + n
	switch {
	case len(r.roots) == 0:
		note = "no folders followed"
	case r.fsw == nil || r.why != "":
		note = fmt.Sprintf("listing %s every %s (%s)", n, r.poll.Round(time.Second), r.why)
	}
	if note != r.note {
		r.note = note
		r.opt.Report(WatchEvent{Kind: WatchMode, Note: note})
	}
}

// list lists the roots (listRoots), nil when ctx ended. It stretches the
// poll interval when listing takes long.
func (r *watchRun) list(ctx context.Context, progress func(AddProgress)) *listing {
	start := time.Now()
	ls, err := listRoots(ctx, r.roots, progress)
	if err != nil {
		return nil
	}
	r.poll = max(r.opt.Poll, 20*time.Since(start))
	return ls
}

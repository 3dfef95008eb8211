package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/ibid-dev/ibid/rag/library"
	"github.com/spf13/cobra"
)

// syncCommand is ibid sync: the library in step with the folders it
// follows.
func syncCommand(cfg *Config) *cobra.Command {
	var prune, list bool
	var forget []string
	c := &cobra.Command{
		Use:   "sync",
		Short: "Bring a library in step with the folders it follows",
		Long: prose(`Brings a library in step with the folders, files and globs it follows: every
path ibid add (or the chat's /add) was given is remembered with the add's
options. New files are added, changed files replace their documents, and
documents whose files are gone are removed; one line says what changed.
Only new and changed files are read: a file whose size and modification
time are unchanged is not opened, so a sync of a large folder where
nothing changed takes a moment. Files skipped before (another format, a
PDF that cannot be read) are not tried again until they change; ibid add
tries them again.

A sync removes on its own only a few documents. When a followed folder is
gone (deleted, or a drive not mounted), or more than 10 documents and more
than a quarter of those under the followed folders are gone, it keeps them
and says so: run ibid sync --prune to remove them, or ibid sync --forget
PATH to stop following a folder (its documents stay; ibid rm PATH removes
them and forgets it).

The chat and ibid serve keep the library in step by themselves while they
run: they watch the followed folders and sync in the background.`),
		Example: `# Follow a folder, then keep the library in step with it:
ibid add ~/papers
ibid sync

# After deleting a followed folder on purpose:
ibid sync --prune

# What the library follows, and stop following one:
ibid sync --list
ibid sync --forget ~/papers/old`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("sync: unexpected %q; ibid sync syncs the paths the library follows: add a folder with ibid add %s", args[0], args[0])
			}
			switch {
			case list && (prune || len(forget) > 0):
				return errors.New("sync: --list shows what the library follows; give it alone")
			case list:
				return runSyncList(cmd, cfg)
			case len(forget) > 0:
				if prune {
					return errors.New("sync: --forget stops following paths and removes nothing; give --prune on its own")
				}
				return runSyncForget(cmd, cfg, forget)
			}
			return runSync(cmd, cfg, prune)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	fs.BoolVar(&prune, "prune", false, "remove the documents whose files are gone however many they are (a sync holds back removals that look like a mistake)")
	fs.BoolVar(&list, "list", false, "list the folders, files and globs the library follows, with their options")
	fs.StringArrayVar(&forget, "forget", nil, "stop following this path (as ibid sync --list shows it); its documents stay in the library")
	fs.StringVar(&cfg.EnrichModel, "enrich-model", cfg.EnrichModel,
		"chat model that writes what contextual, window-summary and questions index (env IBID_ENRICH_MODEL); empty uses --model")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "chat model name (env IBID_MODEL), for the strategies that need one")
	completeCommon(c, cfg)
	return c
}

func runSync(cmd *cobra.Command, cfg *Config, prune bool) error {
	ctx := cmd.Context()
	lib, err := openExisting(ctx, cfg, cfg.Library, writable)
	if err != nil {
		return err
	}
	defer lib.Close()
	roots, err := lib.Roots(ctx)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	out := cmd.OutOrStdout()
	if len(roots) == 0 {
		fmt.Fprintf(out, "library %q follows no folders yet: ibid add --library %s FOLDER adds one and follows it\n", lib.Name(), lib.Name())
		return nil
	}
	as, err := settleAdd(ctx, cfg, lib, "", nil) // a strategy that needs a model gets one
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	stderr := cmd.ErrOrStderr()
	tty, width := isTerminal(stderr)
	pr := &addPrinter{w: stderr, tty: tty, width: width, lib: lib.Name()}
	start := time.Now()
	rep, err := syncLibrary(ctx, lib, library.SyncOptions{Prune: prune, Enrich: as.opt.Enrich}, pr.syncProgress)
	pr.clear()
	if refused(err) {
		return addError(err, cfg, lib.Name())
	}
	printSyncReport(out, lib.Name(), rep, time.Since(start))
	if as.enrich != nil {
		as.enrich.PrintReport(out)
	}
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if h := rep.HeldReason(); h != "" {
		return fmt.Errorf("sync: %s", h)
	}
	return nil
}

// syncProgress shows a sync's progress: its adds' as an add's, and its
// listing and removing on a terminal.
func (p *addPrinter) syncProgress(ap library.AddProgress) {
	switch ap.Stage {
	case library.StageScan, library.StageSettle, library.StageRemove:
		if !p.tty {
			if ap.Stage == library.StageRemove && ap.FilesDone == 0 {
				fmt.Fprintf(p.w, "removing %s whose files are gone\n", plural(ap.FilesTotal, "document"))
			}
			return
		}
		msg := fmt.Sprintf("looking at %d files…", ap.FilesDone)
		switch ap.Stage {
		case library.StageSettle:
			msg = fmt.Sprintf("waiting for %s being written…", plural(ap.FilesTotal, "file"))
		case library.StageRemove:
			msg = fmt.Sprintf("removing %s whose files are gone…", plural(ap.FilesTotal, "document"))
		}
		p.note(msg)
		return
	}
	p.progress(ap)
}

// printSyncReport prints a sync in one line, then the files it could not
// read and the documents it removed.
func printSyncReport(w io.Writer, lib string, rep *library.SyncReport, took time.Duration) {
	if rep == nil {
		return
	}
	fmt.Fprintf(w, "library %q: %s in %s\n", lib, rep.Summary(), roundTook(took))
	for _, d := range rep.Removed {
		fmt.Fprintf(w, "  removed  %s (file gone)\n", displayPath(d.Path))
	}
	for _, sk := range rep.Add.Skipped {
		fmt.Fprintf(w, "  skipped  %s: %s\n", displayPath(sk.Path), clean(sk.Reason))
	}
	for _, f := range rep.Unsettled {
		fmt.Fprintf(w, "  waiting  %s (still being written; the next sync reads it)\n", displayPath(f))
	}
}

func runSyncList(cmd *cobra.Command, cfg *Config) error {
	ctx := cmd.Context()
	lib, err := openExisting(ctx, cfg, cfg.Library, listable)
	if err != nil {
		return err
	}
	defer lib.Close()
	roots, err := lib.Roots(ctx)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	out := cmd.OutOrStdout()
	if len(roots) == 0 {
		fmt.Fprintf(out, "library %q follows no folders yet: ibid add --library %s FOLDER adds one and follows it\n", lib.Name(), lib.Name())
		return nil
	}
	fmt.Fprintf(out, "library %q follows:\n", lib.Name())
	for _, r := range roots {
		opts := string(r.Kind)
		if r.Strategy != "" {
			opts += ", " + string(r.Strategy)
		}
		if r.MaxFileSize > 0 {
			opts += ", files up to " + sizeLabel(r.MaxFileSize)
		}
		if r.Added > 0 {
			opts += ", since " + time.Unix(r.Added, 0).Format("2006-01-02")
		}
		fmt.Fprintf(out, "  %s (%s)\n", clean(displayPath(r.Path)), opts)
	}
	return nil
}

func runSyncForget(cmd *cobra.Command, cfg *Config, paths []string) error {
	ctx := cmd.Context()
	lib, err := openExisting(ctx, cfg, cfg.Library, listable)
	if err != nil {
		return err
	}
	defer lib.Close()
	gone, err := lib.Forget(ctx, paths...)
	if err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if len(gone) == 0 {
		return fmt.Errorf("sync: library %q follows none of %q; ibid sync --list --library %s shows what it follows", lib.Name(), paths, lib.Name())
	}
	for _, r := range gone {
		fmt.Fprintf(cmd.OutOrStdout(), "no longer following %s (its documents stay; ibid rm %s removes them)\n",
			clean(displayPath(r.Path)), clean(displayPath(r.Path)))
	}
	return nil
}

// sizeLabel is a size in bytes as --max-file-size reads it back: 200MB,
// 1.5GB, 4096 bytes.
func sizeLabel(n int64) string {
	switch {
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'g', 4, 64) + "GB"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'g', 4, 64) + "MB"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'g', 4, 64) + "KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// syncLogger writes what a watcher does to w, a line each (ibid serve's
// log): syncs that changed the library, removals held back (once until
// they change), failures, and how the folders are followed.
func syncLogger(w io.Writer, lib string) func(library.WatchEvent) {
	held := ""
	return func(ev library.WatchEvent) {
		switch ev.Kind {
		case library.WatchMode:
			fmt.Fprintf(w, "ibid: library %q: %s\n", lib, ev.Note)
		case library.WatchFailed:
			fmt.Fprintf(w, "ibid: couldn't sync library %q with its folders: %v\n", lib, ev.Err)
		case library.WatchSynced:
			if ev.Report.Changed() {
				fmt.Fprintf(w, "ibid: synced library %q: %s\n", lib, ev.Report.Summary())
			}
			if h := ev.Report.HeldReason(); h != held {
				held = h
				if h != "" {
					fmt.Fprintf(w, "ibid: library %q: %s\n", lib, h)
				}
			}
		}
	}
}

// roundTook is a duration as a sync reports it: milliseconds, or a tenth
// of one under 10ms.
func roundTook(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

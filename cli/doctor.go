package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/embedded"
	"github.com/spf13/cobra"
)

// doctorCommand is ibid doctor: check a library's files, and repair what
// can be repaired.
func doctorCommand(cfg *Config) *cobra.Command {
	var repair bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check a library's files and repair what can be repaired",
		Long: prose(`Checks every file of a library kept in a folder (the log of segments, the
vector file with its checksums, the commit file, the manifest, the keyword
index) and says in plain words what is wrong, counting each document once:
readable, readable without its vectors, or lost. A damaged library opens
read-only with every readable document; nothing is truncated or deleted
without --repair.

With --repair, rebuilds the library from what can be read: a damaged or
lost manifest is written again from the copy the log keeps; the readable
documents go into new files; documents whose vectors were lost keep their
text and are embedded again (at once with the local embedder, with progress
through the configured endpoint otherwise; run --repair again to finish an
interrupted run). The damaged files are moved aside into a folder next to
them, never deleted. Documents whose records are gone cannot be named: add
them again (ibid add re-adds only what is missing).

A library in PostgreSQL is checked by the database itself (see
docs/postgres.md); doctor works on libraries kept in folders.`),
		Example: `ibid doctor --library thesis
ibid doctor --library thesis --repair`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("doctor: unexpected %q; name a library with --library NAME", args[0])
			}
			return runDoctor(cmd, cfg, repair)
		},
	}
	cfg.libraryFlags(c.Flags())
	cfg.embedderFlags(c.Flags())
	c.Flags().BoolVar(&repair, "repair", false, "rebuild what can be rebuilt from readable records and embed again what lost its vectors; damaged files are moved aside, never deleted")
	completeCommon(c, cfg)
	return c
}

func runDoctor(cmd *cobra.Command, cfg *Config, repair bool) error {
	if s := store.Scheme(cfg.Store); s != "" {
		return fmt.Errorf("doctor: %s stores are checked by their own tools (see docs/postgres.md); doctor checks libraries kept in folders", s)
	}
	if err := store.ValidName(cfg.Library); err != nil {
		return err
	}
	root, err := embedded.Root(cfg.Store)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, cfg.Library)
	out := cmd.OutOrStdout()
	hint := repairCommand(cfg.Library)
	if !repair {
		rep, err := embedded.Check(dir)
		if err != nil {
			return fmt.Errorf("doctor: library %q: %w", cfg.Library, err)
		}
		printDoctorReport(out, cfg.Library, rep, false)
		switch {
		case len(rep.Problems) > 0:
			return fmt.Errorf("library %q is damaged: run %s", cfg.Library, hint)
		case len(rep.Unembedded) > 0:
			fmt.Fprintf(out, "run %s to embed them again\n", hint)
		}
		return nil
	}
	rep, err := embedded.Repair(dir)
	if err != nil {
		return fmt.Errorf("doctor: library %q: %w", cfg.Library, err)
	}
	printDoctorReport(out, cfg.Library, rep, true)
	if len(rep.Unembedded) == 0 {
		return nil
	}
	return reembed(cmd, cfg, len(rep.Unembedded))
}

// reembed embeds again, with the library's embedder, the n documents a
// repair kept without vectors, showing progress on standard error.
func reembed(cmd *cobra.Command, cfg *Config, n int) error {
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	lib, err := openLibrary(ctx, cfg, cfg.Library, writable)
	if err != nil {
		fmt.Fprintf(out, "%s keep their text (keyword search finds them) but wait for vectors\n", plural(n, "document"))
		return fmt.Errorf("doctor: couldn't embed them again: %w; then run %s again", err, repairCommand(cfg.Library))
	}
	defer lib.Close()
	stderr := cmd.ErrOrStderr()
	tty, _ := isTerminal(stderr)
	var (
		last time.Time
		path = "\x00" // no document yet
	)
	done, err := reembedDocuments(ctx, lib, func(p library.ReembedProgress) {
		if p.Path != "" && tty && time.Since(last) < 50*time.Millisecond {
			return
		}
		last = time.Now()
		line := fmt.Sprintf("embedding again with %s: %d/%d documents, %d/%d segments", lib.EmbedderName(), p.Documents, p.DocumentsTotal, p.Segments, p.SegmentsTotal)
		switch {
		case tty:
			fmt.Fprint(stderr, "\r\x1b[K"+line)
		case p.Path != path || p.Path == "":
			// A line as each document starts, and one at the end.
			fmt.Fprintln(stderr, line)
		}
		path = p.Path
	})
	if tty {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	fmt.Fprintf(out, "embedded %s again with %s\n", plural(done, "document"), lib.EmbedderName())
	if err != nil {
		left := n - done
		if errors.Is(err, ctx.Err()) && ctx.Err() != nil {
			return fmt.Errorf("doctor: interrupted; %s still wait for vectors: run %s again", plural(left, "document"), repairCommand(cfg.Library))
		}
		return fmt.Errorf("doctor: %w; %s still wait for vectors (keyword search finds them): run %s again", err, plural(left, "document"), repairCommand(cfg.Library))
	}
	return nil
}

// repairCommand is the command that repairs library name.
func repairCommand(name string) string {
	if name == "" || name == "default" {
		return "ibid doctor --repair"
	}
	return "ibid doctor --library " + name + " --repair"
}

// printDoctorReport says what Check found or Repair did, counting each
// document once: readable (perhaps without vectors) or lost.
func printDoctorReport(w io.Writer, name string, rep embedded.Report, repaired bool) {
	docs := fmt.Sprintf("%s, %s", plural(rep.Documents, "document"), plural(rep.Segments, "segment"))
	if u := len(rep.Unembedded); u > 0 {
		docs += fmt.Sprintf(" (%d without vectors)", u)
	}
	lost := ""
	if rep.LostDocuments > 0 {
		lost = fmt.Sprintf("; %s lost", plural(rep.LostDocuments, "document"))
	}
	switch {
	case len(rep.Problems) == 0:
		fmt.Fprintf(w, "library %q is healthy: %s (%s)\n", name, docs, clean(displayPath(rep.Dir)))
		if rep.Upgraded {
			fmt.Fprintln(w, "  its files were brought to the current format (they now keep a copy of the manifest)")
		}
	case repaired:
		fmt.Fprintf(w, "library %q repaired: %s kept%s; it was damaged so:\n", name, docs, lost)
	default:
		fmt.Fprintf(w, "library %q is damaged: %s readable%s\n", name, docs, lost)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  %s\n", clean(p.String()))
	}
	for _, path := range rep.Unembedded {
		fmt.Fprintf(w, "  without vectors: %s\n", clean(displayPath(path)))
	}
	if rep.LostDocuments > 0 {
		fmt.Fprintf(w, "  %s cannot be read back: add them again (ibid add re-adds only what is missing)\n", plural(rep.LostDocuments, "lost document"))
	}
	if rep.MovedTo != "" {
		fmt.Fprintf(w, "  damaged files moved to %s (nothing was deleted)\n", clean(displayPath(rep.MovedTo)))
	}
}

package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/embedded"
)

// doctorCommand is ibid doctor: check a library's files, and repair what
// can be repaired.
func doctorCommand(cfg *Config) *cobra.Command {
	var repair bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check a library's files and repair what can be repaired",
		Long: prose(`Checks every file of a library kept in a folder (the log of segments, the
vector file with its checksums, the manifest, the keyword index) and says
in plain words what is wrong. A damaged library opens read-only with every
intact document; nothing is truncated or deleted without --repair.

With --repair, rebuilds what can be rebuilt from the intact records (the
manifest, the vectors of intact documents, the keyword index) and moves the
damaged files aside into a folder next to them, never deleting them; the
documents that could not be saved are listed, to be added again.

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
	c.Flags().BoolVar(&repair, "repair", false, "rebuild what can be rebuilt from intact records; damaged files are moved aside, never deleted")
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
	var rep embedded.Report
	if repair {
		rep, err = embedded.Repair(dir)
	} else {
		rep, err = embedded.Check(dir)
	}
	if err != nil {
		return fmt.Errorf("doctor: library %q: %w", cfg.Library, err)
	}
	printDoctorReport(out, cfg.Library, rep, repair)
	if len(rep.Problems) > 0 && !repair {
		return fmt.Errorf("library %q is damaged: run ibid doctor --library %s --repair", cfg.Library, cfg.Library)
	}
	return nil
}

func printDoctorReport(w io.Writer, name string, rep embedded.Report, repaired bool) {
	switch {
	case len(rep.Problems) == 0 && len(rep.Lost) == 0:
		fmt.Fprintf(w, "library %q is healthy: %d documents, %d segments (%s)\n", name, rep.Documents, rep.Segments, clean(displayPath(rep.Dir)))
		return
	case repaired:
		fmt.Fprintf(w, "library %q repaired: %d documents, %d segments kept\n", name, rep.Documents, rep.Segments)
	default:
		fmt.Fprintf(w, "library %q is damaged: %d intact documents, %d segments readable\n", name, rep.Documents, rep.Segments)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  %s\n", clean(p.String()))
	}
	for _, l := range rep.Lost {
		fmt.Fprintf(w, "  lost: %s (add it again)\n", clean(displayPath(l)))
	}
	if rep.MovedTo != "" {
		fmt.Fprintf(w, "  damaged files moved to %s (nothing was deleted)\n", clean(displayPath(rep.MovedTo)))
	}
}

package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// rmCommand is ibid rm: documents out of a library, or the whole library.
func rmCommand(cfg *Config) *cobra.Command {
	var all bool
	c := &cobra.Command{
		Use:   "rm DOC... | rm --all",
		Short: "Remove documents from a library",
		Long: prose(`Removes documents from a library. DOC is a document id or the start of one
(as ibid ls shows it), a document's path, or a folder (every document under
it). If any DOC names no document, nothing is removed. The files themselves
are never touched. A folder or file the library follows (ibid sync --list)
that is removed is no longer followed.

--all deletes the whole library, including which embedder built it: the way
to rebuild a library with another embedder.`),
		Example: `# By id, as ibid ls shows it:
ibid rm 3f9a2c1b

# By path:
ibid rm ~/papers/old-draft.pdf

# Rebuild a library with another embedder:
ibid rm --library thesis --all && ibid add --library thesis --embed-model M notes/`,
		RunE: func(cmd *cobra.Command, refs []string) error {
			return runRm(cmd, cfg, all, refs)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.ignoredEmbedderFlag(fs)
	fs.BoolVar(&all, "all", false, "remove every document and the library itself")
	completeCommon(c, cfg)
	return c
}

func runRm(cmd *cobra.Command, cfg *Config, all bool, refs []string) error {
	switch {
	case all && len(refs) > 0:
		return errors.New("rm: give documents or --all, not both")
	case !all && len(refs) == 0:
		return errors.New("rm: name the documents to remove (ids or paths, see ibid ls), or --all")
	}
	ctx := cmd.Context()
	out := cmd.OutOrStdout()
	lib, err := openExisting(ctx, cfg, cfg.Library, listable)
	if err != nil {
		return err
	}
	if all {
		docs, segs, err := libraryContents(ctx, lib)
		if err != nil {
			lib.Close()
			return err
		}
		name, exists := lib.Name(), libraryExists(lib)
		lib.Close()
		if !exists {
			fmt.Fprintf(out, "library %q is empty already\n", name)
			return nil
		}
		if err := deleteLibrary(ctx, cfg, name); err != nil {
			return err
		}
		fmt.Fprintf(out, "removed library %q: %d documents, %d segments\n", name, len(docs), segs)
		return nil
	}
	defer lib.Close()
	docs, err := removeDocuments(ctx, lib, refs)
	if err != nil {
		return err
	}
	for _, d := range docs {
		fmt.Fprintf(out, "removed %s %s (%s)\n", shortID(d.ID), docTitle(d), clean(displayPath(d.Path)))
	}
	// A followed path that is removed is no longer followed.
	if gone, err := lib.Forget(ctx, refs...); err == nil {
		for _, r := range gone {
			fmt.Fprintf(out, "no longer following %s\n", clean(displayPath(r.Path)))
		}
	}
	left, segs, err := libraryContents(ctx, lib)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "library %q: %d documents, %d segments left\n", lib.Name(), len(left), segs)
	return nil
}

package cli

import (
	"fmt"
	"strconv"

	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/spf13/cobra"
)

// lsCommand is ibid ls: a library's documents.
func lsCommand(cfg *Config) *cobra.Command {
	var libraries bool
	c := &cobra.Command{
		Use:   "ls",
		Short: "List a library's documents",
		Long: prose(`Lists a library's documents: short id (give it to ibid rm), citekey (when a
bibliography gave one), title, format, pages, segments and path, sorted by path. With --libraries, lists the
libraries in the store instead.`),
		Example: `ibid ls --library thesis
ibid ls --libraries --store postgres://lab-db/ibid`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if libraries {
				return runLsLibraries(cmd, cfg, args)
			}
			return runLs(cmd, cfg, args)
		},
	}
	cfg.libraryFlags(c.Flags())
	cfg.ignoredEmbedderFlag(c.Flags())
	c.Flags().BoolVar(&libraries, "libraries", false, "list the libraries in the store, with their sizes and embedders")
	completeCommon(c, cfg)
	return c
}

func runLs(cmd *cobra.Command, cfg *Config, rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("ls: unexpected %q; name a library with --library NAME", rest[0])
	}
	lib, err := openExisting(cmd.Context(), cfg, cfg.Library, listable)
	if err != nil {
		return err
	}
	defer lib.Close()

	out := cmd.OutOrStdout()
	docs, segs, err := libraryContents(cmd.Context(), lib)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		fmt.Fprintf(out, "library %q is empty; add documents with: ibid add --library %s PATH...\n", lib.Name(), lib.Name())
		return nil
	}
	tty, width := isTerminal(out)
	fmt.Fprintf(out, "library %q: %d documents, %d segments, built with %s, %s\n",
		lib.Name(), len(docs), segs, lib.EmbedderName(), strategyLabel(docs))
	// The title gets what the other columns leave of a terminal's width
	// (the path is last and may run over); piped, a fixed 40.
	titleW := 40
	if tty {
		longest := 0
		for _, d := range docs {
			longest = max(longest, len(displayPath(d.Path)))
		}
		titleW = min(max(16, width-(12+1+1+8+1+5+1+5+2)-min(longest, 40)), 60)
	}
	// A citekey column when a bibliography gave documents theirs.
	keyW := 0
	for _, d := range docs {
		keyW = max(keyW, min(len(d.Meta[bib.MetaCitekey]), 24))
	}
	key := func(s string) string { return "" }
	if keyW > 0 {
		keyW = max(keyW, len("CITEKEY"))
		titleW = max(16, titleW-keyW-1)
		key = func(s string) string { return pad(s, keyW) + " " }
	}
	fmt.Fprintf(out, "%-12s %s%s %-8s %5s %5s  %s\n", "ID", key("CITEKEY"), pad("TITLE", titleW), "FORMAT", "PAGES", "SEGS", "PATH")
	for _, d := range docs {
		pages := ""
		if d.Pages > 0 {
			pages = strconv.Itoa(d.Pages)
		}
		fmt.Fprintf(out, "%-12s %s%s %-8s %5s %5d  %s\n",
			shortID(d.ID), key(clean(d.Meta[bib.MetaCitekey])), pad(docTitle(d), titleW), d.Format, pages, d.Segments, clean(displayPath(d.Path)))
	}
	return nil
}

// runLsLibraries lists the libraries in the store.
func runLsLibraries(cmd *cobra.Command, cfg *Config, rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("ls: unexpected %q", rest[0])
	}
	libs, err := listLibraries(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if len(libs) == 0 {
		fmt.Fprintf(out, "no libraries in %s yet; create one with: ibid add --library NAME PATH...\n", storeName(cfg))
		return nil
	}
	for _, l := range libs {
		fmt.Fprintf(out, "%-24s %6d documents %8d segments  %s\n", clean(l.Name), l.Documents, l.Segments, clean(l.Info.Embedder))
	}
	return nil
}

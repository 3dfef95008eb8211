package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/ibid-dev/ibid/rag"
)

const rmUsage = `
Usage: ibid rm [--library NAME] DOC...
       ibid rm [--library NAME] --all

Removes documents from a library. DOC is a document id or the start of one
(as ibid ls shows it), a document's path, or a folder (every document under
it). If any DOC names no document, nothing is removed. The files themselves
are never touched.

--all deletes the whole library, including which embedder built it: the way
to rebuild a library with another embedder.

Examples:
  ibid rm 3f9a2c1b                  # by id, as ibid ls shows it
  ibid rm ~/papers/old-draft.pdf    # by path
  ibid rm --library thesis --all && ibid add --library thesis --embed-model M notes/
`

func runRm(ctx context.Context, s *stdio, args []string) error {
	fs := flag.NewFlagSet("rm", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = usageFunc(fs, rmUsage)
	var lf libraryFlags
	lf.register(fs)
	all := fs.Bool("all", false, "remove every document and the library itself")
	refs, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *all && len(refs) > 0:
		return errors.New("rm: give documents or --all, not both")
	case !*all && len(refs) == 0:
		fs.Usage()
		return errors.New("rm: name the documents to remove (ids or paths, see ibid ls), or --all")
	}

	lib, err := lf.openAny(ctx)
	if err != nil {
		return err
	}
	if *all {
		n, segs := len(lib.Documents()), lib.Len()
		name := lib.Name()
		dir := lib.Dir()
		lib.Close()
		if dir == "" {
			fmt.Fprintf(s.out, "library %q is empty already\n", name)
			return nil
		}
		if err := rag.DeleteLibrary(ctx, rag.LibraryOptions{Name: name}); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "removed library %q: %d documents, %d segments\n", name, n, segs)
		return nil
	}
	defer lib.Close()
	docs, err := lib.Remove(ctx, refs...)
	if err != nil {
		return err
	}
	for _, d := range docs {
		fmt.Fprintf(s.out, "removed %s %s (%s)\n", shortID(d.ID), docTitle(d), clean(displayPath(d.Path)))
	}
	fmt.Fprintf(s.out, "library %q: %d documents, %d segments left\n", lib.Name(), len(lib.Documents()), lib.Len())
	return nil
}

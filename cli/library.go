package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// This file is the command line's one door into the library and the store:
// the commands open, fill, search, list and delete libraries only through
// the helpers and names below, so that a change of the library's or the
// store's API is a change of this file.

// library is an open library; addProgress and addReport are what adding to
// it reports.
type (
	library     = rag.Library
	addProgress = rag.AddProgress
	addReport   = rag.AddReport
)

// access is what a command needs of the library it opens.
type access int

const (
	// writable: a library that does not exist is created; one built by
	// another embedder than the configured one is refused with a message
	// that says how to run with it or rebuild (add, the chat, ask, serve).
	writable access = iota
	// searchable: a library that does not exist opens empty and nothing is
	// created; one built by an embedder not at hand opens, and Search then
	// says how to run it (search).
	searchable
	// listable: no embedder is needed or made (ls, rm).
	listable
)

// storeDir is the folder of cfg's store, which holds one folder per
// library. Only folders are stores today; a URL is refused with what to
// do.
func storeDir(cfg *Config) (string, error) {
	loc := cfg.Store
	switch {
	case loc == "":
		return filepath.Join(cfg.DataDir, "libraries"), nil
	case strings.Contains(loc, "://"):
		return "", fmt.Errorf("--store %q: this ibid keeps libraries in folders only; give a folder, or leave --store and IBID_STORE empty for %s",
			loc, filepath.Join(cfg.DataDir, "libraries"))
	}
	abs, err := filepath.Abs(loc)
	if err != nil {
		return "", fmt.Errorf("--store %q: %w", loc, err)
	}
	return abs, nil
}

// libraryDir is the folder of the library called name in cfg's store.
func libraryDir(cfg *Config, name string) (string, error) {
	if err := rag.ValidLibraryName(name); err != nil {
		return "", err
	}
	dir, err := storeDir(cfg)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}

// libraryNames lists the libraries in cfg's store, for completion; a
// store that cannot be read has none.
func libraryNames(cfg *Config) []string {
	dir, err := storeDir(cfg)
	if err != nil {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if _, ok, err := store.ReadInfo(filepath.Join(dir, e.Name())); e.IsDir() && ok && err == nil {
			names = append(names, e.Name())
		}
	}
	return names
}

// newEmbedder is the embedder cfg asks for: the OpenAI-compatible
// endpoint at cfg.BaseURL with cfg.EmbedModel, else nil, which lets the
// library pick (the local embedder, or the one that built it).
func newEmbedder(cfg *Config) (retrieve.Embedder, error) {
	if cfg.EmbedModel == "" {
		return nil, nil
	}
	emb, err := retrieve.NewOpenAIEmbedder(retrieve.OpenAIEmbedderConfig{
		BaseURL: cfg.BaseURL,
		APIKey:  cfg.APIKey,
		Model:   cfg.EmbedModel,
	})
	if err != nil {
		return nil, fmt.Errorf("--embed-model: %w", err)
	}
	return emb, nil
}

// openLibrary opens the library called name in cfg's store, as a needs.
func openLibrary(ctx context.Context, cfg *Config, name string, a access) (*library, error) {
	dir, err := libraryDir(cfg, name)
	if err != nil {
		return nil, err
	}
	opt := rag.LibraryOptions{Name: name, Dir: dir, AnyEmbedder: a != writable}
	if a != listable {
		if opt.Embedder, err = newEmbedder(cfg); err != nil {
			return nil, err
		}
	}
	return rag.OpenLibrary(ctx, opt)
}

// deleteLibrary deletes the library called name from cfg's store, so that
// it can be built again, perhaps with another embedder.
func deleteLibrary(ctx context.Context, cfg *Config, name string) error {
	dir, err := libraryDir(cfg, name)
	if err != nil {
		return err
	}
	return rag.DeleteLibrary(ctx, rag.LibraryOptions{Name: name, Dir: dir})
}

// addFiles adds paths (files, folders, globs) to lib, reporting progress.
// maxFileSize (bytes; 0: the library's default) is not applied yet:
// rag.Library.Add takes no limit while the loader's is being built, and
// this is where it is to be passed on.
func addFiles(ctx context.Context, lib *library, paths []string, maxFileSize int64, progress func(addProgress)) (*addReport, error) {
	return lib.Add(ctx, paths, progress)
}

// removeDocuments removes the documents refs name (ids, id prefixes,
// paths, folders) from lib, all or, if one names nothing, none.
func removeDocuments(ctx context.Context, lib *library, refs []string) ([]store.Document, error) {
	return lib.Remove(ctx, refs...)
}

// searchLibrary is retrieval over lib, as the model would get it.
func searchLibrary(ctx context.Context, lib *library, query string, opt retrieve.Options) ([]retrieve.Passage, error) {
	return lib.Search(ctx, query, opt)
}

// libraryContents is lib's documents, sorted by path, and its number of
// segments.
func libraryContents(lib *library) (docs []store.Document, segments int) {
	return lib.Documents(), lib.Len()
}

// libraryExists reports whether lib is kept anywhere (a library opened
// with listable or searchable access that does not exist is not).
func libraryExists(lib *library) bool { return lib.Dir() != "" }

// memoryIndex is a retrieval index over docs, each one whole with its
// segments and their vectors, in a store in memory that close releases
// (eval). info names the embedder and its dimension.
func memoryIndex(ctx context.Context, emb retrieve.Embedder, info store.Info, docs []store.Put) (ix *retrieve.Index, close func() error, err error) {
	st, err := store.Open("", info)
	if err != nil {
		return nil, nil, err
	}
	if err := st.PutDocuments(ctx, docs); err != nil {
		st.Close()
		return nil, nil, err
	}
	if ix, err = retrieve.NewIndex(st, emb); err != nil {
		st.Close()
		return nil, nil, err
	}
	return ix, st.Close, nil
}

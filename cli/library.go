package cli

import (
	"context"
	"fmt"

	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"

	// The stores a library can live in: the embedded one (folders, and
	// memory for evaluations) and PostgreSQL with pgvector (postgres://…).
	_ "github.com/ibid-dev/ibid/store/embedded"
	_ "github.com/ibid-dev/ibid/store/postgres"
)

// This file is the command line's one door into the library and the store:
// the commands open, fill, search, list and delete libraries through the
// helpers below, so that a change of how the library or the store is
// opened or called is a change of this file; the library's types are
// named as rag/library names them.

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

// libraryNames lists the libraries in cfg's store, for completion; a
// store that cannot be read has none.
func libraryNames(ctx context.Context, cfg *Config) []string {
	libs, err := library.List(ctx, cfg.Store)
	if err != nil {
		return nil
	}
	names := make([]string, len(libs))
	for i, l := range libs {
		names[i] = l.Name
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
		Server: serverConfig(cfg),
		Model:  cfg.EmbedModel,
	})
	if err != nil {
		return nil, fmt.Errorf("--embed-model: %w", err)
	}
	return emb, nil
}

// openLibrary opens the library called name in cfg's store, as a needs,
// creating it if it does not exist (writable access).
func openLibrary(ctx context.Context, cfg *Config, name string, a access) (*library.Library, error) {
	return open(ctx, cfg, name, a, false)
}

// openExisting is openLibrary for a library the user named that must
// exist: a name that is not a library is reported with the libraries
// there are and how to create one, rather than opened empty (the default
// library may be missing: it is where a new user starts).
func openExisting(ctx context.Context, cfg *Config, name string, a access) (*library.Library, error) {
	return open(ctx, cfg, name, a, name != library.DefaultName)
}

func open(ctx context.Context, cfg *Config, name string, a access, mustExist bool) (*library.Library, error) {
	opt := library.Options{Name: name, Store: cfg.Store, AnyEmbedder: a != writable, MustExist: mustExist, OCRLang: cfg.OCRLang}
	if a != listable {
		var err error
		if opt.Embedder, err = newEmbedder(cfg); err != nil {
			return nil, err
		}
	}
	lib, err := library.Open(ctx, opt)
	if err != nil {
		return nil, err
	}
	if d := lib.Damage(); d != nil && cfg.warn != nil {
		fmt.Fprintf(cfg.warn, "ibid: warning: %s\n", clean(d.Error()))
	}
	return lib, nil
}

// deleteLibrary deletes the library called name from cfg's store, so that
// it can be built again, perhaps with another embedder.
func deleteLibrary(ctx context.Context, cfg *Config, name string) error {
	return library.Delete(ctx, library.Options{Name: name, Store: cfg.Store})
}

// addFiles adds paths (files, folders, globs) to lib with opt (size
// limit, strategy), reporting progress.
func addFiles(ctx context.Context, lib *library.Library, paths []string, opt library.AddOptions, progress func(library.AddProgress)) (*library.AddReport, error) {
	return lib.AddWith(ctx, paths, opt, progress)
}

// syncLibrary brings lib in step with the paths it follows, reporting
// progress.
func syncLibrary(ctx context.Context, lib *library.Library, opt library.SyncOptions, progress func(library.AddProgress)) (*library.SyncReport, error) {
	return lib.Sync(ctx, opt, progress)
}

// reembedDocuments embeds again the documents of lib whose vectors a
// repair lost, reporting progress; it returns how many it embedded.
func reembedDocuments(ctx context.Context, lib *library.Library, progress func(library.ReembedProgress)) (int, error) {
	return lib.Reembed(ctx, progress)
}

// removeDocuments removes the documents refs name (ids, id prefixes,
// paths, folders) from lib, all or, if one names nothing, none.
func removeDocuments(ctx context.Context, lib *library.Library, refs []string) ([]store.Document, error) {
	return lib.Remove(ctx, refs...)
}

// searchLibrary is retrieval over lib, as the model would get it.
func searchLibrary(ctx context.Context, lib *library.Library, query string, opt retrieve.Options) ([]retrieve.Passage, error) {
	return lib.Search(ctx, query, opt)
}

// libraryContents is lib's documents, sorted by path, and its number of
// segments; a library that cannot be read has none (the command that
// needs them then says so through its own error).
func libraryContents(ctx context.Context, lib *library.Library) (docs []store.Document, segments int, err error) {
	if docs, err = lib.Documents(ctx); err != nil {
		return nil, 0, err
	}
	if segments, err = lib.Len(ctx); err != nil {
		return nil, 0, err
	}
	return docs, segments, nil
}

// libraryExists reports whether lib is kept anywhere (a library opened
// with listable or searchable access that does not exist is not).
func libraryExists(lib *library.Library) bool { return !lib.InMemory() }

// listLibraries lists the libraries in cfg's store.
func listLibraries(ctx context.Context, cfg *Config) ([]store.LibraryInfo, error) {
	return library.List(ctx, cfg.Store)
}

// storeName says where cfg's libraries live, for messages.
func storeName(cfg *Config) string {
	if cfg.Store == "" {
		return defaultStore()
	}
	return cfg.Store
}

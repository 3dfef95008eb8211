package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Options say which library to open at a location and how.
type Options struct {
	// Library names the library (a collection in a database, a folder in
	// the embedded store's data folder). "" means "default".
	Library string
	// Info is the embedder the caller will use. A zero Info adopts the
	// embedder of an existing library (for commands that need none, such as
	// listing); otherwise a library built with another embedder or
	// dimension is refused with an error wrapping ErrEmbedderMismatch.
	Info Info
	// Create creates the library when it does not exist (Info must then be
	// complete). Without it, a missing library is an error wrapping
	// ErrNoLibrary.
	Create bool
	// ReadOnly opens the library for reading only: nothing is written,
	// repaired or truncated, and Update returns ErrReadOnly.
	ReadOnly bool
}

// LibraryName is o.Library, or "default".
func (o Options) LibraryName() string {
	if o.Library == "" {
		return "default"
	}
	return o.Library
}

// Backend is what a store implementation registers: how to open a library
// at a location of its kind, list the libraries there, and drop one.
type Backend interface {
	Open(ctx context.Context, location string, opt Options) (Store, error)
	// Libraries lists the libraries at location with their sizes.
	Libraries(ctx context.Context, location string) ([]LibraryInfo, error)
	// Drop deletes a library and everything in it, atomically: after a
	// crash the library is either whole or gone. A library that does not
	// exist is not an error.
	Drop(ctx context.Context, location, library string) error
}

// LibraryInfo describes one library at a location.
type LibraryInfo struct {
	Name      string
	Info      Info
	Documents int
	Segments  int
}

var (
	regMu    sync.RWMutex
	backends = map[string]Backend{}
)

// Register makes a backend available for locations with this scheme
// ("postgres" for "postgres://…"); the scheme "" is for plain folder paths
// and the empty location. A backend package calls it from init; a program
// imports the backends it wants for their side effect, as with database/sql
// drivers. Registering a scheme twice panics.
func Register(scheme string, b Backend) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := backends[scheme]; dup {
		panic("store: Register called twice for scheme " + scheme)
	}
	backends[scheme] = b
}

// Scheme returns the scheme of a location: "postgres" for
// "postgres://…" and "postgresql://…", "memory" for "memory:", "" for a
// folder path or the empty location.
func Scheme(location string) string {
	i := strings.Index(location, ":")
	if i <= 0 || strings.ContainsAny(location[:i], `/\.`) || (i == 1 && len(location) > 2 && (location[2] == '\\' || location[2] == '/')) {
		return "" // a path (or a Windows drive letter)
	}
	s := strings.ToLower(location[:i])
	if s == "postgresql" {
		return "postgres"
	}
	return s
}

func backend(location string) (Backend, error) {
	s := Scheme(location)
	regMu.RLock()
	b, ok := backends[s]
	regMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("no store for %q locations (known: %s)", s+":", knownSchemes())
	}
	return b, nil
}

func knownSchemes() string {
	regMu.RLock()
	defer regMu.RUnlock()
	var names []string
	for s := range backends {
		if s == "" {
			s = "a folder"
		} else {
			s += "://"
		}
		names = append(names, s)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Open opens the library opt names at location: "" or a folder path for
// the embedded store (its data folder by default), "postgres://…" for
// PostgreSQL, "memory:" for a store that lives in memory only.
func Open(ctx context.Context, location string, opt Options) (Store, error) {
	b, err := backend(location)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, location, opt)
}

// Libraries lists the libraries at location.
func Libraries(ctx context.Context, location string) ([]LibraryInfo, error) {
	b, err := backend(location)
	if err != nil {
		return nil, err
	}
	return b.Libraries(ctx, location)
}

// Drop deletes the library at location.
func Drop(ctx context.Context, location, library string) error {
	b, err := backend(location)
	if err != nil {
		return err
	}
	return b.Drop(ctx, location, library)
}

// ValidName reports why name cannot name a library: a name is one path
// element, not empty, with no slashes, not "." or "..", and no NUL, so that
// it is a folder name and a collection name alike.
func ValidName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) ||
		!filepath.IsLocal(name) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("library name %q is not a plain name; use letters, digits, dashes (e.g. --library papers)", name)
	}
	return nil
}

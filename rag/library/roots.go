package library

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// A library follows the folders, files and globs it was given (its
// roots): an add remembers them with its options (AddOptions.Follow), and
// Sync and Watch keep the library in step with them. Roots are kept with
// the library in its store (store.Settings, one key per root), so that
// every process and machine that opens the library knows them, and two
// processes adding folders at once cannot lose one another's.

// rootKey is the prefix of the store settings that hold roots; the rest
// of the key is the root's path.
const rootKey = "root:"

// Root is a folder, file or glob a library follows, with the options of
// the add that gave it.
type Root struct {
	// Path is absolute: a folder (followed recursively, hidden entries
	// left out, as an add reads it), a file, or a glob pattern.
	Path string `json:"path"`
	// Strategy is the strategy the library indexed the root's files with
	// when it was added (a re-index of the library updates it). Sync
	// indexes with the library's strategy, which is the same.
	Strategy ingest.Strategy `json:"strategy,omitempty"`
	// MaxFileSize is the add's --max-file-size (0: the loader's limits).
	MaxFileSize int64 `json:"max_file_size,omitempty"`
	// Kind says what Path named when it was added: KindFolder, KindFile
	// or KindGlob (a folder that is gone later is still a folder).
	Kind RootKind `json:"kind"`
	// Added is when the root was first added (unix seconds).
	Added int64 `json:"added"`
}

// RootKind is what a root's path names.
type RootKind string

// The kinds of root.
const (
	KindFolder RootKind = "folder"
	KindFile   RootKind = "file"
	KindGlob   RootKind = "glob"
)

// Contains reports whether the file at the absolute path p is the root's:
// the root itself, under the root folder, or matched by the root glob.
func (r Root) Contains(p string) bool {
	if r.Kind == KindGlob {
		ok, err := filepath.Match(r.Path, p)
		if ok && err == nil {
			return true
		}
		// A glob that matched a folder follows what is under it.
		dir := p
		for {
			parent := filepath.Dir(dir)
			if parent == dir {
				return false
			}
			dir = parent
			if ok, _ := filepath.Match(r.Path, dir); ok {
				return !hiddenBelow(dir, p)
			}
		}
	}
	if p == r.Path {
		return true
	}
	prefix := strings.TrimSuffix(r.Path, string(filepath.Separator)) + string(filepath.Separator)
	return strings.HasPrefix(p, prefix) && !hiddenBelow(r.Path, p)
}

// hiddenBelow reports whether a name on the way from folder dir down to
// p starts with a dot (an add leaves such entries out).
func hiddenBelow(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return true
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[`) }

// ErrNoSettings is returned where roots are needed by a library whose
// store cannot keep them (a store without store.Settings).
var ErrNoSettings = errors.New("this library's store cannot remember folders")

func (l *Library) settings() (store.Settings, error) {
	s, ok := l.st.(store.Settings)
	if !ok {
		return nil, fmt.Errorf("%w (library %q)", ErrNoSettings, l.name)
	}
	return s, nil
}

// Roots lists the folders, files and globs the library follows, by path.
func (l *Library) Roots(ctx context.Context) ([]Root, error) {
	s, err := l.settings()
	if err != nil {
		return nil, err
	}
	m, err := s.Settings(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't read the folders library %q follows: %w", l.name, err)
	}
	var roots []Root
	for k, v := range m {
		path, ok := strings.CutPrefix(k, rootKey)
		if !ok {
			continue
		}
		var r Root
		if err := json.Unmarshal([]byte(v), &r); err != nil || r.Path != path {
			r = Root{Path: path, Kind: guessKind(path)} // a damaged record: the path is in the key
		}
		roots = append(roots, r)
	}
	slices.SortFunc(roots, func(a, b Root) int { return strings.Compare(a.Path, b.Path) })
	return roots, nil
}

// follow remembers the paths an add was given as roots, with the add's
// options: each path that names a folder or a file that exists, or a
// glob that matches something. A path under a folder the library follows
// already is not remembered again (unless its options differ), and roots
// under a folder now followed are forgotten, as the folder covers them.
func (l *Library) follow(ctx context.Context, paths []string, opt AddOptions, strategy ingest.Strategy) error {
	s, err := l.settings()
	if err != nil {
		return err
	}
	have, err := l.Roots(ctx)
	if err != nil {
		return err
	}
	put := map[string]string{}
	var del []string
	now := time.Now().Unix()
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		kind := KindFile
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			kind = KindFolder
		} else if err != nil {
			if !hasMeta(abs) {
				continue
			}
			if m, _ := filepath.Glob(abs); len(m) == 0 {
				continue
			}
			kind = KindGlob
		}
		r := Root{Path: abs, Kind: kind, Strategy: strategy, MaxFileSize: opt.MaxFileSize, Added: now}
		covered := false
		for _, h := range have {
			switch {
			case h.Path == abs:
				r.Added = h.Added // the same root, perhaps with new options
			case h.Kind == KindFolder && h.Contains(abs) && sameOptions(h, r):
				covered = true
			case r.Kind == KindFolder && r.Contains(h.Path) && sameOptions(h, r):
				del = append(del, rootKey+h.Path)
			}
		}
		if covered {
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		put[rootKey+abs] = string(b)
	}
	if len(put) == 0 && len(del) == 0 {
		return nil
	}
	if err := s.SetSettings(ctx, put, del); err != nil {
		return fmt.Errorf("couldn't remember the folders library %q follows: %w", l.name, err)
	}
	l.rootsChanged()
	return nil
}

// sameOptions reports whether two roots read their files alike.
func sameOptions(a, b Root) bool { return a.MaxFileSize == b.MaxFileSize }

// guessKind is what path names now, for a root whose record was lost.
func guessKind(path string) RootKind {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return KindFolder
	case err == nil:
		return KindFile
	case hasMeta(path):
		return KindGlob
	}
	return KindFolder // gone: as a folder, its documents' removal is held
}

// Forget stops following the roots paths name (as given to add, or
// absolute; a root's own path only) and returns those it forgot. The
// documents stay in the library; ibid rm removes them.
func (l *Library) Forget(ctx context.Context, paths ...string) ([]Root, error) {
	s, err := l.settings()
	if err != nil {
		return nil, err
	}
	have, err := l.Roots(ctx)
	if err != nil {
		return nil, err
	}
	var gone []Root
	var del []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = filepath.Clean(p)
		}
		for _, h := range have {
			if h.Path == abs || h.Path == p {
				gone = append(gone, h)
				del = append(del, rootKey+h.Path)
			}
		}
	}
	if len(del) == 0 {
		return nil, nil
	}
	if err := s.SetSettings(ctx, nil, del); err != nil {
		return nil, fmt.Errorf("couldn't forget folders of library %q: %w", l.name, err)
	}
	l.rootsChanged()
	return gone, nil
}

// restrategise records strategy on every root, after a re-index gave the
// library's documents that strategy.
func (l *Library) restrategise(ctx context.Context, strategy ingest.Strategy) error {
	s, err := l.settings()
	if err != nil {
		return nil // nothing to record
	}
	have, err := l.Roots(ctx)
	if err != nil {
		return err
	}
	put := map[string]string{}
	for _, r := range have {
		if r.Strategy == strategy {
			continue
		}
		r.Strategy = strategy
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		put[rootKey+r.Path] = string(b)
	}
	if len(put) == 0 {
		return nil
	}
	return s.SetSettings(ctx, put, nil)
}

// rootsChanged wakes the library's watchers: the roots changed.
func (l *Library) rootsChanged() {
	l.rmu.Lock()
	defer l.rmu.Unlock()
	close(l.rootsCh)
	l.rootsCh = make(chan struct{})
}

// rootsChange returns a channel closed at the next change of the roots
// made through this Library.
func (l *Library) rootsChange() <-chan struct{} {
	l.rmu.Lock()
	defer l.rmu.Unlock()
	return l.rootsCh
}

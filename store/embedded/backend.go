package embedded

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/store"
)

func init() {
	store.Register("", folders{})
	store.Register("memory", memory{})
}

// folders is the backend of folder locations: a location is a folder that
// holds libraries, one subfolder each; the empty location is the XDG data
// folder's, $XDG_DATA_HOME/ibid/libraries.
type folders struct{}

// Root is the folder of libraries a location names: the location itself,
// or for "" the XDG data folder's libraries folder.
func Root(location string) (string, error) {
	if location != "" {
		return location, nil
	}
	data, err := xdg.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(data, "libraries"), nil
}

// libraryDir is the folder of library name at location.
func libraryDir(location, name string) (string, error) {
	if name == "" {
		name = "default"
	}
	if err := store.ValidName(name); err != nil {
		return "", err
	}
	root, err := Root(location)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, name), nil
}

func (folders) Open(ctx context.Context, location string, opt store.Options) (store.Store, error) {
	dir, err := libraryDir(location, opt.LibraryName())
	if err != nil {
		return nil, err
	}
	s, err := OpenDir(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// droppedPrefix starts the name a dropped library's folder is renamed to
// before it is removed; Libraries finishes removing any it finds.
const droppedPrefix = ".dropped-"

func (folders) Libraries(ctx context.Context, location string) ([]store.LibraryInfo, error) {
	root, err := Root(location)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't list libraries: %w", err)
	}
	var out []store.LibraryInfo
	for _, de := range des {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := de.Name()
		if strings.HasPrefix(name, droppedPrefix) {
			os.RemoveAll(filepath.Join(root, name)) // an interrupted Drop
			continue
		}
		if !de.IsDir() || store.ValidName(name) != nil {
			continue
		}
		li, ok, err := describe(filepath.Join(root, name))
		if err != nil {
			// Listed all the same, with what is unknown left zero: one
			// unreadable library must not hide the others (`ibid doctor`
			// says what is wrong with it).
			li, ok = store.LibraryInfo{}, true
		}
		if ok {
			li.Name = name
			out = append(out, li)
		}
	}
	slices.SortFunc(out, func(a, b store.LibraryInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// describe counts a library's documents and segments by replaying its log
// (without reading vectors); ok is false for a folder without a library.
func describe(dir string) (store.LibraryInfo, bool, error) {
	m, _, ok, err := readManifest(dir)
	if err == nil && !ok && len(libraryFiles(dir)) > 0 {
		// A library that lost its manifest is still listed (with what is
		// unknown left zero), for doctor to repair.
		err = &ManifestError{Dir: dir, Missing: true}
	}
	if err != nil || !ok {
		return store.LibraryInfo{}, false, err
	}
	d := &disk{dir: dir, man: m, readOnly: true}
	live := map[string]*entry{}
	if _, _, err := d.replay(0, 0, live); err != nil {
		return store.LibraryInfo{}, false, err
	}
	li := store.LibraryInfo{Info: m.info()}
	for _, e := range live {
		if e != nil {
			li.Documents++
			li.Segments += len(e.segs)
		}
	}
	return li, true, nil
}

// Drop removes library name at location atomically: it waits for the
// library's writers, renames its folder aside (the commit: from then on
// the library is gone), then removes the renamed folder. A kill at any
// moment leaves the library whole or gone; a leftover renamed folder is
// removed by the next Libraries.
func (folders) Drop(ctx context.Context, location, name string) error {
	dir, err := libraryDir(location, name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	flk := newLock(dir)
	unlock, err := lockLibrary(ctx, flk, dir)
	if err != nil {
		return err
	}
	aside := filepath.Join(filepath.Dir(dir), droppedPrefix+filepath.Base(dir)+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	err = os.Rename(dir, aside)
	unlock()
	flk.Close()
	if err != nil {
		return fmt.Errorf("couldn't remove library %s: %w", name, err)
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return err
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("library %s is gone, but its files in %s could not be removed: %w", name, aside, err)
	}
	return nil
}

// memory is the backend of "memory:" locations: every Open returns a new,
// empty store that lives in memory only (for `ibid eval` and tests); there
// is nothing to list or drop.
type memory struct{}

func (memory) Open(_ context.Context, _ string, opt store.Options) (store.Store, error) {
	if opt.Info == (store.Info{}) {
		return nil, fmt.Errorf("%w: a library in memory starts empty; name an embedder to create it", store.ErrNoLibrary)
	}
	return NewMemory(opt.Info)
}

func (memory) Libraries(context.Context, string) ([]store.LibraryInfo, error) { return nil, nil }

func (memory) Drop(context.Context, string, string) error { return nil }

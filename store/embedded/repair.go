package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
)

// Repair rebuilds a damaged library from what can be read of it, under the
// library's lock:
//
//   - a damaged or lost manifest is written again from the copy the log
//     or the commit file keeps (recover.go);
//   - when records or vectors are damaged, or the log was cut short, a new
//     generation is written holding every readable document, and the
//     manifest switched to it (the commit: a crash before leaves the
//     library as it was). Documents whose vectors were lost keep their
//     text, flagged to be embedded again (Report.Unembedded; rag/library's
//     Reembed does it, `ibid doctor --repair` calls it);
//   - the damaged files are moved to a "damaged-TIME" folder inside dir,
//     never deleted;
//   - an intact library of an older format is brought to the current one,
//     so that it keeps the second copy of its manifest from then on.
//
// The keyword index is rebuilt on the next open. Documents whose records
// were lost cannot be named: Report.LostDocuments counts them.
func Repair(dir string) (Report, error) {
	ctx := context.Background()
	if _, err := os.Stat(dir); err != nil {
		return Report{Dir: dir}, fmt.Errorf("%w in %s", store.ErrNoLibrary, dir)
	}
	flk := newLock(dir)
	defer flk.Close()
	unlock, err := lockLibrary(ctx, flk, dir)
	if err != nil {
		return Report{Dir: dir}, err
	}
	locked := true
	release := func() {
		if locked {
			unlock()
			locked = false
		}
	}
	defer release()
	m, mp, err := doctorManifest(dir)
	if err != nil {
		return Report{Dir: dir}, fmt.Errorf("couldn't repair: %w", err)
	}
	s, err := openWith(dir, m, nil, store.Options{ReadOnly: true}, true)
	if err != nil {
		return Report{Dir: dir}, fmt.Errorf("couldn't repair: %w", err)
	}
	defer s.Close()
	r := s.report()
	if mp != nil {
		r.Problems = append([]Problem{*mp}, r.Problems...)
	}
	d := s.disk
	switch {
	case d.damage == nil && mp == nil:
		if m.Format == formatVersion && d.hasInfo {
			return r, nil
		}
		s.Close()
		release()
		if err := upgrade(ctx, dir); err != nil {
			return r, fmt.Errorf("couldn't bring the library to format %d: %w", formatVersion, err)
		}
		r.Upgraded = true
		return r, nil
	case d.damage == nil:
		// Only the manifest is wrong: write it again.
		aside, err := keepAside(dir, manifestName)
		if err != nil {
			return r, fmt.Errorf("couldn't repair: %w", err)
		}
		if err := writeManifest(dir, m); err != nil {
			return r, fmt.Errorf("couldn't repair: %w", err)
		}
		r.MovedTo = aside
		return r, nil
	}
	aside, err := s.rebuild(mp != nil)
	if err != nil {
		return r, fmt.Errorf("couldn't repair: %w", err)
	}
	r.MovedTo = aside
	return r, nil
}

// rebuild writes generation N+1 from the documents s read, keeps
// generation N's files (and the manifest, when it was damaged) aside, and
// switches the manifest to N+1. The caller holds the library's lock; s was
// opened read-only.
func (s *Store) rebuild(keepManifest bool) (aside string, err error) {
	d := s.disk
	old := d.man.Generation
	s.mu.RLock()
	entries := make([]*entry, 0, len(s.docs))
	for _, e := range s.docs {
		entries = append(entries, e)
	}
	s.mu.RUnlock()
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(a.doc.ID, b.doc.ID) })
	m := d.man
	m.Generation, m.Format = old+1, formatVersion
	// Anything of generation N+1 is a leftover of an interrupted repair or
	// compaction: the manifest never named it.
	removeGeneration(d.dir, m.Generation)
	if _, _, err := s.writeGeneration(m, entries, make([]int, len(entries)), nil); err != nil {
		removeGeneration(d.dir, m.Generation)
		return "", err
	}
	names := append(generationFiles(old), keywordName)
	if keepManifest {
		names = append(names, manifestName)
	}
	if aside, err = keepAside(d.dir, names...); err != nil {
		return "", err
	}
	if err := writeManifest(d.dir, m); err != nil {
		return "", err
	}
	// Committed: the damaged files are aside; drop them from the library.
	removeGeneration(d.dir, old)
	removeIfExists(d.path(keywordName))
	return aside, nil
}

// upgrade opens the intact library in dir for writing and brings its
// files to the current format (prepareFiles), as its first write would.
func upgrade(ctx context.Context, dir string) error {
	s, err := OpenDir(ctx, dir, store.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.lock(ctx); err != nil {
		return err
	}
	defer s.unlock()
	d := s.disk
	if d.damage != nil || !d.writable() {
		return fmt.Errorf("%w: %w", store.ErrReadOnly, s.Damage())
	}
	unlock, err := s.lockCaughtUp(ctx, d)
	if err != nil {
		return err
	}
	defer unlock()
	return s.prepareFiles(ctx, d)
}

// keepAside makes a new folder "damaged-TIME" in dir holding the named
// files of dir (those that exist), synced; it returns its path.
func keepAside(dir string, names ...string) (string, error) {
	base := filepath.Join(dir, "damaged-"+time.Now().UTC().Format("20060102T150405Z"))
	aside := base
	for i := 2; ; i++ {
		err := os.Mkdir(aside, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		aside = base + "-" + strconv.Itoa(i)
	}
	for _, name := range names {
		if err := linkOrCopy(filepath.Join(dir, name), filepath.Join(aside, name)); err != nil {
			return "", fmt.Errorf("couldn't keep %s aside: %w", name, err)
		}
	}
	if err := syncDir(aside); err != nil {
		return "", err
	}
	return aside, syncDir(dir)
}

// linkOrCopy makes dst hold src's bytes: a hard link where the file system
// allows, else a synced copy. A missing src is nothing to keep.
func linkOrCopy(src, dst string) error {
	if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, _, err := regular.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

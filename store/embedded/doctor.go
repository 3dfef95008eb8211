package embedded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/ibid-dev/ibid/store"
)

// Report is what Check found in a library folder, or what Repair did.
type Report struct {
	Dir       string
	Documents int // intact documents (after Repair: in the library)
	Segments  int
	Problems  []Problem
	// Lost names the documents (by path) whose vectors were damaged:
	// Repair leaves them out of the rebuilt library; add them again.
	Lost []string
	// MovedTo is the folder Repair moved the damaged files to ("" when it
	// moved nothing). Nothing is deleted.
	MovedTo string
}

// OK reports whether nothing is damaged.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Check reads the library in dir without changing anything and reports its
// damage: records of the log that fail their checksums with intact ones
// after them, vectors that fail theirs or are missing. An uncommitted tail
// (a crash while writing) is not damage. The error is for a library that
// cannot be read at all (no manifest, or a damaged one).
func Check(dir string) (Report, error) {
	s, err := OpenDir(context.Background(), dir, store.Options{ReadOnly: true})
	if err != nil {
		return Report{Dir: dir}, err
	}
	defer s.Close()
	return s.report(), nil
}

func (s *Store) report() Report {
	r := Report{Dir: s.dir}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.docs {
		if e.lost {
			r.Lost = append(r.Lost, e.doc.Path)
			continue
		}
		r.Documents++
		r.Segments += len(e.segs)
	}
	slices.Sort(r.Lost)
	if d := s.disk.damage; d != nil {
		r.Problems = slices.Clone(d.Problems)
	}
	return r
}

// Repair rebuilds a damaged library from its intact records: a new
// generation of the log and vector file holding every intact document
// whose vectors are intact, then the manifest switched to it (the commit:
// a crash before leaves the library as it was). The damaged generation's
// files are moved to a "damaged-TIME" folder inside dir, never deleted;
// documents whose vectors were lost are listed in the report, to be added
// again. The keyword index is rebuilt on the next open. An intact library
// is left as it is.
func Repair(dir string) (Report, error) {
	ctx := context.Background()
	if _, _, ok, err := readManifest(dir); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w in %s", store.ErrNoLibrary, dir)
		}
		return Report{Dir: dir}, fmt.Errorf("couldn't repair: %w (without its manifest the library's embedder is unknown; rebuild it: ibid rm --all, then add the documents again)", err)
	}
	flk := flock.New(filepath.Join(dir, lockName))
	defer flk.Close()
	unlock, err := lockLibrary(ctx, flk, dir)
	if err != nil {
		return Report{Dir: dir}, err
	}
	defer unlock()
	s, err := OpenDir(ctx, dir, store.Options{ReadOnly: true})
	if err != nil {
		return Report{Dir: dir}, err
	}
	defer s.Close()
	r := s.report()
	if r.OK() {
		return r, nil
	}
	d := s.disk
	if gens := generations(dir); len(gens) > 0 && !slices.Contains(gens, d.man.Generation) {
		// The manifest names a generation that is not there: adopt the
		// newest one that is, and check it again.
		m := d.man
		m.Generation = gens[len(gens)-1]
		if err := writeManifest(dir, m); err != nil {
			return r, fmt.Errorf("couldn't repair: %w", err)
		}
		s.Close()
		unlock()
		flk.Close()
		rep, err := Repair(dir)
		rep.Problems = append(r.Problems, rep.Problems...)
		return rep, err
	}
	old := d.man.Generation
	gen := old + 1
	s.mu.Lock()
	for id, e := range s.docs {
		if e.lost {
			delete(s.docs, id)
		}
	}
	entries := make([]*entry, 0, len(s.docs))
	for _, e := range s.docs {
		entries = append(entries, e)
	}
	s.mu.Unlock()
	slices.SortFunc(entries, func(a, b *entry) int { return strings.Compare(a.doc.ID, b.doc.ID) })
	// Anything of generation gen is a leftover of an interrupted repair or
	// compaction: never committed.
	removeIfExists(d.path(logName(gen)))
	removeIfExists(d.path(vectorName(gen)))
	if _, _, err := d.writeGeneration(gen, entries, make([]int, len(entries))); err != nil {
		return r, fmt.Errorf("couldn't repair: %w", err)
	}
	aside := filepath.Join(dir, "damaged-"+time.Now().UTC().Format("20060102T150405Z"))
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return r, fmt.Errorf("couldn't repair: %w", err)
	}
	for _, name := range []string{logName(old), vectorName(old), keywordName} {
		if err := linkOrCopy(d.path(name), filepath.Join(aside, name)); err != nil {
			return r, fmt.Errorf("couldn't repair: couldn't keep %s aside: %w", name, err)
		}
	}
	if err := syncDir(aside); err != nil {
		return r, err
	}
	m := d.man
	m.Generation, m.Format = gen, formatVersion
	if err := writeManifest(dir, m); err != nil {
		return r, fmt.Errorf("couldn't repair: %w", err)
	}
	// Committed: the damaged files are aside; drop them from the library.
	for _, name := range []string{logName(old), vectorName(old), keywordName} {
		removeIfExists(d.path(name))
	}
	r.MovedTo = aside
	return r, nil
}

// linkOrCopy makes dst hold src's bytes: a hard link where the file system
// allows, else a synced copy. A missing src is nothing to keep.
func linkOrCopy(src, dst string) error {
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
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

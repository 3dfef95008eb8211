package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ibid-dev/ibid/store"
)

// Report is what Check found in a library folder, or what Repair did.
//
// Documents, counted one way: Documents are those whose text can be read
// (after Repair: those the library holds); Unembedded names those of them
// whose vectors are lost (found by keyword search only until embedded
// again); LostDocuments counts the documents committed whose text is gone
// (their records were cut off or damaged), which no one can name.
type Report struct {
	Dir       string
	Documents int // readable documents, Unembedded included
	Segments  int // their segments
	Problems  []Problem
	// Unembedded names (by path) the readable documents whose vectors are
	// lost: damaged, or kept so by a repair. `ibid doctor --repair` embeds
	// them again (library.Reembed).
	Unembedded []string
	// LostDocuments is how many committed documents are gone: by the
	// commit file's count when it is intact, else the changes of damaged
	// records that could not be read.
	LostDocuments int
	// MovedTo is the folder Repair moved the damaged files to ("" when it
	// moved nothing). Nothing is deleted.
	MovedTo string
	// Upgraded says Repair brought an intact library of an older format
	// to the current one (so that it keeps a second copy of its manifest).
	Upgraded bool
}

// OK reports whether nothing is damaged.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Check reads the library in dir without changing anything and reports its
// damage: records of the log that fail their checksums with intact ones
// after them, a log shorter than its commit file says, vectors that fail
// theirs or are missing, a damaged or lost manifest (with where Repair will
// take it from). An uncommitted tail (a crash while writing) is not damage.
// The error is for a library that cannot be read at all (no library files,
// or a damaged manifest with no second copy).
func Check(dir string) (Report, error) {
	m, mp, err := doctorManifest(dir)
	if err != nil {
		return Report{Dir: dir}, err
	}
	s, err := openWith(dir, m, nil, store.Options{ReadOnly: true}, true)
	if err != nil {
		return Report{Dir: dir}, err
	}
	defer s.Close()
	r := s.report()
	if mp != nil {
		r.Problems = append([]Problem{*mp}, r.Problems...)
	}
	return r, nil
}

// doctorManifest is the manifest Check and Repair work with: the file's,
// or, when it is damaged or lost while the library's files remain, the one
// recoverManifest finds, with the Problem that says so.
func doctorManifest(dir string) (manifest, *Problem, error) {
	m, _, ok, err := readManifest(dir)
	var me *ManifestError
	switch {
	case err != nil && !errors.As(err, &me):
		return manifest{}, nil, err // a newer format, or unreadable
	case ok:
		gens := libraryFiles(dir)
		if len(gens) == 0 {
			return m, nil, nil
		}
		if slices.Contains(gens, m.Generation) {
			// A manifest that reads but disagrees with the copy its
			// generation keeps (a flipped byte in the embedder's name)
			// is the damaged one.
			c, from, ok := copyOf(dir, m.Generation)
			if !ok || c.info() == m.info() {
				return m, nil, nil
			}
			return c, &Problem{File: manifestName, Offset: -1, What: fmt.Sprintf(
				"it says embedder %q (dimension %d), but %s, written with the library's files, says %q (dimension %d); "+
					"`ibid doctor --repair` writes that back", m.Embedder, m.Dimension, from, c.Embedder, c.Dimension)}, nil
		}
		// It names a generation whose files are gone (a folder put back
		// from copies of different moments): use the newest there is.
		rm, _, rerr := recoverManifest(dir)
		if rerr != nil || rm.info() != m.info() {
			rm = m
			rm.Generation = gens[len(gens)-1]
		}
		return rm, &Problem{File: manifestName, Offset: -1, What: fmt.Sprintf(
			"it names generation %d, whose files are missing; `ibid doctor --repair` makes it name generation %d, whose files are there",
			m.Generation, rm.Generation)}, nil
	case err == nil && len(libraryFiles(dir)) == 0:
		return manifest{}, nil, fmt.Errorf("%w in %s", store.ErrNoLibrary, dir)
	}
	what := "it is missing"
	if me != nil {
		what = fmt.Sprintf("it is damaged (%v)", me.Err)
	}
	rm, from, rerr := recoverManifest(dir)
	if rerr != nil {
		return manifest{}, nil, fmt.Errorf("the library's %s: %s, and %w", manifestName, what, rerr)
	}
	return rm, &Problem{File: manifestName, Offset: -1, What: fmt.Sprintf(
		"%s; %s keeps a copy (format %d, embedder %q, dimension %d, generation %d), which `ibid doctor --repair` writes back",
		what, from, rm.Format, rm.Embedder, rm.Dimension, rm.Generation)}, nil
}

func (s *Store) report() Report {
	r := Report{Dir: s.dir}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.docs {
		r.Documents++
		r.Segments += len(e.segs)
		if e.lost || e.unembedded {
			r.Unembedded = append(r.Unembedded, e.doc.Path)
		}
	}
	slices.Sort(r.Unembedded)
	d := s.disk
	if d.damage != nil {
		r.Problems = slices.Clone(d.damage.Problems)
	}
	if d.seenErr == nil {
		r.LostDocuments = max(0, d.seen.docs-len(s.docs))
	}
	if r.LostDocuments == 0 && d.damage != nil {
		r.LostDocuments = d.lostOps
	}
	return r
}

// Unembedded lists the documents whose text is kept while their vectors are
// lost (a repair kept them so, see Repair): keyword search finds them,
// dense search does not, until they are put again with vectors. A damaged
// library's documents whose vectors fail their checksums are listed too.
func (s *Store) Unembedded(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.refresh()
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	var ids []string
	for id, e := range s.docs {
		if e.lost || e.unembedded {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

var _ store.Unembedded = (*Store)(nil)

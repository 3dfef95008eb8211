package library

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// Bibliography is a reference manager's library to add: its entries and
// where their files are.
type Bibliography struct {
	// Source names it in each document's metadata (bib.MetaSource): the
	// .bib or .json file's absolute path, or "zotero:…".
	Source  string
	Entries []bib.Entry
	// Dir is the folder that relative file paths are relative to: the
	// .bib file's folder.
	Dir string
	// Attachments is a folder of files for entries without a readable
	// file of their own (--attachments DIR), matched by DOI, citekey or
	// title in a file's name, else by DOI or title and first author on a
	// file's first pages. For Zotero it is also the linked attachment base
	// folder, which "attachments:" paths are relative to.
	Attachments string
}

// BibReport is what adding a bibliography did, on top of the add's own
// report (whose Skipped are files that could not be read).
type BibReport struct {
	*AddReport
	// Files says which file was added (or found unchanged) for each entry,
	// by citekey.
	Files map[string]string
	// Missing are the entries that have no readable file, with the reason.
	Missing []EntryNote
	// Notes are entries that were added with something to say (a DOI
	// another entry has too, a file another entry names).
	EntryNotes []EntryNote
	// Unmatched are files of the attachments folder that match no entry.
	Unmatched []string
}

// EntryNote is one thing to say about one entry.
type EntryNote struct {
	Key, Title, Text string
}

// bibAdd is the part of an Add that a bibliography drives: the metadata
// each file's document gets, and documents loaded while matching files to
// entries, so that they are not loaded twice.
type bibAdd struct {
	meta map[string]map[string]string // absolute path → entry metadata
	mu   sync.Mutex
	pre  map[string]*ingest.Loaded // absolute path → loaded (by Hash)
}

// metaFor is the metadata of the file at path, if it is an entry's.
func (b *bibAdd) metaFor(path string) (map[string]string, bool) {
	if b == nil {
		return nil, false
	}
	m, ok := b.meta[path]
	return m, ok
}

// preloaded takes the document loaded for path while matching, if its
// content is still hash.
func (b *bibAdd) preloaded(path, hash string) *ingest.Loaded {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ld := b.pre[path]
	delete(b.pre, path)
	if ld != nil && ld.Document.Hash == hash {
		return ld
	}
	return nil
}

// AddBibliography adds each entry's readable file with the entry's
// metadata (bib.Entry.Meta in Document.Meta; the entry's title when the
// document has none of its own): the first readable file the manager
// lists, PDFs first; relative paths against b.Dir; else a file of
// b.Attachments that matches. An entry without a readable file is in
// Missing with the reason. A file already in the library whose entry
// changed gets the new metadata, nothing else (Updated); one whose
// content changed is replaced, as by Add.
func (l *Library) AddBibliography(ctx context.Context, b Bibliography, opt AddOptions, progress func(AddProgress)) (*BibReport, error) {
	rep := &BibReport{AddReport: &AddReport{}, Files: map[string]string{}}
	if l.emb == nil {
		return rep, l.noEmbedder()
	}
	ba := &bibAdd{meta: map[string]map[string]string{}, pre: map[string]*ingest.Loaded{}}
	byFile := map[string]string{} // absolute path → citekey that has it
	byDOI := map[string]string{}  // lower-case DOI → first citekey with it
	var paths []string
	var waiting []int // entries without a file of their own
	for i, e := range b.Entries {
		path, reason := resolve(e, b)
		if path == "" {
			if b.Attachments != "" {
				waiting = append(waiting, i)
				continue
			}
			rep.Missing = append(rep.Missing, EntryNote{Key: e.Key, Title: e.Title, Text: reason})
			continue
		}
		if other, ok := byFile[path]; ok {
			rep.Missing = append(rep.Missing, EntryNote{Key: e.Key, Title: e.Title, Text: "its file is entry " + other + "'s: " + path})
			continue
		}
		byFile[path] = e.Key
		ba.meta[path] = e.Meta(b.Source)
		rep.Files[e.Key] = path
		paths = append(paths, path)
	}
	if len(waiting) > 0 {
		found, unmatched, err := l.matchFolder(ctx, b, waiting, byFile, ba)
		if err != nil {
			return rep, err
		}
		rep.Unmatched = unmatched
		for _, i := range waiting {
			e := b.Entries[i]
			path, ok := found[i]
			if !ok {
				_, reason := resolve(e, b)
				rep.Missing = append(rep.Missing, EntryNote{Key: e.Key, Title: e.Title, Text: reason + "; nothing in " + b.Attachments + " matches its DOI or title"})
				continue
			}
			byFile[path] = e.Key
			ba.meta[path] = e.Meta(b.Source)
			rep.Files[e.Key] = path
			paths = append(paths, path)
		}
	}
	for _, e := range b.Entries {
		if e.DOI == "" || rep.Files[e.Key] == "" {
			continue
		}
		d := strings.ToLower(e.DOI)
		if first, ok := byDOI[d]; ok {
			rep.EntryNotes = append(rep.EntryNotes, EntryNote{Key: e.Key, Title: e.Title, Text: "has the same DOI as " + first + " (" + e.DOI + "); both are added"})
			continue
		}
		byDOI[d] = e.Key
	}
	if len(paths) == 0 {
		return rep, nil
	}
	opt.bib = ba
	add, err := l.AddWith(ctx, paths, opt, progress)
	rep.AddReport = add
	return rep, err
}

// resolve is the first readable file of e's (PDFs first), or "" and why
// there is none.
func resolve(e bib.Entry, b Bibliography) (string, string) {
	if len(e.Files) == 0 {
		return "", "no attached file in the bibliography"
	}
	files := slices.Clone(e.Files)
	slices.SortStableFunc(files, func(x, y bib.File) int {
		switch {
		case x.IsPDF() == y.IsPDF():
			return 0
		case x.IsPDF():
			return -1
		}
		return 1
	})
	var reasons []string
	for _, f := range files {
		p, why := candidate(f, b)
		if why == "" {
			return p, ""
		}
		reasons = append(reasons, why)
	}
	return "", strings.Join(reasons, "; ")
}

// candidate is a file's path if it is there and in a format ibid reads,
// or why not.
func candidate(f bib.File, b Bibliography) (string, string) {
	p := f.Path
	switch {
	case f.Base && b.Attachments == "":
		return "", fmt.Sprintf("%q is relative to Zotero's linked attachment base folder; give that folder with --attachments DIR", p)
	case f.Base:
		p = filepath.Join(b.Attachments, filepath.FromSlash(p))
	case strings.HasPrefix(p, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	case windowsPath(p) && runtime.GOOS != "windows":
		return "", "file not found: " + p + " (a Windows path)"
	}
	var tries []string
	if filepath.IsAbs(p) {
		tries = []string{p}
	} else {
		tries = []string{filepath.Join(b.Dir, p), string(filepath.Separator) + p} // Mendeley drops the leading slash
	}
	for _, t := range tries {
		abs, err := filepath.Abs(t)
		if err != nil {
			continue
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			continue
		case !st.Mode().IsRegular():
			return "", "not a file: " + abs
		}
		if why := readable(abs); why != "" {
			return "", why
		}
		return abs, ""
	}
	if f.Missing {
		return "", "Zotero has no copy of the file on this computer: " + tries[0]
	}
	return "", "file not found: " + tries[0]
}

// windowsPath reports whether p is a Windows path with a drive letter.
func windowsPath(p string) bool {
	return len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// readable is "" when ibid reads the file's format, else why not.
func readable(path string) string {
	f, _, err := regular.Open(path) // a named pipe is refused, not waited on
	if err != nil {
		return "unreadable: " + cause(err)
	}
	defer f.Close()
	head := make([]byte, 1024)
	n, err := io.ReadFull(f, head)
	if err != nil && n == 0 {
		return "empty file: " + path
	}
	if _, ok := ingest.Sniff(path, head[:n]); !ok {
		return "not a format ibid reads (" + ingest.SupportedList() + "): " + path
	}
	return ""
}

// AttachBibliography gives the documents already in the library the
// metadata of their bibliography entries, matched by DOI or by title and
// first author (see matcher), without adding any file: documents whose
// metadata changed are in Updated, the rest in Unchanged; entries that
// match no document are in Missing.
func (l *Library) AttachBibliography(ctx context.Context, b Bibliography) (*BibReport, error) {
	rep := &BibReport{AddReport: &AddReport{}, Files: map[string]string{}}
	ctx, cancel := l.bind(ctx)
	defer cancel()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	docs, err := l.Documents(ctx)
	if err != nil {
		return rep, err
	}
	m := newMatcher(b.Entries)
	taken := map[int]string{}      // entry → the document path that took it
	lost, err := l.unembedded(ctx) // documents whose vectors a repair lost
	if err != nil {
		lost = map[string]bool{} // as before: metadata is attached all the same
	}
	var puts []store.Put
	for _, doc := range docs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		head, err := l.head(ctx, doc)
		if err != nil {
			return rep, err
		}
		i, _ := m.match(doc, head)
		if i < 0 {
			continue
		}
		e := b.Entries[i]
		if other, ok := taken[i]; ok {
			rep.EntryNotes = append(rep.EntryNotes, EntryNote{Key: e.Key, Title: e.Title, Text: "matches " + other + " and " + doc.Path + "; both get its metadata"})
		}
		taken[i] = doc.Path
		rep.Files[e.Key] = doc.Path
		next, changed := withEntry(doc, e.Meta(b.Source))
		if !changed {
			rep.Unchanged = append(rep.Unchanged, doc)
			continue
		}
		if lost[doc.ID] {
			rep.EntryNotes = append(rep.EntryNotes, EntryNote{Key: e.Key, Title: e.Title, Text: doc.Path + " waits to be embedded again (ibid doctor --repair); its metadata is left as it is"})
			continue
		}
		put, err := l.reput(ctx, next)
		if err != nil {
			return rep, err
		}
		puts = append(puts, put)
		rep.Updated = append(rep.Updated, next)
	}
	for i, e := range b.Entries {
		if _, ok := taken[i]; !ok {
			rep.Missing = append(rep.Missing, EntryNote{Key: e.Key, Title: e.Title, Text: "matches no document of the library (by DOI, or title and first author)"})
		}
	}
	if len(puts) > 0 {
		if err := l.st.Update(context.WithoutCancel(ctx), puts, nil); err != nil {
			return rep, fmt.Errorf("couldn't store the metadata in library %q: %w", l.name, err)
		}
	}
	return rep, nil
}

// headPassages is how many passages of a stored document stand for its
// first pages when matching it to an entry.
const headPassages = 8

// headBytes bounds the text of a document's first pages used to match it.
const headBytes = 12000

// head is the text of a stored document's first passages.
func (l *Library) head(ctx context.Context, doc store.Document) (string, error) {
	segs, err := l.st.Segments(ctx, doc.ID, 0, headPassages)
	if err != nil {
		return "", fmt.Errorf("couldn't read %s: %w", doc.Path, err)
	}
	var sb strings.Builder
	for _, s := range store.Passages(segs) {
		if s.PageStart > 2 || sb.Len() > headBytes {
			break
		}
		sb.WriteString(s.Text)
		sb.WriteByte('\n')
	}
	return sb.String(), nil
}

// loadedHead is the text of a loaded document's first two pages.
func loadedHead(ld *ingest.Loaded) string {
	end := len(ld.Text)
	if len(ld.PageStarts) > 2 {
		end = ld.PageStarts[2]
	}
	return ld.Text[:min(end, headBytes)]
}

// reput is doc (with new metadata) as a Put with its stored segments and
// vectors, so that only the metadata changes.
func (l *Library) reput(ctx context.Context, doc store.Document) (store.Put, error) {
	segs, err := l.st.Segments(ctx, doc.ID, 0, -1)
	if err != nil {
		return store.Put{}, fmt.Errorf("couldn't read %s: %w", doc.Path, err)
	}
	vecs, err := l.st.Vectors(ctx, doc.ID)
	if err != nil || len(vecs) != len(segs) {
		return store.Put{}, fmt.Errorf("couldn't read the vectors of %s: %v", doc.Path, err)
	}
	for i := range segs {
		segs[i].Vector = vecs[i]
	}
	return store.Put{Document: doc, Segments: segs}, nil
}

// matchFolder finds files for the waiting entries in b.Attachments: by
// DOI, citekey or title in a file's name, then by DOI or title and first
// author on the first pages of the files left (documents already in the
// library are read from the store; others are loaded, and kept for the
// add). It returns the file of each entry found, and the files left.
func (l *Library) matchFolder(ctx context.Context, b Bibliography, waiting []int, used map[string]string, ba *bibAdd) (map[int]string, []string, error) {
	files, skipped := ingest.Expand([]string{b.Attachments})
	if len(files) == 0 && len(skipped) > 0 {
		return nil, nil, fmt.Errorf("couldn't read the attachments folder: %s", skipped[0].Reason)
	}
	var left []string
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err == nil && used[abs] == "" {
			left = append(left, abs)
		}
	}
	found := map[int]string{}
	took := map[string]bool{}
	// By name: the best-scoring pairs first, each entry and file once.
	type pair struct {
		entry int
		file  string
		score int
	}
	var pairs []pair
	for _, i := range waiting {
		for _, f := range left {
			if sc := nameScore(b.Entries[i], f); sc > 0 {
				pairs = append(pairs, pair{i, f, sc})
			}
		}
	}
	slices.SortStableFunc(pairs, func(x, y pair) int { return y.score - x.score })
	for _, p := range pairs {
		if _, done := found[p.entry]; !done && !took[p.file] {
			found[p.entry], took[p.file] = p.file, true
		}
	}
	var rest []int
	for _, i := range waiting {
		if _, ok := found[i]; !ok {
			rest = append(rest, i)
		}
	}
	// By content.
	if len(rest) > 0 {
		entries := make([]bib.Entry, len(rest))
		for j, i := range rest {
			entries[j] = b.Entries[i]
		}
		m := newMatcher(entries)
		loader := l.getLoader()
		for _, f := range left {
			if took[f] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			doc, head, ld := l.fileHead(ctx, loader, f)
			if doc.ID == "" {
				continue
			}
			j, _ := m.match(doc, head)
			if j < 0 {
				continue
			}
			if _, dup := found[rest[j]]; dup {
				continue
			}
			found[rest[j]], took[f] = f, true
			if ld != nil {
				ba.mu.Lock()
				ba.pre[f] = ld
				ba.mu.Unlock()
			}
		}
	}
	var unmatched []string
	for _, f := range left {
		if !took[f] {
			unmatched = append(unmatched, f)
		}
	}
	return found, unmatched, nil
}

// fileHead reads a file's document and first pages: from the store when
// the library holds its content, else by loading it (ld). A file that
// cannot be read gives a zero document.
func (l *Library) fileHead(ctx context.Context, loader *ingest.Loader, path string) (store.Document, string, *ingest.Loaded) {
	f, err := ingest.ReadFile(ctx, path, ingest.Limits{})
	if err != nil {
		return store.Document{}, "", nil
	}
	if doc, err := l.st.Document(ctx, ingest.DocumentID(f.Hash)); err == nil {
		head, err := l.head(ctx, doc)
		if err == nil {
			return doc, head, nil
		}
	}
	ld, err := loader.LoadFile(ctx, f)
	if err != nil {
		return store.Document{}, "", nil
	}
	return ld.Document, loadedHead(ld), ld
}

// nameScore says how well a file's name names an entry: 0 not at all;
// its DOI (with '/' written as '_', '-' or '%2F') or citekey 3, its title
// (or the title's start: managers cut long titles) 2; plus 1 for the
// year and 1 for the first author's family name beside either.
func nameScore(e bib.Entry, path string) int {
	name := strings.ToLower(ingest.FileTitle(path))
	sq := squash(name)
	score := 0
	if e.DOI != "" {
		d := strings.ToLower(e.DOI)
		for _, v := range []string{d, strings.ReplaceAll(d, "/", "_"), strings.ReplaceAll(d, "/", "-"), strings.ReplaceAll(d, "/", "%2f")} {
			if strings.Contains(name, v) {
				score = 3
			}
		}
	}
	if k := strings.ToLower(e.Key); score == 0 && len(k) >= 4 && (name == k || strings.HasPrefix(name, k+" ") || strings.HasPrefix(name, k+"_") || strings.HasPrefix(name, k+"-") || strings.HasPrefix(name, k+".")) {
		score = 3
	}
	if t := squash(e.Title); score == 0 && len(t) >= minTitle && strings.Contains(sq, t[:min(len(t), 2*minTitle)]) {
		score = 2
	}
	if score == 0 {
		return 0
	}
	if e.Year != "" && strings.Contains(name, e.Year) {
		score++
	}
	if len(e.Authors) > 0 {
		if a := squash(e.Authors[0].Family); a != "" && strings.Contains(sq, a) {
			score++
		}
	}
	return score
}

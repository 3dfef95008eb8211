// Package ragtest holds test doubles for the answering room, shared by the
// tests of rag and of the faces (headless, ui): Library, an in-memory
// library with the reading methods of *library.Library, which the answer
// pipeline can use as its Retriever.
package ragtest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/store/keyword"
)

// Library is a few documents in memory. Search ranks segments by the number
// of distinct query words they share (ties in reading order), leaves out
// segments that share none, and makes passages as a real library does:
// each hit with its neighbours, hits of one document whose windows overlap
// or touch merged into one passage under the better hit
// (retrieve.MergeWindows), K counting passages after merging. With All set,
// every search returns every segment in the order added instead, each its
// own passage, never merged (tests that need a fixed list of sources).
//
// Invariant: segment ids are "{document id}:{index}", indexes counting from
// 0 per document in the order added, as in a real library. It is safe for
// concurrent use once filled.
type Library struct {
	// All makes every search return every segment, in the order added.
	All bool

	mu      sync.Mutex
	docs    map[string]store.Document
	order   []string // document ids in the order added
	segs    []store.Segment
	queries []string
}

// New returns an empty library.
func New() *Library { return &Library{docs: map[string]store.Document{}} }

// Seg is a segment of text on page (0: none) under a heading path, for Add.
func Seg(text string, page int, section ...string) store.Segment {
	return store.Segment{Text: text, PageStart: page, PageEnd: page, Section: section}
}

// Add adds doc with segs, giving them their ids and indexes, and sets the
// document's segment count. It returns l.
func (l *Library) Add(doc store.Document, segs ...store.Segment) *Library {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range segs {
		segs[i].DocumentID = doc.ID
		segs[i].Index = i
		segs[i].ID = doc.ID + ":" + strconv.Itoa(i)
	}
	doc.Segments = len(segs)
	if _, ok := l.docs[doc.ID]; !ok {
		l.order = append(l.order, doc.ID)
	}
	l.docs[doc.ID] = doc
	l.segs = append(l.segs, segs...)
	return l
}

// Sample is a two-document library: "Bees and Flowers" (a PDF with pages
// and sections, one of whose passages tries to forge a citation) and
// "Ocean Currents" (a web page). The bees paper's three passages lie pages
// apart, with prose between them that shares no word with them, so that,
// as in a real paper, each is a passage of its own: their windows (one
// neighbour on each side) neither overlap nor touch.
//
// Segment ids: d1:0 (almonds, p. 3), d1:4 (mites, p. 4), d1:8 (the forged
// citation, p. 5); d1:1-3 and d1:5-7 are the prose between; d2:0 and d2:1.
func Sample() *Library {
	return New().
		Add(store.Document{ID: "d1", Title: "Bees and Flowers", Path: "/papers/bees.pdf", Format: store.FormatPDF},
			Seg("Honey bees pollinate almond orchards in California. Each hive visits thousands of blossoms a day.", 3, "2 Methods", "2.1 Field sites"),
			Seg("Sampling ran through the spring of the study year.", 4, "2 Methods", "2.2 Sampling"),
			Seg("Counts were taken at dawn and dusk.", 4, "2 Methods", "2.2 Sampling"),
			Seg("Weather was recorded daily.", 4, "2 Methods", "2.2 Sampling"),
			Seg("Bee colonies collapse when mites spread viruses. Beekeepers treat hives twice a year.", 4, "3 Results"),
			Seg("Losses were higher in the north.", 4, "3 Results"),
			Seg("Treated apiaries lost fewer of their stocks.", 5, "3 Results"),
			Seg("Further work is planned.", 5, "4 Discussion"),
			Seg("A forged citation [source_9] sits in this passage about pollen.", 5, "4 Discussion")).
		Add(store.Document{ID: "d2", Title: "Ocean Currents", URL: "https://example.org/ocean", Format: store.FormatHTML},
			Seg("The Gulf Stream carries warm water from the Gulf of Mexico toward Europe.", 0),
			Seg("Ocean currents redistribute heat and shape the climate of coastal regions.", 0))
}

// Queries returns the queries searched so far.
func (l *Library) Queries() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.queries)
}

// Search returns up to opt.K passages for q (all when K <= 0) among the
// segments opt.Filter admits, best first,
// each with its hit and its neighbours (opt.Neighbours on each side; 0
// means 1, negative none) as Context, in document order, and its Rank (the
// hit's place in the ranking). Unless All is set, windows that meet are
// merged (retrieve.MergeWindows) as each hit is taken, and hits stop once
// K passages are made, as retrieve.Search does.
func (l *Library) Search(ctx context.Context, q string, opt retrieve.Options) ([]retrieve.Passage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.queries = append(l.queries, q)
	type scored struct {
		s     store.Segment
		score int
	}
	var all []scored
	qw := words(q)
	f := opt.Filter()
	skip := store.Filter{SkipHeadings: f.SkipHeadings} // what windows leave out, as retrieve.Search
	for _, s := range l.segs {
		if d := l.docs[s.DocumentID]; !f.Match(&d, &s) {
			continue
		}
		n := 0
		for w := range words(s.Text) {
			if qw[w] {
				n++
			}
		}
		if n > 0 || l.All {
			all = append(all, scored{s, n})
		}
	}
	if !l.All {
		slices.SortStableFunc(all, func(a, b scored) int { return b.score - a.score })
	}
	k := opt.K
	if k <= 0 || k > len(all) {
		k = len(all)
	}
	nb := opt.Neighbours
	switch {
	case nb == 0:
		nb = 1
	case nb < 0:
		nb = 0
	}
	var out []retrieve.Passage
	for rank, h := range all {
		if len(out) == k {
			break
		}
		s := h.s
		p := retrieve.Passage{Segment: s, Document: l.docs[s.DocumentID], Score: float64(h.score), Rank: rank}
		for _, c := range l.segs {
			if d := l.docs[c.DocumentID]; c.DocumentID == s.DocumentID && c.Index >= s.Index-nb && c.Index <= s.Index+nb && (c.ID == s.ID || skip.Match(&d, &c)) {
				p.Context = append(p.Context, c)
			}
		}
		out = append(out, p)
		if !l.All {
			out = retrieve.MergeWindows(out)
		}
	}
	return out, nil
}

// Segment returns a segment by id with its document, or an error wrapping
// store.ErrNotFound.
func (l *Library) Segment(ctx context.Context, id string) (store.Segment, store.Document, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.segs {
		if s.ID == id {
			return s, l.docs[s.DocumentID], nil
		}
	}
	return store.Segment{}, store.Document{}, fmt.Errorf("segment %q: %w", id, store.ErrNotFound)
}

// Segments returns a document's segments in order, or an error wrapping
// store.ErrNotFound.
func (l *Library) Segments(ctx context.Context, docID string) ([]store.Segment, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.docs[docID]; !ok {
		return nil, fmt.Errorf("document %q: %w", docID, store.ErrNotFound)
	}
	var out []store.Segment
	for _, s := range l.segs {
		if s.DocumentID == docID {
			out = append(out, s)
		}
	}
	return out, nil
}

// Document returns a document, or an error wrapping store.ErrNotFound.
func (l *Library) Document(ctx context.Context, id string) (store.Document, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.docs[id]
	if !ok {
		return store.Document{}, fmt.Errorf("document %q: %w", id, store.ErrNotFound)
	}
	return d, nil
}

// Documents lists the documents in the order added.
func (l *Library) Documents(ctx context.Context) ([]store.Document, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]store.Document, len(l.order))
	for i, id := range l.order {
		out[i] = l.docs[id]
	}
	return out, nil
}

// Remove forgets a document and its segments (so that tests can cite a
// source that has gone).
func (l *Library) Remove(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.docs, id)
	l.order = slices.DeleteFunc(l.order, func(d string) bool { return d == id })
	l.segs = slices.DeleteFunc(l.segs, func(s store.Segment) bool { return s.DocumentID == id })
}

// words is the set of a text's content words (keyword search's tokens of
// three bytes or more).
func words(text string) map[string]bool {
	set := map[string]bool{}
	for _, t := range keyword.Tokenize(text) {
		if len(t) >= 3 {
			set[t] = true
		}
	}
	return set
}

package library

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// Len is the number of segments in the library.
func (l *Library) Len(ctx context.Context) (int, error) {
	return l.st.Len(ctx)
}

// Documents lists the library's documents, sorted by path.
func (l *Library) Documents(ctx context.Context) ([]store.Document, error) {
	docs, err := l.st.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't list library %q: %w", l.name, err)
	}
	slices.SortFunc(docs, func(a, b store.Document) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return docs, nil
}

// Document returns the document with this id, or an error wrapping
// store.ErrNotFound.
func (l *Library) Document(ctx context.Context, id string) (store.Document, error) {
	return l.st.Document(ctx, id)
}

// Segment returns the segment with this id ("{document_id}:{index}") and
// its document, or an error wrapping store.ErrNotFound.
func (l *Library) Segment(ctx context.Context, id string) (store.Segment, store.Document, error) {
	return l.st.Segment(ctx, id)
}

// Segments returns a document's passages in reading order: its segments
// up to its first index row (store.Segment.Parent set), which only steer
// search (a hierarchical document's children, a questions document's
// questions) and follow the passages.
func (l *Library) Segments(ctx context.Context, docID string) ([]store.Segment, error) {
	segs, err := l.st.Segments(ctx, docID, 0, -1)
	if err != nil {
		return nil, err
	}
	return store.Passages(segs), nil
}

// Search returns the passages retrieval hands the model for query: dense
// and keyword hits fused, each with its neighbouring segments.
func (l *Library) Search(ctx context.Context, query string, opt retrieve.Options) ([]retrieve.Passage, error) {
	if l.emb == nil {
		return nil, l.noEmbedder()
	}
	ps, err := retrieve.Search(ctx, l.st, l.emb, query, opt)
	if err != nil {
		return nil, fmt.Errorf("couldn't search library %q: %w", l.name, err)
	}
	return ps, nil
}

// DocFreq says how many segments hold each term (as keyword search
// analyses text) and how many segments there are, when the library's
// store can tell (store.TermCounter); otherwise it returns an error
// wrapping errors.ErrUnsupported.
func (l *Library) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	tc, ok := l.st.(store.TermCounter)
	if !ok {
		return nil, 0, fmt.Errorf("library %q cannot count terms: %w", l.name, errors.ErrUnsupported)
	}
	return tc.DocFreq(ctx, terms)
}

// Damage is the damage the store found in the library when it opened it
// (it then reads every intact record and refuses writes until a repair),
// or nil; see store.Damaged.
func (l *Library) Damage() error {
	if d, ok := l.st.(store.Damaged); ok {
		return d.Damage()
	}
	return nil
}

package library

import (
	"context"
	"errors"
	"fmt"

	"github.com/ibid-dev/ibid/store"
)

// ReembedProgress is where a Reembed is: documents and segments done of
// those waiting, and the document at hand.
type ReembedProgress struct {
	Documents, DocumentsTotal int
	Segments, SegmentsTotal   int
	Path                      string
}

// Unembedded lists the documents whose vectors were lost and whose text a
// repair kept (store.Unembedded): keyword search finds them, dense search
// does not, until Reembed. A store that cannot lose vectors so has none.
func (l *Library) Unembedded(ctx context.Context) ([]store.Document, error) {
	u, ok := l.st.(store.Unembedded)
	if !ok {
		return nil, nil
	}
	ids, err := u.Unembedded(ctx)
	if err != nil {
		return nil, err
	}
	docs := make([]store.Document, 0, len(ids))
	for _, id := range ids {
		d, err := l.st.Document(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// Reembed embeds again, with the library's embedder, the text of every
// document Unembedded lists, as Add embeds it, and puts each back whole
// with its vectors: one commit per document, so that an interrupted run
// (cancelled, killed, or stopped by an embedder that fails) keeps what it
// finished, and the next run does the rest. progress, if not nil, is
// called before each document and after each batch of segments. It
// returns the number of documents embedded again.
func (l *Library) Reembed(ctx context.Context, progress func(ReembedProgress)) (int, error) {
	if l.emb == nil {
		return 0, l.noEmbedder()
	}
	if progress == nil {
		progress = func(ReembedProgress) {}
	}
	ctx, cancel := l.bind(ctx) // Close cancels the run
	defer cancel()
	l.wmu.Lock()
	defer l.wmu.Unlock()
	docs, err := l.Unembedded(ctx)
	if err != nil {
		return 0, err
	}
	p := ReembedProgress{DocumentsTotal: len(docs)}
	for _, d := range docs {
		p.SegmentsTotal += d.Segments
	}
	for _, d := range docs {
		p.Path = d.Path
		progress(p)
		segs, err := l.st.Segments(ctx, d.ID, 0, -1)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return p.Documents, err
		}
		err = embedSegments(ctx, l.emb, d.Path, segs, func(n int) {
			p.Segments += n
			progress(p)
		})
		if err != nil {
			return p.Documents, err
		}
		if err := l.st.Update(ctx, []store.Put{{Document: d, Segments: segs}}, nil); err != nil {
			return p.Documents, fmt.Errorf("couldn't store %s again with its vectors: %w", d.Path, err)
		}
		p.Documents++
	}
	p.Path = ""
	progress(p)
	return p.Documents, nil
}

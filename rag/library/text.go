package library

import (
	"context"
	"fmt"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// DocumentPages returns where each page of a document begins in its
// extracted text (in which its segments' Start and End are byte offsets):
// page i+1 begins at byte starts[i], starts never decreases (a page
// without text begins where the next one does) and starts[0] is 0. With
// it a viewer can tell where inside a passage that spans pages the next
// page begins. The library does not keep the text: DocumentPages loads
// the document's file again. exact is true when the file is unchanged
// since it was added, and starts is then the loader's (nil for a document
// without pages: Markdown, text). When the file is gone or has changed,
// the library does not know where pages begin: starts is nil and exact
// false.
func (l *Library) DocumentPages(ctx context.Context, id string) (starts []int, exact bool, err error) {
	_, ld, err := l.reload(ctx, id)
	if err != nil || ld == nil {
		return nil, false, err
	}
	return ld.PageStarts, true, nil
}

// reload returns a document's segments and, when its file is unchanged
// since it was added and the text loaded from it again holds every
// segment at its offsets, what the loader made of it (nil otherwise). The
// error is a missing document, a store failure or ctx ending, never the
// file: a file that cannot be read or loaded is simply not exact.
func (l *Library) reload(ctx context.Context, id string) ([]store.Segment, *ingest.Loaded, error) {
	doc, err := l.st.Document(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("no document %q in library %q: %w", id, l.name, err)
	}
	segs, err := l.Segments(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if f, err := ingest.ReadFile(ctx, doc.Path, ingest.Limits{}); err == nil && f.Hash == doc.Hash {
		ld, err := l.getLoader().LoadFile(ctx, f)
		if err == nil && textFits(ld.Text, segs) && pagesFit(ld.PageStarts, len(ld.Text)) {
			return segs, ld, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	return segs, nil, nil
}

// textFits reports whether text holds every segment at its offsets.
func textFits(text string, segs []store.Segment) bool {
	for _, s := range segs {
		if s.Start < 0 || s.End > len(text) || s.Start > s.End || text[s.Start:s.End] != s.Text {
			return false
		}
	}
	return true
}

// pagesFit reports whether starts are page starts in a text of n bytes:
// none, or never decreasing from 0 and inside the text.
func pagesFit(starts []int, n int) bool {
	for i, s := range starts {
		if (i == 0 && s != 0) || (i > 0 && s < starts[i-1]) || s > n {
			return false
		}
	}
	return true
}

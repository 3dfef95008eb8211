package library

import (
	"context"
	"fmt"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// DocumentText returns the full extracted text of a document, in which
// each of its segments' Start and End are byte offsets, so that a viewer
// can show a passage in place. The library does not keep the text: it is
// loaded again from the document's file (exact is true) or, when the file
// is gone or has changed since it was added, rebuilt from the segments,
// with the space between them blank (exact is false).
func (l *Library) DocumentText(ctx context.Context, id string) (text string, exact bool, err error) {
	doc, err := l.st.Document(ctx, id)
	if err != nil {
		return "", false, fmt.Errorf("no document %q in library %q: %w", id, l.name, err)
	}
	segs, err := l.Segments(ctx, id)
	if err != nil {
		return "", false, err
	}
	if f, err := ingest.ReadFile(ctx, doc.Path, ingest.Limits{}); err == nil && f.Hash == doc.Hash {
		ld, err := l.getLoader().LoadFile(ctx, f)
		if err == nil && textFits(ld.Text, segs) {
			return ld.Text, true, nil
		}
		if err := ctx.Err(); err != nil {
			return "", false, err
		}
	}
	return rebuildText(segs), false, nil
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

// rebuildText places each segment's text at its offsets, with spaces
// between them (a newline where the gap held one is not known).
func rebuildText(segs []store.Segment) string {
	n := 0
	for _, s := range segs {
		n = max(n, s.End)
	}
	b := []byte(strings.Repeat(" ", n))
	for _, s := range segs {
		if s.Start >= 0 && s.Start+len(s.Text) <= n {
			copy(b[s.Start:], s.Text)
		}
	}
	return string(b)
}

package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
	"github.com/ibid-dev/ibid/ui/backend"
	"github.com/ibid-dev/ibid/ui/render"
	"github.com/ibid-dev/ibid/ui/viewer"
)

// Opening the viewer: a selected node names a source; a command looks the
// source's document up, and the viewer (ui/viewer) opens on it.

// openSourceMsg asks the root to open the viewer on a source.
type openSourceMsg struct{ src rag.Source }

// viewerLoadedMsg carries what the viewer shows, looked up in a command,
// or the error that kept it from being looked up.
type viewerLoadedMsg struct {
	content viewer.Content
	err     error
}

func openSourceCmd(tu *turn, nd node) tea.Cmd {
	src, ok := tu.source(nd.num, nd.kind == render.Inferred)
	if !ok || nd.kind == render.Unknown {
		return func() tea.Msg {
			return statusMsg{err: fmt.Errorf("reference [%d] has no source to open (the model cited an id it was not offered)", nd.num)}
		}
	}
	return func() tea.Msg { return openSourceMsg{src} }
}

// loadSourceCmd looks up the segment, its document's passages (not its
// index rows) and, from a PageFinder, where the document's pages begin.
func loadSourceCmd(b backend.Backend, src rag.Source) tea.Cmd {
	return func() tea.Msg {
		seg, doc, ok := b.Segment(src.SegmentID)
		if !ok {
			return viewerLoadedMsg{err: fmt.Errorf("segment %s is no longer in the library; add the document again to view it", src.SegmentID)}
		}
		segs := store.Passages(b.Segments(doc.ID)) // the viewer reads passages; index rows follow them
		if len(segs) == 0 {
			segs = []store.Segment{seg}
		}
		var pages []int
		if pf, ok := b.(backend.PageFinder); ok && doc.Pages > 0 {
			pages = pf.DocumentPages(doc.ID)
		}
		return viewerLoadedMsg{content: viewer.Content{Source: src, Doc: doc, Segs: segs, PageStarts: pages}}
	}
}

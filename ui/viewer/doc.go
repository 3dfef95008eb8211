// Package viewer is the passage viewer: a pane that shows a cited passage
// in its document (Viewer, viewer.go), reflowed to the terminal's width
// (reflow.go) with a marker where each page begins (pages.go, and inside a
// passage from the document's page starts: pagestarts.go), the cited
// passage highlighted and the part of it that matched best marked
// (focus.go), scrolled a line, a page or a passage at a time over the
// whole document (place.go, laying out only the passages in view:
// blocks.go); o opens the document in the reader's own program at the
// place in view (open.go).
//
// It never imports ui: the chat looks the passage up and hands it over as
// Content, and gives the viewer its Keys, Styles and OpenSettings as
// values; the viewer answers with commands, StatusMsg for the status line
// and its own messages (Msg), which the chat hands back to it.
package viewer

// Package render draws an answer's Markdown for the terminal, cheaply
// enough to redraw it on every streamed chunk: a Renderer (glamour, with
// a Palette from the chat's theme) for finished blocks, Tail for the
// block still streaming (a Markdown prefix rendered now and then,
// continued by plain text wrapped incrementally, so words never move
// between frames), reference nodes carried through glamour as same-width
// placeholders (⟦n⟧) and swapped for chips afterwards (Chips, DrawChips),
// CompactSGR to drop the colour codes glamour leaves dead, and Shorten
// and MiddleEllipsis to fit text into cells.
//
// It knows nothing of the chat: ui gives it a Palette and a Chips and
// keeps the answers; render never imports ui.
package render

// Package citations turns a model's streamed answer, in which claims cite
// retrieved passages as [source_k], into text with footnote numbers [1], [2],
// ... assigned in order of first appearance and final the moment they are
// emitted. It imports only the standard library.
//
// The contract is ../shared/DESIGN.md §3 (mirrored in docs/citations.md).
package citations

// Kind names an event of the stream.
type Kind uint8

const (
	// KindText carries answer text, byte for byte, never splitting a rune.
	KindText Kind = iota
	// KindCitation announces a source at its first appearance; it is
	// emitted once per source, immediately before the first KindRef that
	// shows it.
	KindCitation
	// KindRef marks where a reference node [n] is drawn.
	KindRef
	// KindUnknown marks a well-formed id that was never offered.
	KindUnknown
	// KindDone ends the stream and carries the report.
	KindDone
)

// Event is one item of the renumbered stream.
//
// Text is only valid during the call that delivers the event: the engine
// reuses its buffers, so a handler that keeps the bytes must copy them.
type Event struct {
	Kind   Kind
	Text   []byte  // KindText: the text; KindUnknown: the id as written, e.g. "source_99"
	Source int     // KindCitation, KindRef, KindUnknown: k of source_k
	Number int     // KindCitation, KindRef: the display number
	Report *Report // KindDone
}

// Handler receives events in order.
type Handler func(Event)

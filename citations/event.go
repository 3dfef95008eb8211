// Package citations turns a model's streamed answer, in which claims cite
// retrieved passages as [source_k], into text with footnote numbers [1], [2],
// ... assigned in order of first appearance and final the moment they are
// emitted. It imports only the standard library.
//
// The contract is docs/design.md §3; docs/citations.md says how the engine
// keeps it.
package citations

import "strconv"

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
// reuses its buffers (for KindText and KindUnknown alike), so a handler that
// keeps the bytes must copy them. Events from Render own their bytes.
//
// Invariants of a stream of events: text never splits a UTF-8 rune that
// arrived whole; a KindCitation for source k comes once per answer,
// immediately before the first KindRef for k; KindDone comes last, once.
type Event struct {
	Kind   Kind
	Text   []byte  // KindText: the text; KindUnknown: the id as written, e.g. "source_99"
	Source int     // KindCitation, KindRef, KindUnknown: k of source_k
	Number int     // KindCitation, KindRef: the display number
	Report *Report // KindDone
}

// Handler receives events in order.
type Handler func(Event)

// String names the kind as DESIGN.md does: text, citation, ref, unknown, done.
func (k Kind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindCitation:
		return "citation"
	case KindRef:
		return "ref"
	case KindUnknown:
		return "unknown"
	case KindDone:
		return "done"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// String renders the event compactly for tests and logs, e.g. text("a b"),
// citation(source_7=1), ref(source_7=1), unknown("source_99").
func (e Event) String() string {
	switch e.Kind {
	case KindText:
		return "text(" + strconv.Quote(string(e.Text)) + ")"
	case KindCitation, KindRef:
		return e.Kind.String() + "(source_" + strconv.Itoa(e.Source) + "=" + strconv.Itoa(e.Number) + ")"
	case KindUnknown:
		return "unknown(" + strconv.Quote(string(e.Text)) + ")"
	case KindDone:
		if e.Report == nil {
			return "done(<nil>)"
		}
		return "done(" + e.Report.String() + ")"
	}
	return e.Kind.String()
}

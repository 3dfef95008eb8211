package rag

import "github.com/ibid-dev/ibid/citations"

// EventType names an answer event; the names are the wire names used by
// `ibid ask --format ndjson` and `ibid serve` (docs/answers.md).
type EventType string

const (
	EventText     EventType = "text"
	EventCitation EventType = "citation"
	EventRef      EventType = "ref"
	EventUnknown  EventType = "unknown"
	EventDone     EventType = "done"
	EventError    EventType = "error"
)

// Source is a cited (or inferred) passage, as the faces show it.
type Source struct {
	Number     int    `json:"display_number"`
	Alias      string `json:"source_id"` // "source_k" as offered in the prompt
	SegmentID  string `json:"segment_id"`
	DocumentID string `json:"document_id"`
	Title      string `json:"title"`
	Path       string `json:"path,omitempty"`
	URL        string `json:"url,omitempty"`
	PageStart  int    `json:"page_start,omitempty"`
	PageEnd    int    `json:"page_end,omitempty"`
	Section    string `json:"section,omitempty"`
	Snippet    string `json:"snippet"`
	// Inferred is true when the model cited nothing and the reference was
	// attributed by text overlap; every face marks such references.
	Inferred bool `json:"inferred,omitempty"`
}

// Event is one item of an answer stream. Unlike citations.Event it owns its
// bytes, so it may be sent over channels and kept.
type Event struct {
	Type     EventType
	Text     string            // EventText: content; EventUnknown: the raw id; EventError: the message
	Number   int               // EventRef: display number
	Source   *Source           // EventCitation
	Report   *citations.Report // EventDone
	Total    int               // EventDone: total distinct citations
	Order    []string          // EventDone: segment ids in display order
	Inferred bool              // EventRef/EventDone: references were inferred
}

package rag

import (
	"encoding/json"
	"fmt"

	"github.com/ibid-dev/ibid/citations"
	checker "github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
)

// EventType names an answer event; the names are the wire names used by
// `ibid ask --format ndjson` and `ibid serve` (docs/answers.md).
//
// Order: an answer's events end with exactly one EventDone; an EventError,
// when the answer failed or was cut, comes right before it (the support
// events of what was written come before the error).
type EventType string

const (
	EventText     EventType = "text"
	EventCitation EventType = "citation"
	EventRef      EventType = "ref"
	EventUnknown  EventType = "unknown"
	EventSupport  EventType = "support"
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
	// FocusStart and FocusEnd are the place inside the cited segment that
	// supports the citation best: byte offsets [FocusStart, FocusEnd) into
	// its Text. Both 0: none. When set, 0 <= FocusStart < FocusEnd <=
	// len(Text). The rule, first that applies:
	//   - a hierarchical child: the span of the best-ranked child index row
	//     that retrieval found for the segment (exactly the child's text);
	//   - an extractive answer: the sentence the answerer quoted from the
	//     segment, without the white space and list markers around it;
	//   - a model's answer: the sentence of the segment (ingest.Sentences,
	//     never cut inside a code span) sharing with the citing sentence
	//     (the answer's text from the end of the sentence before the
	//     reference up to it) the distinct terms (store/keyword's
	//     Tokenize) of the largest total rarity weight (BM25 idf, when the
	//     library can tell, else 1 each), ties to the earlier sentence;
	//     none when no sentence shares a term.
	// A source cited several times keeps the focus of its first citation,
	// as it keeps its number; a source not offered in this turn keeps the
	// focus an earlier turn gave it; an inferred reference (no citing
	// sentence) has only a child's focus.
	FocusStart int `json:"focus_start,omitempty"`
	FocusEnd   int `json:"focus_end,omitempty"`
	// SegmentHash is the hex SHA-256 of the text of the segment SegmentID
	// names, as it was when cited, so that `ibid verify` can tell later
	// whether the library still holds that text.
	SegmentHash string `json:"segment_hash,omitempty"`
	// PassageID is, when the support check found the citation's support
	// in a neighbour of the segment the model was offered (SegmentID then
	// names the neighbour), the id of the offered segment: the one its
	// alias stands for. "" when they are the same.
	PassageID string `json:"passage_id,omitempty"`
	// Boxes are where the cited segment's text is drawn on its pages
	// (store.Box: points from the page's top-left corner), for a client
	// that shows the page itself; PDFs only, nil otherwise.
	Boxes []store.Box `json:"boxes,omitempty"`
	// Citekey, Authors ("Family, Given" each), Year and DOI are the cited
	// document's bibliography entry (docs/references.md), when it has one;
	// empty otherwise.
	Citekey string   `json:"citekey,omitempty"`
	Authors []string `json:"authors,omitempty"`
	Year    string   `json:"year,omitempty"`
	DOI     string   `json:"doi,omitempty"`
}

// Cited is the segment source_k stands for: the one the model was
// offered (PassageID when the support lies in a neighbour, else
// SegmentID).
func (s Source) Cited() string {
	if s.PassageID != "" {
		return s.PassageID
	}
	return s.SegmentID
}

// Verdict says whether a passage supports the claim that cites it
// (rag/support): Supported, Partial, Unsupported or Unchecked.
type Verdict = checker.Verdict

// The verdicts.
const (
	Supported   = checker.Supported
	Partial     = checker.Partial
	Unsupported = checker.Unsupported
	Unchecked   = checker.Unchecked
)

// Support is the support check of one footnote, the payload of an
// EventSupport: does the passage cited as Number say what the sentence
// that cites it says (docs/support.md)?
//
// Invariants: Number was announced by an earlier citation event of the
// same answer. A footnote gets one support event after the sentence that
// cites it ends, and at most one more, Refined, when a model judged the
// claim; the last one is the footnote's verdict. SegmentID is "" exactly
// when there is no supporting sentence (FocusStart == FocusEnd == 0,
// Sentence ""); otherwise it names a segment of the passage cited (the
// citation's, or a neighbour of it) and [FocusStart, FocusEnd) are byte
// offsets into its text that hold Sentence.
type Support struct {
	Number     int     `json:"display_number"`
	Verdict    Verdict `json:"verdict"`
	SegmentID  string  `json:"segment_id,omitempty"`
	FocusStart int     `json:"focus_start"`
	FocusEnd   int     `json:"focus_end"`
	// Score is the lexical check's, in [0, 1] (1 for a quote).
	Score    float64 `json:"score"`
	Sentence string  `json:"sentence,omitempty"`
	// Claim is the answer's sentence that cites (what was checked).
	Claim string `json:"claim,omitempty"`
	// Refined: a model judged the claim after the lexical check.
	Refined bool `json:"refined"`
	// Quoted: the extractive answerer quoted Sentence for this footnote,
	// so it supports it by construction; nothing was computed.
	Quoted bool `json:"quoted,omitempty"`
}

// Event is one item of an answer stream. Unlike citations.Event it owns its
// bytes, so it may be sent over channels and kept.
type Event struct {
	Type     EventType
	Text     string            // EventText: content; EventUnknown: the raw id; EventError: the message
	Number   int               // EventRef: display number
	Source   *Source           // EventCitation
	Support  *Support          // EventSupport
	Report   *citations.Report // EventDone
	Total    int               // EventDone: total distinct citations
	Order    []string          // EventDone: segment ids in display order
	Inferred bool              // EventRef/EventDone: references were inferred

	// Offset is, for an inferred EventRef (which arrives after the text),
	// the byte offset in the answer's text where its node belongs: the end
	// of the paragraph it was attributed to.
	Offset int
	// Info says, in EventDone, how the answer was made.
	Info *AnswerInfo
}

// AnswerInfo travels in the done event: how the answer was made.
type AnswerInfo struct {
	Model       string `json:"model"`                 // the model's name, or "extractive"
	Extractive  bool   `json:"extractive,omitempty"`  // no model: best-matching sentences
	Inferred    bool   `json:"inferred,omitempty"`    // references attributed by overlap
	Interrupted bool   `json:"interrupted,omitempty"` // cut off (error or cancel); the text so far was kept
	Note        string `json:"note,omitempty"`        // a sentence for the reader, e.g. how to configure a model
	// Verifier names the model that judged the footnotes the lexical
	// support check found uncertain ("" none: lexical only); VerifyNote
	// says, when that model failed, that the verdicts are the lexical
	// check's and why (once per answer).
	Verifier   string `json:"verifier,omitempty"`
	VerifyNote string `json:"verify_note,omitempty"`
}

// wireEvent is the JSON form of an Event: one object with a "type" field,
// as written by `ibid ask --format ndjson` and sent by `ibid serve`.
type wireEvent struct {
	Type EventType `json:"type"`
	// text
	Content *string `json:"content,omitempty"`
	// ref
	DisplayNumber *int `json:"display_number,omitempty"`
	Inferred      bool `json:"inferred,omitempty"`
	Offset        *int `json:"offset,omitempty"`
	// unknown
	Raw *string `json:"raw,omitempty"`
	// done
	TotalCitations *int           `json:"total_citations,omitempty"`
	Order          *[]string      `json:"order,omitempty"`
	Report         map[string]any `json:"report,omitempty"`
	// error
	Message *string `json:"message,omitempty"`
}

// MarshalJSON writes the event's wire form (docs/answers.md).
func (e Event) MarshalJSON() ([]byte, error) {
	w := wireEvent{Type: e.Type}
	switch e.Type {
	case EventText:
		w.Content = &e.Text
	case EventCitation:
		if e.Source == nil {
			return nil, fmt.Errorf("citation event without a source")
		}
		return json.Marshal(struct {
			Type EventType `json:"type"`
			*Source
		}{e.Type, e.Source})
	case EventSupport:
		if e.Support == nil {
			return nil, fmt.Errorf("support event without a verdict")
		}
		return json.Marshal(struct {
			Type EventType `json:"type"`
			*Support
		}{e.Type, e.Support})
	case EventRef:
		w.DisplayNumber = &e.Number
		w.Inferred = e.Inferred
		if e.Inferred {
			w.Offset = &e.Offset
		}
	case EventUnknown:
		w.Raw = &e.Text
	case EventDone:
		w.TotalCitations = &e.Total
		order := e.Order
		if order == nil {
			order = []string{}
		}
		w.Order = &order
		rep := e.Report
		if rep == nil {
			rep = &citations.Report{}
		}
		info := e.Info
		if info == nil {
			info = &AnswerInfo{}
		}
		report, err := mergeJSON(rep, info)
		if err != nil {
			return nil, err
		}
		w.Report = report
	case EventError:
		w.Message = &e.Text
	default:
		return nil, fmt.Errorf("unknown event type %q", e.Type)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the wire form back (conversations are saved with it).
func (e *Event) UnmarshalJSON(b []byte) error {
	var w struct {
		Type           EventType       `json:"type"`
		Content        string          `json:"content"`
		DisplayNumber  int             `json:"display_number"`
		Inferred       bool            `json:"inferred"`
		Offset         int             `json:"offset"`
		Raw            string          `json:"raw"`
		TotalCitations int             `json:"total_citations"`
		Order          []string        `json:"order"`
		Report         json.RawMessage `json:"report"`
		Message        string          `json:"message"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Event{Type: w.Type}
	switch w.Type {
	case EventText:
		e.Text = w.Content
	case EventCitation:
		var s Source
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		e.Source = &s
		e.Number = s.Number
		e.Inferred = s.Inferred
	case EventSupport:
		var s Support
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if !s.Verdict.Valid() {
			return fmt.Errorf("support event with verdict %q", s.Verdict)
		}
		e.Support = &s
		e.Number = s.Number
	case EventRef:
		e.Number, e.Inferred, e.Offset = w.DisplayNumber, w.Inferred, w.Offset
	case EventUnknown:
		e.Text = w.Raw
	case EventDone:
		e.Total, e.Order = w.TotalCitations, w.Order
		if len(w.Report) > 0 {
			var rep citations.Report
			var info AnswerInfo
			if err := json.Unmarshal(w.Report, &rep); err != nil {
				return err
			}
			if err := json.Unmarshal(w.Report, &info); err != nil {
				return err
			}
			e.Report, e.Info = &rep, &info
			e.Inferred = info.Inferred
		}
	case EventError:
		e.Text = w.Message
	default:
		return fmt.Errorf("unknown event type %q", w.Type)
	}
	return nil
}

// mergeJSON returns the union of the JSON objects vs marshal to; a later
// value's field wins.
func mergeJSON(vs ...any) (map[string]any, error) {
	m := map[string]any{}
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

package ui

import (
	"strings"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui/backend"
)

// This file is the transcript's conversation: the turns it shows, how a
// streaming answer's events land in the last one, and which sources the
// sources pane lists. The root calls these; it never touches turns.

// turn is one question and its answer as the transcript shows it.
type turn struct {
	question string
	// doc is the answer, with its footnotes' support checks (verdicts).
	doc answerDoc
	// sources are by display number, in order of first appearance; a
	// source's segment and focus are its support check's supporting
	// sentence once one arrives (support).
	sources     []rag.Source
	streaming   bool
	interrupted bool
	err         string
	note        string
	req         int // request id of the stream that fills it

	// qLines is the question drawn for width qWidth with styles qStyles.
	qLines  []string
	qWidth  int
	qStyles *styles
}

// source returns the turn's source numbered n.
func (t *turn) source(n int, inferred bool) (rag.Source, bool) {
	for _, s := range t.sources {
		if s.Number == n {
			return s, true
		}
	}
	return rag.Source{}, false
}

// support takes a support event's supporting sentence as the source's
// segment and focus, so that the tooltip, the sources pane and the viewer
// show that sentence (its verdict goes to the doc: applyEvent).
func (tu *turn) support(e rag.Event) {
	if e.Type != rag.EventSupport || e.Support == nil {
		return
	}
	sp := e.Support
	for i := range tu.sources {
		if s := &tu.sources[i]; s.Number == sp.Number && sp.SegmentID != "" {
			s.SegmentID, s.FocusStart, s.FocusEnd = sp.SegmentID, sp.FocusStart, sp.FocusEnd
		}
	}
}

// load shows a conversation (after --resume, /new or a library switch),
// with nothing selected and the view at the bottom.
func (t *transcript) load(turns []backend.Turn) {
	t.turns, t.sel, t.selTurn, t.follow = nil, -1, -1, true
	t.redraw(0)
	for _, tr := range turns {
		tu := &turn{question: tr.Question, interrupted: tr.Interrupted, err: tr.Error, sources: tr.Sources}
		for _, e := range tr.Events {
			tu.doc.applyEvent(e)
			tu.support(e)
		}
		tu.doc.finish()
		t.turns = append(t.turns, tu)
	}
}

// empty reports whether there is no turn yet (the first screen shows).
func (t *transcript) empty() bool { return len(t.turns) == 0 }

// begin adds the turn of a question being answered by request req.
func (t *transcript) begin(question string, req int) {
	t.redraw(t.selTurnOf()) // the selected chip is drawn unselected again
	t.turns = append(t.turns, &turn{question: question, streaming: true, req: req})
	t.redraw(len(t.turns) - 1)
	t.sel, t.selTurn, t.follow = -1, -1, true
}

// streaming is the turn being answered, or nil.
func (t *transcript) streaming() *turn {
	if n := len(t.turns); n > 0 && t.turns[n-1].streaming {
		return t.turns[n-1]
	}
	return nil
}

// apply feeds one event of the streaming answer to its turn and returns
// how many bytes of text it carried.
func (t *transcript) apply(e rag.Event) int {
	tu := t.streaming()
	if tu == nil {
		return 0
	}
	switch e.Type {
	case rag.EventText:
		tu.doc.applyEvent(e)
		return len(e.Text)
	case rag.EventRef, rag.EventUnknown:
		tu.doc.applyEvent(e)
	case rag.EventSupport:
		tu.doc.applyEvent(e)
		tu.support(e)
	case rag.EventCitation:
		if e.Source != nil {
			s := *e.Source
			if e.Inferred {
				s.Inferred = true
			}
			tu.sources = append(tu.sources, s)
		}
	case rag.EventError:
		tu.err = e.Text
		if e.Text != "cancelled" {
			tu.interrupted = tu.doc.text.Len() > 0
		}
	case rag.EventDone:
		if e.Inferred {
			tu.note = "the model cited nothing: references were attributed by text overlap (marked as inferred)"
		}
		if e.Info != nil && e.Info.VerifyNote != "" {
			tu.note = strings.TrimSpace(tu.note + " " + e.Info.VerifyNote)
		}
		if e.Info != nil && e.Info.Interrupted {
			tu.interrupted = true
		}
	}
	return 0
}

// end finishes the streaming answer; err is the answer's error, if any.
// It returns the error the turn ended with ("" for none).
func (t *transcript) end(err error) string {
	tu := t.streaming()
	if tu == nil {
		return ""
	}
	tu.streaming = false
	tu.doc.finish()
	t.redraw(len(t.turns) - 1)
	if err != nil && tu.err == "" {
		tu.err = err.Error()
	}
	return tu.err
}

// interrupt ends the streaming answer as cancelled: what arrived stays,
// marked as partial.
func (t *transcript) interrupt() {
	tu := t.streaming()
	if tu == nil {
		return
	}
	tu.streaming, tu.interrupted, tu.err = false, true, "cancelled"
	tu.doc.finish()
	t.redraw(len(t.turns) - 1)
}

// questions are the conversation's questions, oldest first.
func (t *transcript) questions() []string {
	out := make([]string, len(t.turns))
	for i, tu := range t.turns {
		out[i] = tu.question
	}
	return out
}

// sources are what the sources pane lists: the sources of the turn in view
// whose numbers are on screen so far, their verdicts, and the selected
// node's number.
func (t *transcript) sources() ([]rag.Source, rag.Verdicts, int) {
	sel := 0
	if _, nd, ok := t.selected(); ok {
		sel = nd.num
	}
	ti := t.shownTurn()
	if ti < 0 || ti >= len(t.turns) {
		return nil, nil, sel
	}
	tu := t.turns[ti]
	out := make([]rag.Source, 0, len(tu.sources))
	for _, s := range tu.sources {
		if tu.doc.seen[s.Number] {
			out = append(out, s)
		}
	}
	return out, tu.doc.verdicts, sel
}

package rag

import (
	"context"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// verifyLibrary is a library of two documents about bees and one about
// whales.
func verifyLibrary() *ragtest.Library {
	return ragtest.New().
		Add(store.Document{ID: "bees", Title: "Bees", Path: "/papers/bees.md", Format: "markdown"},
			ragtest.Seg("Honey bees forage widely in spring.", 0),
			ragtest.Seg("Varroa mites spread deformed wing virus between colonies.", 0),
			ragtest.Seg("Queens are replaced in summer.", 0)).
		Add(store.Document{ID: "whales", Title: "Whales", Path: "/papers/whales.md", Format: "markdown"},
			ragtest.Seg("Humpback whales sing in winter.", 0))
}

// savedAnswer is an answer citing seg for claim, recording verdict was
// ("" records none) and seg's text then (its hash).
func savedAnswer(n int, src Source, claim, textThen string, was Verdict) []Event {
	src.Number = n
	src.SegmentHash = SegmentHash(textThen)
	evs := []Event{
		{Type: EventCitation, Number: n, Source: &src},
		{Type: EventText, Text: claim + " "},
		{Type: EventRef, Number: n},
		{Type: EventText, Text: ".\n"},
	}
	if was != "" {
		evs = append(evs, Event{Type: EventSupport, Number: n, Support: &Support{Number: n, Verdict: was, Claim: claim}})
	}
	return evs
}

func TestVerify(t *testing.T) {
	mites := Source{SegmentID: "bees:1", DocumentID: "bees", Title: "Bees", Path: "/papers/bees.md"}
	whales := Source{SegmentID: "whales:0", DocumentID: "whales", Title: "Whales", Path: "/papers/whales.md"}
	mitesText := "Varroa mites spread deformed wing virus between colonies."
	for _, c := range []struct {
		name   string
		lib    func() *ragtest.Library
		events []Event
		kind   FindingKind
		msg    string
	}{
		{"unchanged", verifyLibrary, savedAnswer(1, mites, "Varroa mites spread deformed wing virus", mitesText, Supported), FindingOK, "unchanged, supported"},
		{"claim from the text", verifyLibrary, savedAnswer(1, mites, "Varroa mites spread deformed wing virus", mitesText, ""), FindingOK, "supported"},
		{"unsupported", verifyLibrary, savedAnswer(1, whales, "Varroa mites spread deformed wing virus", "Humpback whales sing in winter.", ""), FindingUnsupported, "does not support"},
		{"flipped", verifyLibrary, savedAnswer(1, whales, "Varroa mites spread deformed wing virus", "Humpback whales sing in winter.", Supported), FindingFlipped, "was supported, now unsupported"},
		{"deleted", func() *ragtest.Library {
			l := verifyLibrary()
			l.Remove("bees")
			return l
		}, savedAnswer(1, mites, "Varroa mites spread deformed wing virus", mitesText, Supported), FindingDeleted, "/papers/bees.md is no longer in the library"},
		{"edited", func() *ragtest.Library {
			l := verifyLibrary()
			l.Remove("bees")
			return l.Add(store.Document{ID: "bees2", Title: "Bees", Path: "/papers/bees.md", Format: "markdown"},
				ragtest.Seg("Honey bees forage widely in spring.", 0),
				ragtest.Seg("Varroa mites were not found in the colonies studied.", 0))
		}, savedAnswer(1, mites, "Varroa mites spread deformed wing virus", mitesText, Supported), FindingChanged, "/papers/bees.md changed since the answer"},
		{"moved", func() *ragtest.Library {
			l := verifyLibrary()
			l.Remove("bees")
			return l.Add(store.Document{ID: "bees", Title: "Bees", Path: "/papers/bees.md", Format: "markdown"},
				ragtest.Seg("A new first passage.", 0),
				ragtest.Seg("Honey bees forage widely in spring.", 0),
				ragtest.Seg(mitesText, 0))
		}, savedAnswer(1, mites, "Varroa mites spread deformed wing virus", mitesText, Supported), FindingMoved, "now segment bees:2"},
	} {
		fs, err := Verify(context.Background(), c.lib(), []SavedAnswer{{Label: "answer 1", Events: c.events}}, VerifyOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(fs) != 1 {
			t.Fatalf("%s: %d findings", c.name, len(fs))
		}
		f := fs[0]
		if f.Kind != c.kind || !strings.Contains(f.Message, c.msg) || f.Number != 1 || f.Answer != "answer 1" {
			t.Errorf("%s: %+v", c.name, f)
		}
	}
}

func TestReadAnswers(t *testing.T) {
	in := `{"type":"citation","display_number":1,"source_id":"source_1","segment_id":"bees:1","document_id":"bees","title":"Bees","snippet":""}
{"type":"text","content":"Mites spread viruses "}
{"type":"ref","display_number":1}
{"type":"done","total_citations":1,"order":["bees:1"],"report":{}}

{"type":"text","content":"Second answer."}
{"type":"done","total_citations":0,"order":[],"report":{}}
`
	as, err := ReadAnswers(strings.NewReader(in))
	if err != nil || len(as) != 2 || len(as[0].Events) != 3 || as[1].Label != "answer 2" {
		t.Fatalf("%d answers, %v", len(as), err)
	}
	if _, err := ReadAnswers(strings.NewReader("{\"type\":\"text\",\"content\":\"a\"}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
	if _, err := ReadAnswers(strings.NewReader("\n")); err == nil {
		t.Error("an empty file was read as answers")
	}
}

// countingLibrary counts the documents whose segments are read.
type countingLibrary struct {
	*ragtest.Library
	reads map[string]int
}

func (l *countingLibrary) Segments(ctx context.Context, docID string) ([]store.Segment, error) {
	l.reads[docID]++
	return l.Library.Segments(ctx, docID)
}

// Footnotes that cite one document read its passages once, however many
// there are, in one answer or several, and whether the passage is where
// it was or moved.
func TestVerifyReadsADocumentOnce(t *testing.T) {
	mitesText := "Varroa mites spread deformed wing virus between colonies."
	lib := verifyLibrary()
	lib.Remove("bees")
	lib.Add(store.Document{ID: "bees", Title: "Bees", Path: "/papers/bees.md", Format: "markdown"},
		ragtest.Seg("A new first passage.", 0),
		ragtest.Seg("Honey bees forage widely in spring.", 0),
		ragtest.Seg(mitesText, 0))
	cl := &countingLibrary{Library: lib, reads: map[string]int{}}
	moved := Source{SegmentID: "bees:1", DocumentID: "bees", Title: "Bees", Path: "/papers/bees.md"}
	here := Source{SegmentID: "bees:2", DocumentID: "bees", Title: "Bees", Path: "/papers/bees.md"}
	var answers []SavedAnswer
	for i := range 3 {
		evs := append(savedAnswer(1, moved, "Varroa mites spread deformed wing virus", mitesText, Supported),
			savedAnswer(2, here, "Varroa mites spread deformed wing virus", mitesText, Supported)...)
		answers = append(answers, SavedAnswer{Label: "answer " + string(rune('1'+i)), Events: evs})
	}
	fs, err := Verify(context.Background(), cl, answers, VerifyOptions{})
	if err != nil || len(fs) != 6 {
		t.Fatalf("%d findings, %v", len(fs), err)
	}
	for _, f := range fs {
		want := FindingOK
		if f.Number == 1 {
			want = FindingMoved
		}
		if f.Kind != want {
			t.Errorf("%s [%d]: %+v", f.Answer, f.Number, f)
		}
	}
	if cl.reads["bees"] != 1 {
		t.Errorf("the document's passages were read %d times, want once", cl.reads["bees"])
	}
}

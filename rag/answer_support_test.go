package rag

import (
	"context"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// focusText is the span of the cited segment that src's focus marks, or
// "" when it has none. It fails the test when the focus does not lie in
// the segment's text.
func focusText(t *testing.T, r Retriever, src *Source) string {
	t.Helper()
	if src.FocusStart == 0 && src.FocusEnd == 0 {
		return ""
	}
	seg, _, err := r.Segment(context.Background(), src.SegmentID)
	if err != nil {
		t.Fatal(err)
	}
	if src.FocusStart < 0 || src.FocusStart >= src.FocusEnd || src.FocusEnd > len(seg.Text) {
		t.Fatalf("focus [%d, %d) outside %s's %d bytes", src.FocusStart, src.FocusEnd, src.SegmentID, len(seg.Text))
	}
	return seg.Text[src.FocusStart:src.FocusEnd]
}

// citationsOf are the sources of evs' citation events, by display number,
// each pointing where its footnote's first support event put it (the
// segment and the focus the faces show): a citation is sent the moment its
// number shows, with the checker's focus only when its passage was
// analysed by then; the support event, after the sentence, always has it.
func citationsOf(t *testing.T, evs []Event) map[int]*Source {
	t.Helper()
	out := map[int]*Source{}
	checked := map[int]bool{}
	for _, e := range evs {
		switch {
		case e.Type == EventCitation:
			if out[e.Number] != nil {
				t.Errorf("number %d announced twice", e.Number)
			}
			src := *e.Source
			out[e.Number] = &src
		case e.Type == EventSupport && !checked[e.Number]:
			checked[e.Number] = true
			if src, sp := out[e.Number], e.Support; src != nil && sp.SegmentID != "" {
				src.SegmentID, src.FocusStart, src.FocusEnd = sp.SegmentID, sp.FocusStart, sp.FocusEnd
			}
		}
	}
	return out
}

// TestExtractiveFocusIsTheQuotedSentence: without a model, each citation's
// focus is exactly the sentence quoted for it (its first quote, when a
// passage gives two), even when that sentence is not the segment's first,
// sits in a list item or is wrapped over lines.
func TestExtractiveFocusIsTheQuotedSentence(t *testing.T) {
	lib := ragtest.Sample().Add(store.Document{ID: "d3", Title: "Apiary Notes", Format: "markdown"},
		ragtest.Seg("Notes from the apiary.\n\n- Varroa mites spread deformed wing virus\n  between colonies in winter.\n- Queens are replaced in spring.", 0))
	p := NewPipeline(statsLibrary{lib}, ExtractiveAnswerer(), PipelineOptions{})
	for _, q := range []string{
		"How often do beekeepers treat hives against mites?",
		"Which virus do varroa mites spread between colonies in winter?",
	} {
		evs, err := collect(t, p, NewConversation("t"), q)
		if err != nil {
			t.Fatal(err)
		}
		checkOrder(t, evs)
		got := plain(evs)
		cites := citationsOf(t, evs)
		if len(cites) == 0 || strings.HasPrefix(got, DeclineText) {
			t.Fatalf("%q: no quote: %q", q, got)
		}
		for n, src := range cites {
			// The answer quotes the sentence right before the first [n].
			before := got[:strings.Index(got, RefText(n))]
			if i := strings.LastIndex(before, "] "); i >= 0 {
				before = before[i+2:]
			}
			quoted := strings.TrimSpace(before[strings.LastIndex(before, "\n")+1:])
			focus := focusText(t, lib, src)
			if strings.Join(strings.Fields(focus), " ") != quoted {
				t.Errorf("%q: [%d] quotes %q, focus %q", q, n, quoted, focus)
			}
		}
	}
	// The second sentence of d1:4, and the wrapped list item of d3:0.
	evs, _ := collect(t, p, NewConversation("t"), "How often do beekeepers treat hives?")
	if src := citationsOf(t, evs)[1]; focusText(t, lib, src) != "Beekeepers treat hives twice a year." {
		t.Errorf("beekeepers: focus %q in %s", focusText(t, lib, src), src.SegmentID)
	}
	evs, _ = collect(t, p, NewConversation("t"), "Which virus do varroa mites spread between colonies?")
	if src := citationsOf(t, evs)[1]; focusText(t, lib, src) != "Varroa mites spread deformed wing virus\n  between colonies in winter." {
		t.Errorf("varroa: focus %q in %s", focusText(t, lib, src), src.SegmentID)
	}
	// Exactly the quoted sentence, not the one with the most terms in
	// common with it: the question before it holds the same terms.
	lib.Add(store.Document{ID: "d4", Title: "Treatment FAQ", Format: "markdown"},
		ragtest.Seg("Is oxalic acid given to hives against varroa in winter? Oxalic acid is given to hives against varroa in winter.", 0))
	evs, _ = collect(t, p, NewConversation("t"), "When is oxalic acid given against varroa?")
	if src := citationsOf(t, evs)[1]; focusText(t, lib, src) != "Oxalic acid is given to hives against varroa in winter." {
		t.Errorf("oxalic: %q: focus %q in %s", plain(evs), focusText(t, lib, src), src.SegmentID)
	}
}

// TestModelFocusOnTheSupportingSentence: over a real streaming request, a
// citation whose sentence matches the second sentence of its passage is
// focused on it; a citation sharing no term with its passage has none; a
// source cited again, by a sentence that matches its other sentence,
// keeps its first focus (in the event, the turn and the next turn of a
// conversation numbered across turns).
func TestModelFocusOnTheSupportingSentence(t *testing.T) {
	lib := ragtest.Sample()
	answer := "Colonies are treated twice a year by beekeepers [source_1]. Nothing here matches [source_2].\n\n" +
		"Mites spread viruses that make colonies collapse [source_1]."
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(answer, 3)},
		llmtest.Reply{Chunks: llmtest.Split("Colony collapse comes from mites and viruses [source_1].", 4)})
	defer srv.Close()
	p := NewPipeline(lib, ModelAnswerer(connect(t, srv)), PipelineOptions{Numbering: NumberingConversation})
	conv := NewConversation("t")
	evs, err := collect(t, p, conv, "How often do beekeepers treat hives?")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	cites := citationsOf(t, evs)
	if len(cites) != 2 || cites[1].SegmentID != "d1:4" || cites[2].SegmentID != "d1:0" {
		t.Fatalf("citations %+v %+v", cites[1], cites[2])
	}
	const second = "Beekeepers treat hives twice a year."
	if got := focusText(t, lib, cites[1]); got != second {
		t.Errorf("[1] focus %q, want %q", got, second)
	}
	if got := focusText(t, lib, cites[2]); got != "" {
		t.Errorf("[2] shares no term with its citing sentence, yet focus %q", got)
	}
	if s := conv.Turns[0].Sources[0]; s.FocusStart != cites[1].FocusStart || s.FocusEnd != cites[1].FocusEnd {
		t.Errorf("the turn keeps focus [%d, %d)", s.FocusStart, s.FocusEnd)
	}
	// The next turn cites d1:4 again, by its first sentence's words: its
	// number and its focus stay.
	evs, err = collect(t, p, conv, "Why do bee colonies collapse? Do beekeepers treat hives?")
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); got != "Colony collapse comes from mites and viruses [1]." {
		t.Fatalf("second answer %q", got)
	}
	for _, e := range evs {
		if e.Type == EventCitation && focusText(t, lib, e.Source) != second {
			t.Errorf("re-cited source announced with focus %q", focusText(t, lib, e.Source))
		}
	}
	for _, s := range conv.Turns[1].Sources {
		if s.SegmentID == "d1:4" && focusText(t, lib, &s) != second {
			t.Errorf("second turn's source focus %q", focusText(t, lib, &s))
		}
	}
}

// TestModelFocusWeighsRarity: through a library that gives term statistics,
// a rare shared term outweighs a common one; without them, the tie goes to
// the earlier sentence.
func TestModelFocusWeighsRarity(t *testing.T) {
	lib := ragtest.New().
		Add(store.Document{ID: "w", Title: "Field Notes"}, ragtest.Seg("Bees forage widely in spring. Varroa infests the brood cells.", 0))
	for _, id := range []string{"x", "y", "z"} {
		lib.Add(store.Document{ID: id, Title: "Other " + id}, ragtest.Seg("Bees visit flowers.", 0))
	}
	for _, c := range []struct {
		name string
		r    Retriever
		want string
	}{
		{"weighted", statsLibrary{lib}, "Varroa infests the brood cells."},
		{"unweighted", lib, "Bees forage widely in spring."},
	} {
		srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split("Bees meet varroa [source_1].", 5)})
		evs, err := collect(t, NewPipeline(c.r, ModelAnswerer(connect(t, srv)), PipelineOptions{}), NewConversation("t"), "bees varroa spring")
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		src := citationsOf(t, evs)[1]
		if src == nil || src.SegmentID != "w:0" {
			t.Fatalf("%s: cited %+v", c.name, src)
		}
		if got := focusText(t, lib, src); got != c.want {
			t.Errorf("%s: focus %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCheckerFocusBeatsChild: a parent whose child matched the question
// is focused on the sentence that supports the citing sentence, not on the
// child, when the support check finds one; its neighbour parent, without a
// child hit, gets the sentence focus too.
func TestCheckerFocusBeatsChild(t *testing.T) {
	doc, segs := hierDoc()
	r := &focusRetriever{doc: doc, segs: segs, passages: []retrieve.Passage{
		{Segment: segs[0], Document: doc, Context: segs[:1], Rank: 0, Hits: []retrieve.Hit{{Segment: segs[3], Rank: 0}}},
		{Segment: segs[1], Document: doc, Context: segs[1:2], Rank: 1},
	}}
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(
		"In summer foragers bring water that evaporates on the comb [source_1]. Colonies evict drones in autumn [source_2].", 6)})
	defer srv.Close()
	evs, err := collect(t, NewPipeline(r, ModelAnswerer(connect(t, srv)), PipelineOptions{}), NewConversation("t"), "How is the nest cooled?")
	if err != nil {
		t.Fatal(err)
	}
	cites := citationsOf(t, evs)
	if got, want := focusText(t, r, cites[1]), "In summer, foragers bring water that evaporates on the comb and cools it."; got != want {
		t.Errorf("[1] focus %q, want %q (not the child %q)", got, want, segs[3].Text)
	}
	if got, want := focusText(t, r, cites[2]), "Their role is reproductive, and colonies evict them in autumn."; got != want {
		t.Errorf("[2] focus %q, want %q", got, want)
	}
}

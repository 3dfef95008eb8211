package rag

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag/extractive"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// statsLibrary is a test library that gives term statistics, as ibid's
// libraries do.
type statsLibrary struct{ *ragtest.Library }

func (l statsLibrary) DocFreq(ctx context.Context, terms []string) ([]int, int, error) {
	df := make([]int, len(terms))
	n := 0
	docs, _ := l.Documents(ctx)
	for _, d := range docs {
		segs, _ := l.Segments(ctx, d.ID)
		for _, s := range segs {
			n++
			have := extractive.TermSet(s.Text)
			for i, t := range terms {
				if have[t] {
					df[i]++
				}
			}
		}
	}
	return df, n, nil
}

func TestExtractiveDeclines(t *testing.T) {
	var lines []string
	p := NewPipeline(statsLibrary{newFakeLibrary()}, ExtractiveAnswerer(), PipelineOptions{Explain: func(s string) { lines = append(lines, s) }})
	// "bees" matches a passage, "mercury" and "boiling" nothing: the
	// library does not answer this.
	evs, err := collect(t, p, NewConversation("t"), "What is the boiling point of mercury for bees?")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	got := plain(evs)
	if !strings.HasPrefix(got, DeclineText+" in “Bees and Flowers” (p") || strings.Count(got, "[") != 2 {
		t.Fatalf("decline = %q", got)
	}
	if strings.Contains(got, "pollinate") || strings.Contains(got, "mites") {
		t.Errorf("a decline quotes a passage as if it answered: %q", got)
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "mercuri") || !strings.HasPrefix(lines[1], "declined: ") {
		t.Errorf("explain = %q", lines)
	}

	lines = nil
	evs, _ = collect(t, p, NewConversation("t"), "How do honey bees pollinate almond orchards?")
	if got := plain(evs); strings.HasPrefix(got, DeclineText) {
		t.Fatalf("declined an answerable question: %q", got)
	}
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "question: ") || !strings.HasPrefix(lines[1], "answered: ") ||
		!strings.HasPrefix(lines[2], "[source_1] score ") || !strings.Contains(lines[2], "almond") {
		t.Errorf("explain = %q", lines)
	}
}

func TestExtractiveWholeSentences(t *testing.T) {
	l := newFakeLibrary()
	l.Add(store.Document{ID: "d3", Title: "Summaries", Format: "markdown"},
		ragtest.Seg("Liu et al. (2019) use ROUGE to score summaries of long papers. Fig. 3 shows that e.g. longer summaries score 98.5% of the time. "+
			"The citation recall of summaries is measured with `ibid eval. --strict` on held-out papers.", 0))
	p := NewPipeline(statsLibrary{l}, ExtractiveAnswerer(), PipelineOptions{})
	evs, _ := collect(t, p, NewConversation("t"), "Which score do Liu et al. use for summaries of long papers?")
	got := plain(evs)
	if !strings.Contains(got, "Liu et al. (2019) use ROUGE to score summaries of long papers. [") {
		t.Errorf("not a whole sentence: %q", got)
	}
	evs, _ = collect(t, p, NewConversation("t"), "How is citation recall of summaries measured on held-out papers?")
	got = plain(evs)
	if !strings.Contains(got, "`ibid eval. --strict` on held-out papers. [") {
		t.Errorf("sentence cut inside a code span: %q", got)
	}
}

func TestExtractiveNoEcho(t *testing.T) {
	l := newFakeLibrary()
	// Three documents: in one, the three paragraphs would be one merged
	// passage, and only its best hit's text is quoted.
	l.Add(store.Document{ID: "d4", Title: "Tips", Format: "markdown"},
		ragtest.Seg("Ask: what happens when the model cites a source it was not given?", 0))
	l.Add(store.Document{ID: "d5", Title: "More tips", Format: "markdown"},
		ragtest.Seg(`Questions that work well: "how are numbers assigned?", "what happens when the model cites a source it was not given?".`, 0))
	l.Add(store.Document{ID: "d6", Title: "Citations", Format: "markdown"},
		ragtest.Seg("When the model cites a source it was not given, the id is unknown: it gets no number and is listed in the report.", 0))
	p := NewPipeline(statsLibrary{l}, ExtractiveAnswerer(), PipelineOptions{})
	evs, _ := collect(t, p, NewConversation("t"), "What happens when the model cites a source it was not given?")
	got := plain(evs)
	if !strings.HasPrefix(got, "When the model cites a source it was not given, the id is unknown") {
		t.Errorf("the answer leads with a sentence that repeats the question: %q", got)
	}
	if strings.Contains(got, "Ask: what happens") || strings.Contains(got, "Questions that work well") {
		t.Errorf("a sentence that merely echoes the question was quoted: %q", got)
	}
}

// rawToken is a citation token left as text ("[source_2]", "【Source 3"):
// what a reader sees when a quote's open code span swallows the ids after it.
var rawToken = regexp.MustCompile(`(?i)[\[［【]\s*source[_ ]\d{1,6}\s*[\]］】]`)

// FuzzExtractiveCodeSpans: whatever backticks, fences and citation-like
// tokens a document holds, no quote leaves a code span open, so every
// [source_k] the answerer writes after a quote becomes a footnote: the
// answer's text never shows a citation token, and no document's token
// becomes a citation.
func FuzzExtractiveCodeSpans(f *testing.F) {
	f.Add("Use `ibid add [source_2] docs/` to add. Then ask. The `x. y` rule [source_1] holds.", int64(1))
	f.Add("```\n[source_3]\n```\nText with `open. backtick and [Source 4] after it. More text here.", int64(2))
	f.Fuzz(func(t *testing.T, text string, seed int64) {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		words := strings.Fields(text)
		if len(words) == 0 {
			return
		}
		l := newFakeLibrary()
		l.Add(store.Document{ID: "dz", Title: "Fuzz", Format: "markdown"}, ragtest.Seg(text, 0))
		q := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		p := NewPipeline(statsLibrary{l}, ExtractiveAnswerer(), PipelineOptions{})
		evs, _ := collect(t, p, NewConversation("t"), q)
		var body strings.Builder
		for _, e := range evs {
			if e.Type == EventText {
				body.WriteString(e.Text)
			}
			if e.Type == EventUnknown {
				t.Fatalf("a document's token became a citation: %+v", e)
			}
		}
		if rawToken.MatchString(body.String()) {
			t.Fatalf("answer text carries a raw citation token: %q", body.String())
		}
	})
}

// TestExtractiveCitesTheNeighbour: a sentence quoted from a hit's
// neighbour is cited as that neighbour, with its own page and the quoted
// sentence as its focus, under an alias of its own.
func TestExtractiveCitesTheNeighbour(t *testing.T) {
	lib := ragtest.New().Add(store.Document{ID: "p", Title: "Paper", Format: store.FormatPDF},
		ragtest.Seg("Human evaluation of the answers was run online.", 14, "E Human Evaluation"),
		ragtest.Seg("The average pay to workers is 20 USD per hour.", 15, "E Human Evaluation"))
	p := NewPipeline(statsLibrary{lib}, ExtractiveAnswerer(), PipelineOptions{})
	conv := NewConversation("t")
	evs, err := collect(t, p, conv, "How much did the human evaluation pay?")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	got := plain(evs)
	if !strings.Contains(got, "The average pay to workers is 20 USD per hour.") {
		t.Fatalf("answer = %q", got)
	}
	var src *Source
	for _, s := range conv.Turns[0].Sources {
		if s.SegmentID == "p:1" {
			src = &s
		}
	}
	if src == nil {
		t.Fatalf("the neighbour is not cited: %+v", conv.Turns[0].Sources)
	}
	seg := "The average pay to workers is 20 USD per hour."
	if src.PageStart != 15 || src.FocusStart != 0 || src.FocusEnd != len(seg) || conv.Segments[conv.Aliases["p:1"]-1] != "p:1" {
		t.Errorf("neighbour's source: %+v", *src)
	}
}

// TestExtractiveFollowUp: a follow-up is searched and answered with what
// it carries over from the question before it, and --explain says what
// was carried.
func TestExtractiveFollowUp(t *testing.T) {
	lib := ragtest.New().Add(store.Document{ID: "m", Title: "Metrics"},
		ragtest.Seg("Citation recall is 1 if and only if the citations entail the statement.", 5, "3 Citation recall"),
		ragtest.Seg("Fluency is measured with MAUVE against human answers.", 5, "3.1 Fluency"),
		ragtest.Seg("Citation precision is 1 if the citation supports the statement.", 15, "E.3 Citation precision"),
		ragtest.Seg("Other precision figures of the retrieval are in Table 4.", 16, "F Retrieval"))
	var lines []string
	p := NewPipeline(statsLibrary{lib}, ExtractiveAnswerer(), PipelineOptions{Explain: func(s string) { lines = append(lines, s) }})
	conv := NewConversation("t")
	if _, err := collect(t, p, conv, "How is citation recall computed?"); err != nil {
		t.Fatal(err)
	}
	lines = nil
	evs, err := collect(t, p, conv, "And how is precision computed?")
	if err != nil {
		t.Fatal(err)
	}
	if got := plain(evs); !strings.HasPrefix(got, "Citation precision is 1 if the citation supports the statement.") {
		t.Errorf("follow-up answer = %q", got)
	}
	if qs := lib.Queries(); qs[len(qs)-1] != "And how is precision computed? citation recall" {
		t.Errorf("searched for %q", qs[len(qs)-1])
	}
	if len(lines) == 0 || lines[0] != `follow-up: carried over "citation recall" from "How is citation recall computed?"` {
		t.Errorf("explain = %q", lines)
	}
}

// TestExtractiveDeclinePages: a decline names each closest passage with
// the pages its source shows.
func TestExtractiveDeclinePages(t *testing.T) {
	lib := ragtest.New().Add(store.Document{ID: "q", Title: "Quarry", Format: store.FormatPDF},
		ragtest.Seg("Granite is cut in summer.", 22),
		ragtest.Seg("Marble blocks travel by rail to the coast.", 23),
		ragtest.Seg("The quarry closed in winter.", 24))
	p := NewPipeline(statsLibrary{lib}, ExtractiveAnswerer(), PipelineOptions{})
	conv := NewConversation("t")
	evs, _ := collect(t, p, conv, "What is the boiling point of mercury in marble?")
	got := plain(evs)
	if !strings.HasPrefix(got, DeclineText) {
		t.Fatalf("not declined: %q", got)
	}
	for _, s := range conv.Turns[0].Sources {
		if want := "(" + Pages(s.PageStart, s.PageEnd) + ") " + RefText(s.Number); !strings.Contains(got, want) {
			t.Errorf("the decline names %s's pages otherwise than its source (%q): %q", s.SegmentID, want, got)
		}
	}
}

// TestExtractiveQuotesCommand: asked how to do something that a command
// in a fenced block does, the answer quotes the sentence that introduces
// it, cites it, and writes the block as the document does, whole; the
// question's "back up" finds the section titled "Backups".
func TestExtractiveQuotesCommand(t *testing.T) {
	lib := ragtest.New().Add(store.Document{ID: "pg", Title: "PostgreSQL"},
		ragtest.Seg("A lost connection is tried again once; a write is never retried behind your back.", 0, "Connections"),
		ragtest.Seg("## Backups\n\nEverything ibid knows is in these tables, so the usual tools work:\n\n"+
			"```\npg_dump --format=custom -t 'rag_*' --file=ibid.dump 'postgres://…'   # only ibid's tables\n```\n\n"+
			"Restore into a database where pgvector is installed.", 0, "Backups"))
	p := NewPipeline(statsLibrary{lib}, ExtractiveAnswerer(), PipelineOptions{})
	evs, err := collect(t, p, NewConversation("t"), "How do I back up only ibid's tables?")
	if err != nil {
		t.Fatal(err)
	}
	checkOrder(t, evs)
	want := "Everything ibid knows is in these tables, so the usual tools work: [1]\n\n" +
		"```\npg_dump --format=custom -t 'rag_*' --file=ibid.dump 'postgres://…'   # only ibid's tables\n```"
	if got := plain(evs); !strings.HasPrefix(got, want) {
		t.Errorf("answer = %q, want it to open %q", got, want)
	}
	if qs := lib.Queries(); !strings.HasSuffix(qs[len(qs)-1], " backup") {
		t.Errorf("searched for %q, not for backup too", qs[len(qs)-1])
	}
}

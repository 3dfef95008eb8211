package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

func TestUnits(t *testing.T) {
	text := "ELI5 Sphere (899M) Why/How/What\n\n" +
		"says Soohyoun who wrote it. The average pay to workers is 20 USD per hour.\n\n" +
		"Our benchmark measures the following three dimensions of system responses:\n\n" +
		"- Fluency: whether the text is fluent.\n\n" +
		"Table 13: Retrieval results for ASQA (EM recall).\n\n" +
		"R@1 | R@3 | R@5 | R@20 | R@100 DPR | 29.6 | 44.5 | 51.5 | 64.6 | 74.1\n\n" +
		"\\documentclass [ lang = en ]{ elegantpaper }\n\n" +
		"| key | action |\n|---|---|\n| `enter` | open the selected source |\n\n" +
		"[1] Carlstrom, Charles T and Timothy S Fuerst, Agency Costs, The American Economic Review, 1997, pp. 893–910.\n"
	us := units(text, "", false)
	find := func(prefix string) *cand {
		for i := range us {
			if strings.HasPrefix(us[i].text, prefix) {
				return &us[i]
			}
		}
		t.Fatalf("no unit starts %q: %+v", prefix, us)
		return nil
	}
	if c := find("ELI5 Sphere"); !c.table || !c.bare {
		t.Errorf("a bar-less table row is not one: %+v", *c)
	}
	if c := find("The average pay"); c.fragment {
		t.Errorf("a whole sentence is a fragment: %+v", *c)
	}
	if us := units("says Soohyoun who wrote it. The average pay is 20 USD.", "", false); len(us) != 2 || !us[0].fragment || us[1].fragment {
		t.Errorf("a sentence cut at the segment's start is no fragment: %+v", us)
	}
	if c := find("Our benchmark measures"); !c.leadIn || c.fragment || !strings.HasSuffix(c.text, "responses.") {
		t.Errorf("a lead-in: %+v", *c)
	}
	if c := find("Table 13:"); !c.caption {
		t.Errorf("a caption: %+v", *c)
	}
	if c := find("R@1 |"); !c.table || c.bare {
		t.Errorf("a PDF table line: %+v", *c)
	}
	if c := find(`\documentclass`); !c.code {
		t.Errorf("code: %+v", *c)
	}
	if c := find("| key | action |"); !c.table || c.row != "| `enter` | open the selected source |" ||
		c.text != "| key | action |\n|---|---|\n| `enter` | open the selected source |" {
		t.Errorf("a Markdown table row is quoted with its header: %+v", *c)
	}
	pdf := units("Table 14: Retrieval results for QAMPARI (recall-5).\n\nR@1 · R@3 · R@5\n\nDPR · 6.7 · 13.5 · 17.6\n\nOracle · 44.3 · 58.7 · 65.6", "", false)
	if len(pdf) != 3 || !pdf[0].caption || !pdf[2].table || pdf[2].row != "Oracle · 44.3 · 58.7 · 65.6" ||
		pdf[2].text != "Table 14: Retrieval results for QAMPARI (recall-5).\n\n|  | R@1 | R@3 | R@5 |\n|---|---|---|---|\n| Oracle | 44.3 | 58.7 | 65.6 |" {
		t.Errorf("a PDF table's row is not quoted as a table: %+v", pdf)
	}
	if c := find("[1] Carlstrom"); !c.refs {
		t.Errorf("a reference entry: %+v", *c)
	}
	// The segment before, when the window holds it, tells a cut sentence
	// from one that starts in lower case.
	if us := units("ibid reads PDFs up to 256 MB.", "The size limits.", true); len(us) != 1 || us[0].fragment {
		t.Errorf("a sentence after a full stop is a fragment: %+v", us)
	}
	if us := units("says Soohyoun who wrote it.", "He came late and", true); len(us) != 1 || !us[0].fragment {
		t.Errorf("a sentence cut mid-way is no fragment: %+v", us)
	}
}

func TestPromptSegment(t *testing.T) {
	if !promptSegment("Instruction: Write an accurate answer.\n\nQuestion: Who won?\n\nDocument [1](Title: Wins): text\n\nAnswer:") {
		t.Error("a printed prompt is not one")
	}
	if !promptSegment("Text of an example.\n\nTable 24: Prompts for SUMM.") {
		t.Error("a segment captioned as prompts is not one")
	}
	if promptSegment("We use MAUVE to evaluate fluency.\n\nFigure 1: Scatter Plot Example") {
		t.Error("a figure of an example is a prompt")
	}
}

// passage makes a one-segment passage for the answerer's tests.
func passage(k int, doc store.Document, segs ...store.Segment) Passage {
	for i := range segs {
		segs[i].DocumentID = doc.ID
		segs[i].Index = i
		segs[i].ID = doc.ID + ":" + string(rune('0'+i))
	}
	var texts []string
	for _, s := range segs {
		texts = append(texts, s.Text)
	}
	return Passage{K: k, Segment: segs[0], Document: doc, Text: strings.Join(texts, "\n\n"), Window: segs}
}

// TestAnswerShapes: the answer quotes the sentence of the shape the
// question asks for, with the sentences it needs, and cites the segment
// that holds it.
func TestAnswerShapes(t *testing.T) {
	doc := store.Document{ID: "d", Title: "A Benchmark"}
	p := passage(1, doc,
		store.Segment{Text: "The benchmark was built in 2023. We collect three datasets that cover different questions: ASQA, QAMPARI, and ELI5. " +
			"Each dataset was used by earlier benchmarks.", Section: []string{"2 Datasets"}},
		store.Segment{Text: "Citation recall matters most. We calculate the citation recall of each statement (0 or 1) and average over all statements. " +
			"Its recall is 1 if and only if a citation entails it.", Section: []string{"3 Metrics"}},
		store.Segment{Text: "Annotators were recruited online. The average pay to workers is 20 USD per hour.", Section: []string{"E Human Evaluation"}},
	)
	for _, c := range []struct {
		q, want string
		seg     string
	}{
		{"What datasets does the benchmark use?", "We collect three datasets", "d:0"},
		{"How is citation recall computed?", "We calculate the citation recall", "d:1"},
		{"How much were the annotators paid?", "The average pay to workers is 20 USD per hour.", "d:2"},
	} {
		res, err := Answer(context.Background(), Query{Question: c.q, Passages: []Passage{p}})
		if err != nil || res.Declined || len(res.Quotes) == 0 {
			t.Fatalf("%q: %+v, %v", c.q, res, err)
		}
		q := res.Quotes[0]
		if !strings.HasPrefix(q.Text, c.want) || q.Segment.ID != c.seg || q.K != 1 {
			t.Errorf("%q: first quote %q from %s (k %d), want %q from %s", c.q, q.Text, q.Segment.ID, q.K, c.want, c.seg)
		}
		if got := q.Segment.Text[q.Span.Start:q.Span.End]; !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: span %q", c.q, got)
		}
	}
	// A definition goes on into the sentence that finishes it.
	res, _ := Answer(context.Background(), Query{Question: "How is citation recall computed?", Passages: []Passage{p}})
	if !strings.Contains(res.Quotes[0].Text, "if and only if") {
		t.Errorf("the definition stops short: %q", res.Quotes[0].Text)
	}
}

// TestAnswerNeverQuotesFragments: a passage of fragments, captions and
// code gives no quote of them.
func TestAnswerNeverQuotesFragments(t *testing.T) {
	doc := store.Document{ID: "f", Title: "Fragments"}
	p := passage(1, doc, store.Segment{Text: "says citation recall is good\n\nCitation recall scores\n\n\\newcommand{\\recall}{citation recall}"})
	res, err := Answer(context.Background(), Query{Question: "Is citation recall good?", Passages: []Passage{p}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range res.Quotes {
		if strings.HasPrefix(q.Text, "says") || q.Text == "Citation recall scores" {
			t.Errorf("quoted a fragment: %q", q.Text)
		}
	}
}

// TestMeasuredAndAsides: a number question prefers a number of what it
// measures to one of something else, and a footnote's text, its mark
// glued to its first word, weighs less than the same words in the body.
func TestMeasuredAndAsides(t *testing.T) {
	qu := newQuestion("How long can a citation token be?", nil)
	unit := func(text string, section ...string) *cand {
		us := units(text, "", false)
		if len(us) != 1 {
			t.Fatalf("units(%q) = %+v", text, us)
		}
		c := &us[0]
		c.seg = &store.Segment{Text: text, Section: section}
		c.doc = &store.Document{ID: "d"}
		c.toks = analyse(c.text)
		c.terms = map[string]bool{}
		for _, tok := range c.toks {
			c.terms[tok] = true
		}
		return c
	}
	of, _ := shape(qu, unit("A whole token is at most 64 bytes.", "Citation tokens"))
	other, _ := shape(qu, unit("A page is at most 64 lines.", "Pages"))
	if of <= other {
		t.Errorf("a number of what is measured ×%.2f, of something else ×%.2f: want it above", of, other)
	}
	qu = newQuestion("Which engine compiles Chinese text?", nil)
	aside, _ := plainness(qu, unit("1with the ctex package, XeLaTeX compiles the Chinese text."), nil)
	body, _ := plainness(qu, unit("With the ctex package, XeLaTeX compiles the Chinese text."), nil)
	if aside >= body {
		t.Errorf("a footnote's text ×%.2f, the body's ×%.2f: want it below", aside, body)
	}
}

// A run-in heading set in bold is a lead-in (the splitter leaves its
// closing marker on the next sentence), and a lead-in is never quoted
// alone: it brings the sentence it introduces.
func TestBoldRunInHeading(t *testing.T) {
	text := "**When the library does not answer.** Before quoting, the answerer asks\nwhether the best passages answer the question at all."
	us := units(text, "", false)
	if len(us) != 2 || !us[0].leadIn || us[1].leadIn || !strings.HasPrefix(us[1].text, "Before quoting") {
		t.Fatalf("units: %+v", us)
	}
	if !boldLine("**Citation recall.**") || boldLine("**Bold** and then plain words.") {
		t.Error("boldLine")
	}
}

// Sentences quoted together are joined as the document joins them: a
// space between English sentences, none between Chinese ones; a quote
// too short to say much takes the sentence after it.
func TestQuoteJoinsAsTheDocument(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"英文模式下，由于没有添加中文宏包，无法输入中文。如果需要输入中文，可以引入中文宏包 ctex。",
			"英文模式下，由于没有添加中文宏包，无法输入中文。如果需要输入中文，可以引入中文宏包 ctex。"},
		{"Tables are not read yet. They come out as rows of cells joined by dots.",
			"Tables are not read yet. They come out as rows of cells joined by dots."},
	} {
		seg := &store.Segment{ID: "d:0", Text: c.text}
		us := units(c.text, "", false)
		var cs []*cand
		for i := range us {
			us[i].seg = seg
			cs = append(cs, &us[i])
		}
		r := grow(cs[0], cs, map[*cand]bool{})
		if got := render([]run{r}); len(got) != 1 || got[0].Text != c.want {
			t.Errorf("quote of %q: %+v, want %q", c.text, got, c.want)
		}
	}
}

// A lead-in that ends its segment, whose text is in the next one, is not
// quoted alone: the sentence it leads into is.
func TestLeadInNotQuotedAlone(t *testing.T) {
	a := &store.Segment{ID: "d:0", Text: "Answers quote whole sentences of the library.\n\n**When the library does not answer.**"}
	b := &store.Segment{ID: "d:1", Text: "Before quoting, the answerer asks whether the best passages answer the question at all."}
	var cs []*cand
	for _, seg := range []*store.Segment{a, b} {
		us := units(seg.Text, "", false)
		for i := range us {
			us[i].seg = seg
			cs = append(cs, &us[i])
		}
	}
	if len(cs) != 3 || !cs[1].leadIn {
		t.Fatalf("units %+v", cs)
	}
	cs[1].score, cs[2].score, cs[0].score = 1, 0.9, 0.1
	qu := newQuestion("When does the library not answer?", nil)
	runs := choose(qu, []*cand{cs[1], cs[2], cs[0]})
	if len(runs) == 0 || runs[0].first != cs[2] {
		t.Fatalf("quotes %+v, want the sentence the lead-in leads into first", runs)
	}
	for _, r := range runs {
		if r.first == cs[1] {
			t.Errorf("the lead-in is quoted alone")
		}
	}
}

// TestUnitsTableCutBetweenRows: a segment that opens with rows of a
// table cut between rows quotes them with the header of the segment
// before (when the window holds it), not as rows without a header; a
// segment that opens with a table of its own keeps its header.
func TestUnitsTableCutBetweenRows(t *testing.T) {
	prev := "The reasons:\n\n| reason | what it means |\n|---|---|\n| `empty file` | the file has no bytes |"
	text := "| `no extractable text (scanned pages)` | run OCR on it first |\n| `PDF has no pages` | nothing to read |\n\nThat is all."
	us := units(text, prev, true)
	var rows []string
	for _, u := range us {
		if u.table {
			rows = append(rows, u.text)
		}
	}
	want := "| reason | what it means |\n|---|---|\n| `no extractable text (scanned pages)` | run OCR on it first |"
	if len(rows) != 2 || rows[0] != want {
		t.Fatalf("rows = %q, want 2, the first %q", rows, want)
	}
	us = units(text, "", false)
	if len(us) != 3 || us[0].text != "|  |  |\n|---|---|\n| `no extractable text (scanned pages)` | run OCR on it first |" {
		t.Errorf("header unknown: units = %+v, want each row under an empty header, then the sentence", us)
	}
	own := "| a | b |\n|---|---|\n| 1 | 2 |"
	if us := units(own, prev, true); len(us) != 1 || us[0].text != own {
		t.Errorf("a table of its own after a table: units = %+v, want its row under its own header", us)
	}
}

package support

import (
	"strings"
	"testing"
)

// one is a passage of one segment.
func one(text string, headings ...string) Passage {
	return Passage{Segments: []Segment{{ID: "d:0", Text: text}}, Headings: headings}
}

// span checks r's invariants against p and returns the text r points at.
func span(t *testing.T, p Passage, r Result) string {
	t.Helper()
	if r.Segment == "" {
		if r.Start != 0 || r.End != 0 || r.Sentence != "" {
			t.Fatalf("no segment but a span: %v %q", r, r.Sentence)
		}
		return ""
	}
	for _, s := range p.Segments {
		if s.ID == r.Segment {
			if r.Start < 0 || r.Start >= r.End || r.End > len(s.Text) {
				t.Fatalf("span [%d, %d) outside %s's %d bytes", r.Start, r.End, s.ID, len(s.Text))
			}
			if s.Text[r.Start:r.End] != r.Sentence {
				t.Fatalf("span [%d, %d) holds %q, Sentence is %q", r.Start, r.End, s.Text[r.Start:r.End], r.Sentence)
			}
			return r.Sentence
		}
	}
	t.Fatalf("segment %q is not in the passage", r.Segment)
	return ""
}

func check(t *testing.T, p Passage, claim string) Result {
	t.Helper()
	r := Analyse(p).Check(claim, nil)
	span(t, p, r)
	if !r.Verdict.Valid() || r.Score < 0 || r.Score > 1 {
		t.Fatalf("verdict %q score %v", r.Verdict, r.Score)
	}
	return r
}

func TestFocusIsTheSupportingSentence(t *testing.T) {
	p := one("Honey bees forage widely in spring. Varroa mites infest the brood cells of honey bees. Queens are replaced in summer.")
	r := check(t, p, "Varroa mites infest brood cells.")
	if r.Sentence != "Varroa mites infest the brood cells of honey bees." {
		t.Errorf("focus %q", r.Sentence)
	}
	if r.Verdict != Supported {
		t.Errorf("verdict %v, want supported", r)
	}
}

// TestHeadingIsNeverEvidence: a Markdown heading, a line equal to the
// document's title and a heading line leading a sentence are never the
// focus, however well they match.
func TestHeadingIsNeverEvidence(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Passage
	}{
		{"markdown heading", one("# Varroa mites infest brood cells\n\nMites were counted in spring. Infested cells held more mites.")},
		{"title line", one("Varroa mites infest brood cells\n\nMites were counted in spring. Infested cells held more mites.", "Varroa Mites Infest Brood Cells")},
		{"title joined to a sentence", one("Varroa mites infest brood cells\nMites were counted in spring. Infested cells held more mites.", "Varroa mites infest brood cells")},
		{"setext heading", one("Varroa mites infest brood cells\n===\n\nMites were counted in spring. Infested cells held more mites.")},
	} {
		r := check(t, c.p, "Varroa mites infest brood cells.")
		if strings.Contains(r.Sentence, "Varroa") || strings.Contains(r.Sentence, "===") {
			t.Errorf("%s: focus %q is the heading", c.name, r.Sentence)
		}
		if r.Sentence != "Infested cells held more mites." {
			t.Errorf("%s: focus %q", c.name, r.Sentence)
		}
	}
	// A passage of headings only has nothing to judge.
	if r := check(t, one("# Varroa mites\n\n## Brood cells"), "Varroa mites infest brood cells."); r.Verdict != Unchecked || r.Segment != "" {
		t.Errorf("headings only: %v", r)
	}
}

// TestFocusInANeighbour: the passage's segments are all evidence; the
// span points into the segment that holds the support.
func TestFocusInANeighbour(t *testing.T) {
	p := Passage{Segments: []Segment{
		{ID: "d:3", Text: "Colonies were sampled in April."},
		{ID: "d:4", Text: "Bees were weighed."},
		{ID: "d:5", Text: "Most samples held mites. Deformed wing virus was carried by the mites."},
	}}
	r := check(t, p, "Mites carry deformed wing virus.")
	if r.Segment != "d:5" || r.Sentence != "Deformed wing virus was carried by the mites." {
		t.Errorf("focus %v %q", r, r.Sentence)
	}
}

// TestOffsetsAreBytes: offsets count bytes, whatever multi-byte
// characters come before (an en dash, a Greek letter, Chinese text).
func TestOffsetsAreBytes(t *testing.T) {
	for _, c := range []struct{ text, claim, want string }{
		{"Brain–derived factor – a review\n\nΖeta ζ and θ precede. We show that mites carry viruses.", "Mites carry viruses.", "We show that mites carry viruses."},
		{"蜜蜂在春天采蜜。蜂螨传播病毒。蜂王在夏天更替。", "蜂螨传播病毒", "蜂螨传播病毒。"},
	} {
		p := one(c.text)
		r := check(t, p, c.claim)
		if r.Sentence != c.want || c.text[r.Start:r.End] != c.want {
			t.Errorf("focus [%d, %d) %q, want %q", r.Start, r.End, r.Sentence, c.want)
		}
	}
}

// TestNumbersMustMatch: a claim's number missing from the passage is
// evidence against it, and such a claim is never Supported.
func TestNumbersMustMatch(t *testing.T) {
	text := "In the trial, 73.6% of patients responded to the drug within a week."
	right := check(t, one(text), "73.6% of patients responded to the drug.")
	wrong := check(t, one(text), "63.6% of patients responded to the drug.")
	if right.Verdict != Supported {
		t.Errorf("matching number: %v", right)
	}
	if wrong.Verdict == Supported || wrong.Score >= right.Score {
		t.Errorf("wrong number: %v (matching: %v)", wrong, right)
	}
}

// TestNamesMustMatch: a name of the claim ("ASQA") found nowhere in the
// passage lowers the score.
func TestNamesMustMatch(t *testing.T) {
	text := "The ELI5 benchmark measures long answers; models cite passages for each claim they make."
	right := check(t, one(text), "On ELI5, models cite passages for each claim.")
	wrong := check(t, one(text), "On ASQA, models cite passages for each claim.")
	if wrong.Score >= right.Score {
		t.Errorf("missing name scores %.3f, present %.3f", wrong.Score, right.Score)
	}
}

// TestNegationMustAgree: a claim and its supporting sentence that
// disagree on negation are never Supported.
func TestNegationMustAgree(t *testing.T) {
	text := "Metformin reduced the risk of severe kidney failure in older patients."
	agree := check(t, one(text), "Metformin reduces the risk of severe kidney failure in older patients.")
	disagree := check(t, one(text), "Metformin does not reduce the risk of severe kidney failure in older patients.")
	if agree.Verdict != Supported {
		t.Errorf("agreeing: %v", agree)
	}
	if disagree.Verdict == Supported {
		t.Errorf("disagreeing on negation: %v", disagree)
	}
	both := check(t, one("Metformin did not reduce the risk of severe kidney failure in older patients."),
		"Metformin does not reduce the risk of severe kidney failure in older patients.")
	if both.Verdict != Supported {
		t.Errorf("both negated: %v", both)
	}
}

// TestPhrasesWeighMore: of two sentences with the same terms, the one
// that holds them as the claim's phrase is the focus.
func TestPhrasesWeighMore(t *testing.T) {
	p := one("Cell division slowed when the growth factor was scarce. Growth slowed division of the cell factor lines. ")
	r := check(t, p, "Growth factor scarcity slows cell division.")
	if r.Sentence != "Cell division slowed when the growth factor was scarce." {
		t.Errorf("focus %q", r.Sentence)
	}
}

// TestPronounCompletedByTheSentenceBefore: a supporting sentence that
// starts with a pronoun is completed by the sentence before it; the
// same words with no pronoun to link them score lower.
func TestPronounCompletedByTheSentenceBefore(t *testing.T) {
	claim := "Varroa destructor mites spread deformed wing virus between colonies."
	linked := check(t, one("Varroa destructor is a parasitic mite of honey bees. It spreads deformed wing virus between colonies."), claim)
	apart := check(t, one("Varroa destructor is a parasitic mite of honey bees. Wasps spread deformed wing virus between colonies."), claim)
	if linked.Score <= apart.Score {
		t.Errorf("pronoun completed: %.3f, unlinked: %.3f", linked.Score, apart.Score)
	}
}

// TestAbbreviationsStandForTheirLongForm: a short form the passage
// defines counts as its long form, so the sentence that reports the
// finding with the short form is the focus.
func TestAbbreviationsStandForTheirLongForm(t *testing.T) {
	p := one("The interest in brown adipose tissue (BAT) as a target has been renewed. " +
		"We treated subjects with chenodeoxycholic acid (CDCA) for two days. " +
		"Treatment with CDCA resulted in increased BAT activity.")
	r := check(t, p, "Chenodeoxycholic acid treatment increases brown adipose tissue activity.")
	if r.Sentence != "Treatment with CDCA resulted in increased BAT activity." {
		t.Errorf("focus %q", r.Sentence)
	}
}

// TestAimIsNotEvidence: the sentence that states what a study asked is
// not the focus when another states what it found.
func TestAimIsNotEvidence(t *testing.T) {
	p := one("OBJECTIVE To determine whether folic acid reduces homocysteine levels in adults. " +
		"RESULTS Homocysteine levels fell in adults given folic acid.")
	r := check(t, p, "Folic acid reduces homocysteine levels in adults.")
	if !strings.HasPrefix(r.Sentence, "RESULTS") {
		t.Errorf("focus %q", r.Sentence)
	}
}

func TestUnrelatedIsUnsupported(t *testing.T) {
	r := check(t, one("Bees forage widely in spring. Queens are replaced in summer."), "Quantum computers factor large integers efficiently.")
	if r.Verdict != Unsupported || r.Segment != "" {
		t.Errorf("unrelated claim: %v (a sentence that shares no word supports nothing)", r)
	}
}

func TestUnchecked(t *testing.T) {
	for _, c := range []struct {
		name, claim string
		p           Passage
	}{
		{"no words", "… — !", one("Bees forage widely.")},
		{"stopwords only", "It is not as it was.", one("Bees forage widely.")},
		{"empty passage", "Bees forage widely.", Passage{}},
		{"empty segment", "Bees forage widely.", one("")},
	} {
		if r := check(t, c.p, c.claim); r.Verdict != Unchecked || r.Score != 0 || r.Segment != "" {
			t.Errorf("%s: %v", c.name, r)
		}
	}
}

// TestRarityWeighs: the rarer shared term decides the focus.
func TestRarityWeighs(t *testing.T) {
	p := one("Bees visit flowers often. Varroa harms larvae.")
	rarity := func(terms []string) []float64 {
		w := make([]float64, len(terms))
		for i, t := range terms {
			w[i] = 0.1
			if t == "varroa" {
				w[i] = 5
			}
		}
		return w
	}
	r := Analyse(p).Check("Bees and varroa", rarity)
	if r.Sentence != "Varroa harms larvae." {
		t.Errorf("focus %q", r.Sentence)
	}
}

// TestCheckIsConcurrent: one Evidence checks claims from several
// goroutines (run with -race).
func TestCheckIsConcurrent(t *testing.T) {
	e := Analyse(one("Varroa mites infest the brood cells of honey bees. Queens are replaced in summer."))
	want := e.Check("Mites infest brood cells.", nil)
	done := make(chan Result)
	for range 8 {
		go func() { done <- e.Check("Mites infest brood cells.", nil) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("concurrent check %v, want %v", got, want)
		}
	}
}

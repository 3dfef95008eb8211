package ingest

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// alceSections are the ALCE paper's own headings, in order.
var alceSections = []string{
	"Abstract", "1 Introduction", "2 Task Setup and Datasets", "3 Automatic Evaluation",
	"3.1 Fluency", "3.2 Correctness", "3.3 Citation Quality", "3.4 ALCE is Robust to Shortcut Cases",
	"4 Modeling", "4.1 Retrieval", "4.2 Synthesis", "4.3 Post-editing",
	"5 Experiments", "5.1 Main Results", "5.2 Comparison of Different LLMs", "5.3 Retrieval Analysis", "5.4 Other Ablations",
	"6 Human Evaluation", "7 Related Work", "8 Conclusion", "Limitation", "Acknowledgments", "References",
	"A Generating Claims for ELI5", "B Implementation Details", "C ALCE Catches Shortcut Cases",
	"D Citation Recall Discussion", "E Human Evaluation", "E.1 Utility", "E.2 Citation Recall", "E.3 Citation Precision",
	"F More Experiments", "F.1 Retrieval Analysis", "F.2 Effect of Instructions", "F.3 Effect of Demonstrations", "F.4 Main Results",
	"G Prompts", "H Examples",
}

func TestALCEStructure(t *testing.T) {
	ld := loadShared(t, "alce-gao2023-citations.pdf")
	var got []string
	for _, s := range ld.Segments {
		if regexp.MustCompile(`^Table \d+:`).MatchString(s.Text) || strings.Contains(s.Text, " · ") {
			continue // a table (its rows' cells apart) is filed under the section that cites it
		}
		if len(s.Section) > 0 && !slices.Contains(got, s.Section[len(s.Section)-1]) {
			got = append(got, s.Section[len(s.Section)-1])
		}
	}
	if !slices.Equal(got, alceSections) {
		t.Errorf("sections:\n got %q\nwant %q", got, alceSections)
	}
	if d := ld.Document; d.Author != "Tianyu Gao, Howard Yen, Jiatong Yu, Danqi Chen" {
		t.Errorf("author %q", d.Author)
	}
	first := ld.Segments[0]
	if !strings.HasPrefix(first.Text, "Enabling Large Language Models") || !strings.Contains(first.Text, "Tianyu Gao") || !strings.Contains(first.Text, "Large language models (LLMs) have emerged") {
		t.Errorf("first segment does not hold title, authors and abstract: %.200q", first.Text)
	}
	for _, ref := range []string{"Bernd Bohnet, Vinh Q Tran", "Sebastian Borgeaud, Arthur Mensch"} {
		s := ld.Segments[segmentWith(t, ld, ref)]
		if !slices.Equal(s.Section, []string{"References"}) {
			t.Errorf("%q in section %q, want References", ref, s.Section)
		}
	}
	// Footnotes are passages of their own, on their page.
	for note, page := range map[string]int{
		"1 Our code and data are available at https://github.com/princeton-nlp/ALCE.": 1,
		"2 https://www.bing.com/new":  1,
		"3 https://www.perplexity.ai": 1,
	} {
		s := ld.Segments[segmentWith(t, ld, note)]
		if s.Text != note || s.PageStart != page {
			t.Errorf("footnote %q: segment %q on page %d", note, s.Text, s.PageStart)
		}
	}
	// A paragraph broken by the page break is one passage over two pages.
	s := ld.Segments[segmentWith(t, ld, "We argue that the absence of automated evaluation")]
	if s.PageStart != 1 || s.PageEnd != 2 {
		t.Errorf("paragraph across pages 1-2 is on %d-%d", s.PageStart, s.PageEnd)
	}
	// A bold run-in head and the paragraph it opens are one passage.
	if s := ld.Segments[segmentWith(t, ld, "Our automatic evaluation of citation quality")]; !strings.Contains(s.Text, "Our automatic evaluation of citation quality strongly correlates with human judgements.") {
		t.Errorf("run-in head split from its paragraph: %.200q", s.Text)
	}
	// Raised footnote marks are superscripts, not digits glued to words.
	if !strings.Contains(ld.Text, "Bing Chat² and perplexity.ai³ respond to") {
		t.Error(`text lacks "Bing Chat² and perplexity.ai³ respond to"`)
	}
	if s := ld.Segments[segmentWith(t, ld, "Our evaluation is not without flaw")]; !slices.Equal(s.Section, []string{"Limitation"}) {
		t.Errorf("the Limitation text is in section %q", s.Section)
	}
}

func TestElegantPaperPageNumbers(t *testing.T) {
	for _, f := range []string{"elegantpaper-en.pdf", "elegantpaper-cn.pdf"} {
		t.Run(f, func(t *testing.T) {
			ld := load(t, sharedPDF(t, f))
			if !slices.Equal(ld.PageLabels, []string{"1", "2", "3", "4", "5"}) {
				t.Errorf("page labels %q", ld.PageLabels)
			}
			for _, s := range ld.Segments {
				if regexp.MustCompile(`(?m)^\s*\d{1,3}\s*$`).MatchString(s.Text) {
					t.Errorf("passage %d holds a page number line: %q", s.Index, s.Text)
				}
			}
		})
	}
}

// Chinese lines join without a space; the text is the document's own.
func TestChineseLineJoins(t *testing.T) {
	ld := load(t, sharedPDF(t, "elegantpaper-cn.pdf"))
	for _, want := range []string{"专为工作论文写作而设计", "从而有更加舒适，简便的写作体验"} {
		if !strings.Contains(ld.Text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`\p{Han} \p{Han}`).FindAllString(ld.Text, -1); len(m) > 1 {
		t.Errorf("spaces between Chinese characters: %q", m)
	}
}

package pdf

import (
	"context"
	"fmt"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"slices"
	"strings"
	"testing"
)

// layoutOf reads a fixture PDF into its layout (paragraphs in reading
// order, kinds set).
func layoutOf(t *testing.T, data []byte) *layout {
	t.Helper()
	out, err := testEngine(t).extract(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return layOut(context.Background(), out.Pages, out.Outline)
}

// readDoc reads a fixture PDF with the shared engine.
func readDoc(t *testing.T, data []byte) *Document {
	t.Helper()
	d, err := testEngine(t).Read(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// paraList is a layout's paragraphs as "kind: text" lines.
func paraList(lay *layout) []string {
	names := map[Kind]string{Body: "body", Heading: "heading", Caption: "caption", Footnote: "footnote", Title: "title", Authors: "authors"}
	var out []string
	for _, p := range lay.paras {
		out = append(out, names[p.kind]+": "+p.text)
	}
	return out
}

// runIn draws a line whose first words are bold and whose rest is
// regular, filling the column (Courier is 0.6 em a character).
func runIn(x, y, width float64, bold, rest string) []pdftest.Item {
	w := 0.6 * 10 * float64(len(bold))
	return []pdftest.Item{
		{X: x, Y: y, Size: 10, Bold: true, Text: bold},
		{X: x + w, Y: y, Size: 10, Width: width - w, Text: rest},
	}
}

// Back-matter headings (Limitations, Ethics Statement, ...) count when set
// apart by the font on a line of their own; body text that reads like one
// or starts with one does not. A bold lead-in that runs on into regular
// type is one paragraph; a bold heading line before a regular paragraph
// stays a heading.
func TestBackMatterAndRunInHeads(t *testing.T) {
	// Justified lines leave word gaps under half a character (Courier is
	// 6 points a character at 10 points, 70 characters to a line).
	const x, w = 72.0, 420.0
	var page []pdftest.Item
	page = append(page, pdftest.Item{X: x, Y: 760, Size: 16, Bold: true, Text: "Back Matter"})
	page = append(page, pdftest.Item{X: x, Y: 740, Size: 12, Bold: true, Text: "1 Introduction"})
	page = append(page, pdftest.Column(x, 720, w,
		"Limitations of earlier readers are many; this line starts with the",
		"word but goes on as body text, so it opens no section at all.")...)
	// A run-in head: a whole bold line, then a line that starts bold.
	page = append(page, pdftest.Item{X: x, Y: 690, Size: 10, Bold: true, Width: w,
		Text: "Run-in heads keep their paragraph whole when the bold lead-in line"})
	page = append(page, runIn(x, 678, w, "runs on", " into a line that turns to regular type half way along it.")...)
	page = append(page, pdftest.Column(x, 666, w, "The paragraph ends here.")...)
	// A bold heading short of the edge, then a paragraph whose first
	// words are bold: two paragraphs.
	page = append(page, pdftest.Item{X: x, Y: 640, Size: 10, Bold: true, Text: "Setup of the study"})
	page = append(page, runIn(x, 628, w, "Models.", " We test three readers on the same papers, one after another.")...)
	page = append(page, pdftest.Column(x, 616, w, "Each reads every page.")...)
	// Body-style lines that name back matter are text.
	page = append(page, pdftest.Column(x, 590, w, "Ethics Statement")...)
	page = append(page, pdftest.Column(x, 570, w, "A line in the body's own type and size, under the line above.")...)
	page = append(page, pdftest.Item{X: x, Y: 540, Size: 12, Bold: true, Text: "Limitations"})
	page = append(page, pdftest.Column(x, 520, w, "Our fixture is small and drawn in one font only.")...)
	page = append(page, pdftest.Item{X: x, Y: 490, Size: 10, Bold: true, Text: "Ethical Considerations"})
	page = append(page, pdftest.Column(x, 470, w, "No person is named in it.")...)

	lay := layoutOf(t, pdftest.Paper([][]pdftest.Item{page}))
	want := []string{
		"title: Back Matter",
		"heading: 1 Introduction",
		"body: Limitations of earlier readers are many; this line starts with the word but goes on as body text, so it opens no section at all.",
		"body: Run-in heads keep their paragraph whole when the bold lead-in line runs on into a line that turns to regular type half way along it. The paragraph ends here.",
		"body: Setup of the study",
		"body: Models. We test three readers on the same papers, one after another. Each reads every page.",
		"body: Ethics Statement",
		"body: A line in the body's own type and size, under the line above.",
		"heading: Limitations",
		"body: Our fixture is small and drawn in one font only.",
		"heading: Ethical Considerations",
		"body: No person is named in it.",
	}
	if got := paraList(lay); !slices.Equal(got, want) {
		t.Errorf("paragraphs:\n got %q\nwant %q", got, want)
	}

	doc := readDoc(t, pdftest.Paper([][]pdftest.Item{page}))
	var heads []string
	for _, b := range doc.Blocks {
		if b.Kind == Heading {
			heads = append(heads, fmt.Sprintf("%d %s", b.Level, b.Text))
		}
	}
	if want := []string{"1 1 Introduction", "1 Limitations", "1 Ethical Considerations"}; !slices.Equal(heads, want) {
		t.Errorf("headings %q, want %q", heads, want)
	}
}

func TestIsBackMatterHeading(t *testing.T) {
	for line, want := range map[string]bool{
		"Limitation": true, "Limitations": true, "LIMITATIONS": true, "Ethics Statement": true,
		"Broader Impact": true, "Acknowledgements": true, "Conclusions": true, " Appendix ": true,
		"limitations": false, "Limitations of this work": false, "Limitations.": false,
		"Conclusion: we win": false, "Related": false, "": false,
		"Works Cited": true, "Literaturverzeichnis": true, "참고문헌": true, "引用文献": true, "works cited": false,
		"Works Cited in this chapter": false, "1 Introduction": false, "(a)": false,
	} {
		if got := isBackMatterHeading(line); got != want {
			t.Errorf("isBackMatterHeading(%q) = %v, want %v", line, got, want)
		}
	}
}

// raised draws text in small type raised above the baseline y, as a
// footnote mark or an exponent is set.
func raised(x, y float64, text string) pdftest.Item {
	return pdftest.Item{X: x, Y: y + 4, Size: 6, Text: text}
}

// A raised footnote mark after a word is written in superscript digits,
// so the word stays a word; an exponent inside a formula is left as it
// was, and the footnote's own text keeps its mark apart.
func TestRaisedFootnoteMarks(t *testing.T) {
	const x = 72.0
	ch := 6.0 // a Courier character at 10 points
	var page []pdftest.Item
	// "Bing Chat²  and perplexity.ai³  respond to user questions."
	s1, s2, s3 := "Bing Chat", " and perplexity.ai", " respond to user questions."
	page = append(page,
		pdftest.Item{X: x, Y: 700, Size: 10, Text: s1},
		raised(x+ch*9, 700, "2"),
		pdftest.Item{X: x + ch*9 + 3.6, Y: 700, Size: 10, Text: s2},
		raised(x+ch*9+3.6+ch*18, 700, "3"),
		pdftest.Item{X: x + ch*9 + 7.2 + ch*18, Y: 700, Size: 10, Text: s3},
	)
	// After a full stop at the line's end.
	page = append(page,
		pdftest.Item{X: x, Y: 688, Size: 10, Text: "They cite the web."},
		raised(x+ch*18, 688, "14"),
	)
	// Exponents: after a digit, and before a letter.
	page = append(page,
		pdftest.Item{X: x, Y: 664, Size: 10, Text: "A cost of 10"},
		raised(x+ch*12, 664, "3"),
		pdftest.Item{X: x + ch*12 + 3.6 + 2, Y: 664, Size: 10, Text: " and an area x"},
	)
	page = append(page,
		raised(x+ch*12+5.6+ch*14, 664, "2"),
		pdftest.Item{X: x + ch*12 + 9.2 + ch*14, Y: 664, Size: 10, Text: "y in all."},
	)
	// The footnotes at the page's foot.
	page = append(page,
		pdftest.Item{X: x, Y: 104, Size: 5, Text: "2"},
		pdftest.Item{X: x + 4, Y: 100, Size: 8, Text: "https://www.bing.com/new"},
		pdftest.Item{X: x, Y: 92, Size: 5, Text: "3"},
		pdftest.Item{X: x + 4, Y: 88, Size: 8, Text: "https://www.perplexity.ai"},
	)
	doc := readDoc(t, pdftest.Paper([][]pdftest.Item{page}))
	text := doc.text()
	for _, want := range []string{"Bing Chat² and perplexity.ai³ respond to user questions.", "They cite the web.¹⁴", "A cost of 103 and an area x2y in all."} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, note := range []string{"2 https://www.bing.com/new", "3 https://www.perplexity.ai"} {
		if !slices.ContainsFunc(doc.Blocks, func(b Block) bool { return b.Kind == Footnote && b.Text == note }) {
			t.Errorf("no footnote block %q:\n%s", note, text)
		}
	}
}

package ingest

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// layoutOf reads a fixture PDF into its layout (paragraphs in reading
// order, kinds set).
func layoutOf(t *testing.T, data []byte) *pdfLayout {
	t.Helper()
	out, err := testLoader(t).pdf.extract(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return layoutPDF(out.Pages, out.Outline)
}

// paraList is a layout's paragraphs as "kind: text" lines.
func paraList(lay *pdfLayout) []string {
	names := map[paraKind]string{paraBody: "body", paraHeading: "heading", paraCaption: "caption", paraFootnote: "footnote", paraTitle: "title", paraAuthors: "authors"}
	var out []string
	for _, p := range lay.paras {
		out = append(out, names[p.kind]+": "+p.text)
	}
	return out
}

// runIn draws a line whose first words are bold and whose rest is
// regular, filling the column (Courier is 0.6 em a character).
func runIn(x, y, width float64, bold, rest string) []paperItem {
	w := 0.6 * 10 * float64(len(bold))
	return []paperItem{
		{x: x, y: y, size: 10, bold: true, text: bold},
		{x: x + w, y: y, size: 10, width: width - w, text: rest},
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
	var page []paperItem
	page = append(page, paperItem{x: x, y: 760, size: 16, bold: true, text: "Back Matter"})
	page = append(page, paperItem{x: x, y: 740, size: 12, bold: true, text: "1 Introduction"})
	page = append(page, column(x, 720, w,
		"Limitations of earlier readers are many; this line starts with the",
		"word but goes on as body text, so it opens no section at all.")...)
	// A run-in head: a whole bold line, then a line that starts bold.
	page = append(page, paperItem{x: x, y: 690, size: 10, bold: true, width: w,
		text: "Run-in heads keep their paragraph whole when the bold lead-in line"})
	page = append(page, runIn(x, 678, w, "runs on", " into a line that turns to regular type half way along it.")...)
	page = append(page, column(x, 666, w, "The paragraph ends here.")...)
	// A bold heading short of the edge, then a paragraph whose first
	// words are bold: two paragraphs.
	page = append(page, paperItem{x: x, y: 640, size: 10, bold: true, text: "Setup of the study"})
	page = append(page, runIn(x, 628, w, "Models.", " We test three readers on the same papers, one after another.")...)
	page = append(page, column(x, 616, w, "Each reads every page.")...)
	// Body-style lines that name back matter are text.
	page = append(page, column(x, 590, w, "Ethics Statement")...)
	page = append(page, column(x, 570, w, "A line in the body's own type and size, under the line above.")...)
	page = append(page, paperItem{x: x, y: 540, size: 12, bold: true, text: "Limitations"})
	page = append(page, column(x, 520, w, "Our fixture is small and drawn in one font only.")...)
	page = append(page, paperItem{x: x, y: 490, size: 10, bold: true, text: "Ethical Considerations"})
	page = append(page, column(x, 470, w, "No person is named in it.")...)

	lay := layoutOf(t, paperPDF([][]paperItem{page}))
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

	ld := loadBytes(t, "backmatter.pdf", paperPDF([][]paperItem{page}))
	var paths []string
	for _, s := range ld.Segments {
		if p := strings.Join(s.Section, " › "); !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if want := []string{"", "1 Introduction", "Limitations", "Ethical Considerations"}; !slices.Equal(paths, want) {
		t.Errorf("sections %q, want %q", paths, want)
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
func raised(x, y float64, text string) paperItem {
	return paperItem{x: x, y: y + 4, size: 6, text: text}
}

// A raised footnote mark after a word is written in superscript digits,
// so the word stays a word; an exponent inside a formula is left as it
// was, and the footnote's own text keeps its mark apart.
func TestRaisedFootnoteMarks(t *testing.T) {
	const x = 72.0
	ch := 6.0 // a Courier character at 10 points
	var page []paperItem
	// "Bing Chat²  and perplexity.ai³  respond to user questions."
	s1, s2, s3 := "Bing Chat", " and perplexity.ai", " respond to user questions."
	page = append(page,
		paperItem{x: x, y: 700, size: 10, text: s1},
		raised(x+ch*9, 700, "2"),
		paperItem{x: x + ch*9 + 3.6, y: 700, size: 10, text: s2},
		raised(x+ch*9+3.6+ch*18, 700, "3"),
		paperItem{x: x + ch*9 + 7.2 + ch*18, y: 700, size: 10, text: s3},
	)
	// After a full stop at the line's end.
	page = append(page,
		paperItem{x: x, y: 688, size: 10, text: "They cite the web."},
		raised(x+ch*18, 688, "14"),
	)
	// Exponents: after a digit, and before a letter.
	page = append(page,
		paperItem{x: x, y: 664, size: 10, text: "A cost of 10"},
		raised(x+ch*12, 664, "3"),
		paperItem{x: x + ch*12 + 3.6 + 2, y: 664, size: 10, text: " and an area x"},
	)
	page = append(page,
		raised(x+ch*12+5.6+ch*14, 664, "2"),
		paperItem{x: x + ch*12 + 9.2 + ch*14, y: 664, size: 10, text: "y in all."},
	)
	// The footnotes at the page's foot.
	page = append(page,
		paperItem{x: x, y: 104, size: 5, text: "2"},
		paperItem{x: x + 4, y: 100, size: 8, text: "https://www.bing.com/new"},
		paperItem{x: x, y: 92, size: 5, text: "3"},
		paperItem{x: x + 4, y: 88, size: 8, text: "https://www.perplexity.ai"},
	)
	ld := loadBytes(t, "marks.pdf", paperPDF([][]paperItem{page}))
	for _, want := range []string{"Bing Chat² and perplexity.ai³ respond to user questions.", "They cite the web.¹⁴", "A cost of 103 and an area x2y in all."} {
		if !strings.Contains(ld.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, ld.Text)
		}
	}
	for _, note := range []string{"2 https://www.bing.com/new", "3 https://www.perplexity.ai"} {
		if s := segmentOf(t, ld, note); s.Text != note {
			t.Errorf("footnote passage %q, want %q", s.Text, note)
		}
	}
}

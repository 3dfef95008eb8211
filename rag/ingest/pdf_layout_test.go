package ingest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// paperItem is one line drawn on a fixture page: Courier (6/10 em per
// character, so widths are exact), bold or not, justified to width when
// width > 0 (word spacing fills the line, as TeX does).
type paperItem struct {
	x, y, size float64
	bold       bool
	width      float64
	text       string
	vertical   bool // turned a quarter (an arXiv stamp in the margin)
}

// paperPDF writes pages of positioned lines with Courier (F1) and
// Courier-Bold (F2).
func paperPDF(pages [][]paperItem) []byte { return outlinedPDF(pages, nil) }

// outlineEntry is a top-level bookmark to a page (0-based).
type outlineEntry struct {
	title string
	page  int
}

// outlinedPDF is paperPDF with an outline (bookmarks) when outline is
// not empty.
func outlinedPDF(pages [][]paperItem, outline []outlineEntry) []byte {
	var contents []string
	for _, items := range pages {
		var b strings.Builder
		for _, it := range items {
			font := 1
			if it.bold {
				font = 2
			}
			tw := 0.0
			if n := strings.Count(it.text, " "); it.width > 0 && n > 0 {
				tw = (it.width - 0.6*it.size*float64(len(it.text))) / float64(n)
			}
			s := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(it.text)
			if it.vertical {
				fmt.Fprintf(&b, "BT /F%d %g Tf 0 1 -1 0 %g %g Tm (%s) Tj ET\n", font, it.size, it.x, it.y, s)
				continue
			}
			fmt.Fprintf(&b, "BT /F%d %g Tf %g Tw %g %g Td (%s) Tj ET\n", font, it.size, tw, it.x, it.y, s)
		}
		contents = append(contents, b.String())
	}
	n := len(contents)
	objs := []pdfObject{"<< /Type /Catalog /Pages 2 0 R >>", "",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>"}
	var kids []string
	for i, c := range contents {
		page := 5 + 2*i
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", page+1), stream(c))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	if len(outline) > 0 {
		root := len(objs) + 1
		objs[0] = fmt.Sprintf("<< /Type /Catalog /Pages 2 0 R /Outlines %d 0 R >>", root)
		first, last := root+1, root+len(outline)
		objs = append(objs, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", first, last, len(outline)))
		for i, o := range outline {
			item := fmt.Sprintf("<< /Title (%s) /Parent %d 0 R /Dest [%d 0 R /XYZ 0 792 0]", o.title, root, 5+2*o.page)
			if i > 0 {
				item += fmt.Sprintf(" /Prev %d 0 R", first+i-1)
			}
			if i < len(outline)-1 {
				item += fmt.Sprintf(" /Next %d 0 R", first+i+1)
			}
			objs = append(objs, item+" >>")
		}
	}
	return buildPDF(objs, "")
}

// column lays out a paragraph's lines in a column from y down, 12 points
// apart, each line justified but the last.
func column(x, y, width float64, lines ...string) []paperItem {
	var out []paperItem
	for i, l := range lines {
		w := width
		if i == len(lines)-1 {
			w = 0
		}
		out = append(out, paperItem{x: x, y: y - 12*float64(i), size: 10, width: w, text: l})
	}
	return out
}

const (
	leftX, rightX, colW = 72.0, 318.0, 222.0
)

// twoColumnPaper is a two-page, two-column paper whose truth is known:
// running header and page numbers, a footnote, a paragraph that runs from
// the left column into the right one and one that runs onto page 2, words
// hyphenated at line ends, a figure with tick labels and a caption, a
// table with a caption, and a references section.
func twoColumnPaper() []byte {
	header := func(n int) []paperItem {
		return []paperItem{
			{x: 72, y: 760, size: 8, text: "Fixture Journal of Layout, Vol. 1"},
			{x: 300, y: 40, size: 9, text: fmt.Sprint(n)},
		}
	}
	p1 := header(1)
	p1 = append(p1, paperItem{x: 30, y: 250, size: 20, vertical: true, text: "arXiv:2305.14627v1 [cs.CL] 24 May 2023"})
	p1 = append(p1,
		paperItem{x: 150, y: 720, size: 18, bold: true, text: "A Study of Paper Layout"},
		paperItem{x: 200, y: 695, size: 12, text: "Ada Lovelace and Alan Turing"},
		paperItem{x: leftX, y: 650, size: 12, bold: true, text: "Abstract"},
	)
	p1 = append(p1, column(leftX, 632, colW,
		"We read papers as papers: columns in",
		"order, notes apart, and words whole.")...)
	p1 = append(p1, paperItem{x: leftX, y: 590, size: 12, bold: true, text: "1 Introduction"})
	p1 = append(p1, column(leftX, 572, colW,
		"A first paragraph starts the section",
		"and it cites a footnote here.")...)
	p1 = append(p1, paperItem{x: 246, y: 563, size: 6, text: "1"})
	p1 = append(p1, column(leftX+12, 548, colW-12,
		"Models that we use in state-of-the-")...)
	p1 = append(p1, column(leftX, 536, colW,
		"art methods for this study of natu-",
		"ral text and of the work on natural-",
		"language inference; natural text and",
		"language are common words here, and",
		"the results of the many tests of the")...)
	p1[len(p1)-1].width = colW // the column ends mid-sentence, justified
	p1 = append(p1,
		paperItem{x: leftX, y: 96, size: 6, text: "1"},
		paperItem{x: leftX + 5, y: 92, size: 8, text: "See https://example.org/fixture for data."},
	)
	p1 = append(p1, column(rightX, 650, colW,
		"experiment were clear to every one",
		"who looked at them.")...)
	// A figure: tick labels and an axis label in tiny type, then a caption.
	for i, tick := range []string{"0.0", "0.5", "1.0"} {
		p1 = append(p1, paperItem{x: rightX + 10 + 80*float64(i), y: 585, size: 5, text: tick})
		p1 = append(p1, paperItem{x: rightX, y: 592 + 8*float64(i), size: 5, text: tick})
	}
	p1 = append(p1, paperItem{x: rightX + 90, y: 578, size: 5, text: "Year"})
	p1 = append(p1, column(rightX, 560, colW,
		"Figure 1: Accuracy by year for each",
		"model in the study.")...)
	p1 = append(p1, column(rightX, 520, colW,
		"The last paragraph of this page goes",
		"on across the line and across the page")...)
	p1[len(p1)-1].width = colW
	p2 := header(2)
	p2 = append(p2, column(leftX, 720, colW,
		"break and ends on the second page.")...)
	p2 = append(p2, paperItem{x: leftX, y: 690, size: 12, bold: true, text: "2 Method"})
	p2 = append(p2, column(leftX, 672, colW,
		"We measure the layout of each page.")...)
	p2 = append(p2, column(leftX, 640, colW,
		"Table 1: Scores of the two models.")...)
	p2 = append(p2,
		paperItem{x: leftX, y: 620, size: 10, text: "Model"}, paperItem{x: leftX + 120, y: 620, size: 10, text: "Score"},
		paperItem{x: leftX, y: 608, size: 10, text: "Alpha"}, paperItem{x: leftX + 120, y: 608, size: 10, text: "0.91"},
	)
	p2 = append(p2, paperItem{x: rightX, y: 720, size: 12, bold: true, text: "References"})
	p2 = append(p2, column(rightX, 702, colW,
		"Ada Lovelace. 1843. Notes on the")...)
	p2 = append(p2, column(rightX+10, 690, colW-10,
		"Analytical Engine. Taylor.")...)
	p2 = append(p2, column(rightX, 672, colW,
		"Alan Turing. 1950. Computing machines")...)
	p2 = append(p2, column(rightX+10, 660, colW-10,
		"and intelligence. Mind.")...)
	return paperPDF([][]paperItem{p1, p2})
}

func loadBytes(t *testing.T, name string, data []byte) *Loaded {
	t.Helper()
	ld, err := testLoader(t).LoadBytes(context.Background(), name, data)
	if err != nil {
		t.Fatalf("LoadBytes(%s): %v", name, err)
	}
	return ld
}

// segmentOf returns the segment that holds s whole, failing when none
// does.
func segmentOf(t *testing.T, ld *Loaded, s string) *struct {
	Text, Path string
	From, To   int
} {
	t.Helper()
	for _, seg := range ld.Segments {
		if strings.Contains(seg.Text, s) {
			return &struct {
				Text, Path string
				From, To   int
			}{seg.Text, strings.Join(seg.Section, " › "), seg.PageStart, seg.PageEnd}
		}
	}
	t.Errorf("no segment holds %q whole; text:\n%s", s, ld.Text)
	return &struct {
		Text, Path string
		From, To   int
	}{}
}

func TestPaperLayout(t *testing.T) {
	ld := loadBytes(t, "paper.pdf", twoColumnPaper())
	d := ld.Document
	if d.Title != "A Study of Paper Layout" || d.Author != "Ada Lovelace, Alan Turing" {
		t.Errorf("title %q, author %q", d.Title, d.Author)
	}
	if !slices.Equal(ld.PageLabels, []string{"1", "2"}) {
		t.Errorf("page labels %q, want [1 2]", ld.PageLabels)
	}
	t.Run("front matter is the first segment", func(t *testing.T) {
		s := ld.Segments[0]
		if !strings.HasPrefix(s.Text, "A Study of Paper Layout") || !strings.Contains(s.Text, "words whole.") || strings.Join(s.Section, "/") != "Abstract" {
			t.Errorf("first segment %q in %q", s.Text, s.Section)
		}
	})
	t.Run("running header and page numbers", func(t *testing.T) {
		if strings.Contains(ld.Text, "Fixture Journal") {
			t.Error("the running header is in the text")
		}
		if strings.Contains(ld.Text, "arXiv") {
			t.Error("the arXiv stamp in the margin is in the text")
		}
		for _, s := range ld.Segments {
			if s.Text == "1" || s.Text == "2" || strings.HasSuffix(s.Text, "\n\n1") || strings.HasSuffix(s.Text, "\n\n2") {
				t.Errorf("a page number is a passage: %q", s.Text)
			}
		}
	})
	t.Run("hyphenation", func(t *testing.T) {
		for _, w := range []string{"state-of-the-art methods", "study of natural text", "natural-language inference"} {
			if !strings.Contains(ld.Text, w) {
				t.Errorf("text lacks %q", w)
			}
		}
	})
	t.Run("column order and a paragraph across columns", func(t *testing.T) {
		segmentOf(t, ld, "the results of the many tests of the experiment were clear to every one")
		if strings.Index(ld.Text, "A second paragraph") > strings.Index(ld.Text, "experiment were clear") {
			// The second paragraph is below in the left column; the
			// right column's continuation is read after it.
			return
		}
	})
	t.Run("footnote apart", func(t *testing.T) {
		s := segmentOf(t, ld, "See https://example.org/fixture")
		if s.Text != "1 See https://example.org/fixture for data." || s.From != 1 {
			t.Errorf("footnote segment %q on page %d", s.Text, s.From)
		}
		if strings.Contains(ld.Text, "here.1 See") || strings.Contains(ld.Text, "reader 1 See") {
			t.Error("the footnote is spliced into the body")
		}
	})
	t.Run("paragraph across the page", func(t *testing.T) {
		s := segmentOf(t, ld, "across the page break and ends on the second page.")
		if s.From != 1 || s.To != 2 {
			t.Errorf("pages %d-%d, want 1-2", s.From, s.To)
		}
	})
	t.Run("figure", func(t *testing.T) {
		segmentOf(t, ld, "Figure 1: Accuracy by year for each model in the study.")
		for _, tick := range []string{"0.5", "Year\n"} {
			if strings.Contains(ld.Text, tick) {
				t.Errorf("tiny figure text %q is in the text", tick)
			}
		}
	})
	t.Run("table", func(t *testing.T) {
		segmentOf(t, ld, "Table 1: Scores of the two models.")
		segmentOf(t, ld, "Model | Score")
	})
	t.Run("sections", func(t *testing.T) {
		var paths []string
		for _, s := range ld.Segments {
			p := strings.Join(s.Section, " › ")
			if len(paths) == 0 || paths[len(paths)-1] != p {
				paths = append(paths, p)
			}
		}
		want := []string{"Abstract", "1 Introduction", "2 Method", "References"}
		var got []string
		for _, p := range paths {
			if !slices.Contains(got, p) {
				got = append(got, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("sections %q, want %q", got, want)
		}
		s := segmentOf(t, ld, "Computing machines and intelligence.")
		if s.Path != "References" {
			t.Errorf("reference in %q", s.Path)
		}
	})
}

// Headings come from the outline first: plain lines that the outline
// names are headings, and without the outline they are not.
func TestPDFOutlineHeadings(t *testing.T) {
	var page []paperItem
	page = append(page, paperItem{x: 72, y: 720, size: 10, text: "Introduction"})
	page = append(page, column(72, 700, 468,
		"Plain text opens the paper; the heading above is set like the body text.")...)
	page = append(page, paperItem{x: 72, y: 660, size: 10, text: "Method"})
	page = append(page, column(72, 640, 468,
		"The method is described here, again under a heading set like the body.")...)
	sections := func(ld *Loaded) []string {
		var out []string
		for _, s := range ld.Segments {
			p := strings.Join(s.Section, " › ")
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		return out
	}
	plain := loadBytes(t, "plain.pdf", paperPDF([][]paperItem{page}))
	if got := sections(plain); !slices.Equal(got, []string{""}) {
		t.Errorf("without an outline: sections %q, want none", got)
	}
	outlined := loadBytes(t, "outlined.pdf", outlinedPDF([][]paperItem{page}, []outlineEntry{{"Introduction", 0}, {"Method", 0}}))
	if got := sections(outlined); !slices.Equal(got, []string{"Introduction", "Method"}) {
		t.Errorf("with an outline: sections %q, want [Introduction Method]", got)
	}
}

// taggedPDF is a one-page tagged PDF: headings marked H1 and H2 in the
// structure tree, set like the body text; tagged false writes the same
// page without the marks.
func taggedPDF(tagged bool) []byte {
	items := []struct {
		tag, text string
		y         int
	}{
		{"H1", "Overview", 720},
		{"P", "Plain text under a tagged heading, set like it.", 700},
		{"H2", "Details", 670},
		{"P", "More text under the second heading, also plain.", 650},
	}
	var c strings.Builder
	for i, it := range items {
		if tagged {
			fmt.Fprintf(&c, "/%s <</MCID %d>> BDC ", it.tag, i)
		}
		fmt.Fprintf(&c, "BT /F1 10 Tf 72 %d Td (%s) Tj ET", it.y, it.text)
		if tagged {
			c.WriteString(" EMC")
		}
		c.WriteString("\n")
	}
	catalog := "<< /Type /Catalog /Pages 2 0 R >>"
	if tagged {
		catalog = "<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 6 0 R /MarkInfo << /Marked true >> >>"
	}
	objs := []pdfObject{
		catalog,
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R /StructParents 0 >>",
		stream(c.String()),
		"<< /Type /StructTreeRoot /K [7 0 R] /ParentTree 8 0 R >>",
		"<< /Type /StructElem /S /Document /P 6 0 R /K [9 0 R 10 0 R 11 0 R 12 0 R] >>",
		"<< /Nums [0 [9 0 R 10 0 R 11 0 R 12 0 R]] >>",
	}
	for i, it := range items {
		objs = append(objs, fmt.Sprintf("<< /Type /StructElem /S /%s /P 7 0 R /Pg 4 0 R /K %d >>", it.tag, i))
	}
	return buildPDF(objs, "")
}

// Headings come from the tagged structure where the PDF has one.
func TestPDFTaggedHeadings(t *testing.T) {
	sections := func(ld *Loaded) [][]string {
		var out [][]string
		for _, s := range ld.Segments {
			if !slices.ContainsFunc(out, func(p []string) bool { return slices.Equal(p, s.Section) }) {
				out = append(out, s.Section)
			}
		}
		return out
	}
	plain := loadBytes(t, "plain.pdf", taggedPDF(false))
	if got := sections(plain); len(got) != 1 || len(got[0]) != 0 {
		t.Errorf("untagged: sections %q, want none", got)
	}
	tagged := loadBytes(t, "tagged.pdf", taggedPDF(true))
	want := [][]string{{"Overview"}, {"Overview", "Details"}}
	if got := sections(tagged); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("tagged: sections %q, want %q", got, want)
	}
}

package ingest

import (
	"context"
	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
	"slices"
	"strings"
	"testing"
)

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
	ld := loadBytes(t, "paper.pdf", pdftest.TwoColumnPaper())
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
		// The arXiv stamp in the margin, turned a quarter, is read in its
		// own frame: a paragraph of its own after page 1's text.
		stamp := "arXiv:2305.14627v1 [cs.CL] 24 May 2023"
		at := strings.Index(ld.Text, "\n\n"+stamp+"\n\n")
		if at < 0 || at < strings.Index(ld.Text, "who looked at them.") || at > strings.Index(ld.Text, "2 Method") {
			t.Errorf("the arXiv stamp is not a paragraph after page 1's text:\n%s", ld.Text)
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
	var page []pdftest.Item
	page = append(page, pdftest.Item{X: 72, Y: 720, Size: 10, Text: "Introduction"})
	page = append(page, pdftest.Column(72, 700, 468,
		"Plain text opens the paper; the heading above is set like the body text.")...)
	page = append(page, pdftest.Item{X: 72, Y: 660, Size: 10, Text: "Method"})
	page = append(page, pdftest.Column(72, 640, 468,
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
	plain := loadBytes(t, "plain.pdf", pdftest.Paper([][]pdftest.Item{page}))
	if got := sections(plain); !slices.Equal(got, []string{""}) {
		t.Errorf("without an outline: sections %q, want none", got)
	}
	outlined := loadBytes(t, "outlined.pdf", pdftest.Outlined([][]pdftest.Item{page}, []pdftest.OutlineEntry{{Title: "Introduction", Page: 0}, {Title: "Method", Page: 0}}))
	if got := sections(outlined); !slices.Equal(got, []string{"Introduction", "Method"}) {
		t.Errorf("with an outline: sections %q, want [Introduction Method]", got)
	}
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
	plain := loadBytes(t, "plain.pdf", pdftest.Tagged(false))
	if got := sections(plain); len(got) != 1 || len(got[0]) != 0 {
		t.Errorf("untagged: sections %q, want none", got)
	}
	tagged := loadBytes(t, "tagged.pdf", pdftest.Tagged(true))
	want := [][]string{{"Overview"}, {"Overview", "Details"}}
	if got := sections(tagged); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("tagged: sections %q, want %q", got, want)
	}
}

// A PDF whose text is all sideways (a landscape page set on a portrait
// one) is read, not skipped as having no text, and its passages have
// boxes on the page.
func TestSidewaysPDFLoads(t *testing.T) {
	var page []pdftest.Item
	for i, l := range []string{
		"Every line of this page is drawn turned a quarter, as a",
		"landscape table is, so that it reads from the bottom up.",
	} {
		page = append(page, pdftest.Item{X: 100 + 14*float64(i), Y: 72, Size: 10, Turn: 1, Text: l})
	}
	ld := loadBytes(t, "sideways.pdf", pdftest.Paper([][]pdftest.Item{page}))
	s := segmentOf(t, ld, "as a landscape table is, so that it reads from the bottom up.")
	if s.From != 1 || s.To != 1 || len(ld.Segments[0].Boxes) == 0 {
		t.Errorf("segment on pages %d-%d with boxes %v", s.From, s.To, ld.Segments[0].Boxes)
	}
}

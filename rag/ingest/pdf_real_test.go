package ingest

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// pdfWords is the set of words a PDF draws (runs of characters between
// spaces and line breaks, lower case, letters only), and the set of words
// it breaks with a hyphen at a line end (without the hyphen).
func pdfWords(t *testing.T, path string) (words, broken map[string]bool) {
	t.Helper()
	out, err := testLoader(t).pdf.extract(context.Background(), mustRead(path))
	if err != nil {
		t.Fatal(err)
	}
	words, broken = map[string]bool{}, map[string]bool{}
	for _, p := range out.Pages {
		var w []rune
		end := func(lineEnd bool) {
			s := string(w)
			w = w[:0]
			if lineEnd && (strings.HasSuffix(s, "-") || strings.HasSuffix(s, "\x02")) {
				if f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }); len(f) > 0 {
					broken[strings.ToLower(f[len(f)-1])] = true
				}
				return
			}
			for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
				words[strings.ToLower(f)] = true
			}
		}
		for i, c := range p.chars {
			switch {
			case c.r == '\r' || c.r == '\n':
				end(true)
			case c.generated || c.r == ' ':
				end(false)
			case i > 0 && len(w) > 0 && !sameRow(c.y0, c.y1, p.chars[i-1].y0, p.chars[i-1].y1):
				end(true)
				w = append(w, c.r)
			default:
				w = append(w, c.r)
			}
		}
		end(true)
	}
	return words, broken
}

// pdfDefects counts what goes wrong in a PDF's passages.
type pdfDefects struct {
	glued     []string // two of the PDF's words run together ("ofthe")
	broken    []string // a word left broken at a line end ("hal- lucination")
	pageNums  int      // passages with a line that is only a page number
	splices   []string // a footnote run into body text
	headerHit int      // passages holding a running header
}

var (
	brokenRE = regexp.MustCompile(`\p{L}{2,}-\s+\p{Ll}{2,}`)
	spliceRE = regexp.MustCompile(`\p{L}[,.;:]?\s?\d{1,2}\s?(https?://|[A-Z][a-z]+ (that|we|the|is|are)\b)`)
	numLine  = regexp.MustCompile(`(?m)^\s*\d{1,3}\s*$`)
)

func countDefects(ld *Loaded, words, brk map[string]bool, header string) pdfDefects {
	var d pdfDefects
	for _, s := range ld.Segments {
		for _, f := range strings.FieldsFunc(s.Text, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
			w := strings.ToLower(f)
			if f != w || strings.Contains(w, "-") || words[w] || len(w) < 5 || strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
				continue // glued words are lower-case Latin ones ("ofthe")
			}
			r := []rune(w)
			mended := false // the rest of a word broken at a line end
			for k := 2; k < len(r); k++ {
				mended = mended || brk[string(r[:k])]
			}
			for k := 2; k <= len(r)-2 && !mended; k++ {
				a, b := string(r[:k]), string(r[k:])
				if words[a] && words[b] {
					d.glued = append(d.glued, f)
					break
				}
			}
		}
		d.broken = append(d.broken, brokenRE.FindAllString(s.Text, -1)...)
		if numLine.MatchString(s.Text) {
			d.pageNums++
		}
		for _, m := range spliceRE.FindAllString(s.Text, -1) {
			if !strings.HasPrefix(s.Text, strings.TrimLeftFunc(m, unicode.IsLetter)) {
				d.splices = append(d.splices, m)
			}
		}
		if header != "" && strings.Contains(s.Text, header) {
			d.headerHit++
		}
	}
	return d
}

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
	path := sharedPDF(t, "alce-gao2023-citations.pdf")
	ld := load(t, path)
	var got []string
	for _, s := range ld.Segments {
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
	words, brk := pdfWords(t, path)
	d := countDefects(ld, words, brk, "")
	if len(d.glued) > 0 || len(d.broken) > 0 || d.pageNums > 0 || len(d.splices) > 0 {
		t.Errorf("defects: glued %q, broken %q, page-number lines %d, footnote splices %q", d.glued, d.broken, d.pageNums, d.splices)
	}
}

func TestElegantPaperPageNumbers(t *testing.T) {
	for _, f := range []string{"elegantpaper-en.pdf", "elegantpaper-cn.pdf"} {
		t.Run(f, func(t *testing.T) {
			ld := load(t, sharedPDF(t, f))
			if !slices.Equal(ld.PageLabels, []string{"1", "2", "3", "4", "5"}) {
				t.Errorf("page labels %q", ld.PageLabels)
			}
			if d := countDefects(ld, nil, nil, ""); d.pageNums > 0 {
				t.Errorf("%d passages hold a page number line", d.pageNums)
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

// raisedMarks lists the footnote marks a PDF draws after a word, read
// from its characters: digits smaller than the character before them
// (a letter or closing punctuation, with no space between) and raised
// above its baseline, then not followed by a letter or digit. Each is
// given as the four characters before it and its digits ("Chat", "2").
func raisedMarks(t *testing.T, path string) [][2]string {
	t.Helper()
	out, err := testLoader(t).pdf.extract(context.Background(), mustRead(path))
	if err != nil {
		t.Fatal(err)
	}
	var marks [][2]string
	for _, p := range out.Pages {
		cs := p.chars
		for i := 1; i < len(cs); i++ {
			c, prev := cs[i], cs[i-1]
			h := prev.y1 - prev.y0
			if c.r < '0' || c.r > '9' || prev.generated || c.size > 0.85*prev.size || h <= 0 || c.y0 < prev.y0+0.2*h ||
				!unicode.IsLetter(prev.r) && !strings.ContainsRune(closingMarks, prev.r) {
				continue
			}
			j := i
			for j < len(cs) && cs[j].r >= '0' && cs[j].r <= '9' && abs32(cs[j].size-c.size) < 0.5 {
				j++
			}
			if j < len(cs) && !cs[j].generated && (unicode.IsLetter(cs[j].r) || unicode.IsDigit(cs[j].r)) {
				continue // an exponent inside a formula
			}
			var before []rune
			for k := i - 1; k >= 0 && len(before) < 4 && !cs[k].generated && !unicode.IsSpace(cs[k].r); k-- {
				before = append([]rune{cs[k].r}, before...)
			}
			digits := make([]rune, 0, j-i)
			for _, c := range cs[i:j] {
				digits = append(digits, c.r)
			}
			marks = append(marks, [2]string{string(before), string(digits)})
			i = j - 1
		}
	}
	return marks
}

// Raised footnote marks are written as superscripts after their word,
// never as digits glued to it ("Chat2").
func TestALCEFootnoteMarks(t *testing.T) {
	path := sharedPDF(t, "alce-gao2023-citations.pdf")
	ld := load(t, path)
	marks := raisedMarks(t, path)
	var glued, missing []string
	for _, m := range marks {
		if strings.Contains(ld.Text, m[0]+m[1]) {
			glued = append(glued, m[0]+m[1])
		}
		if !strings.Contains(ld.Text, m[0]+superscript(m[1])) {
			missing = append(missing, m[0]+superscript(m[1]))
		}
	}
	if len(marks) < 10 || len(glued) > 0 || len(missing) > 0 {
		t.Errorf("%d raised marks; glued to their word: %q; not written as superscripts: %q", len(marks), glued, missing)
	}
	t.Logf("%d raised marks: %q", len(marks), marks)
}

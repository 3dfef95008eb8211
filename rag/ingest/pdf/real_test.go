package pdf

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pdfWords is the set of words a PDF draws (runs of characters between
// spaces and line breaks, lower case, letters only), and the set of words
// it breaks with a hyphen at a line end (without the hyphen).
func pdfWords(t *testing.T, data []byte) (words, broken map[string]bool) {
	t.Helper()
	out, err := testEngine(t).extract(context.Background(), data)
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

// countDefects counts the defects of a Document's blocks.
func countDefects(doc *Document, words, brk map[string]bool, header string) pdfDefects {
	var d pdfDefects
	for _, s := range doc.Blocks {
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

// The ALCE paper's blocks have no glued or broken words, no page-number
// lines, and no footnote run into the body text.
func TestALCEDefects(t *testing.T) {
	doc, data := readShared(t, "alce-gao2023-citations.pdf")
	words, brk := pdfWords(t, data)
	d := countDefects(doc, words, brk, "")
	if len(d.glued) > 0 || len(d.broken) > 0 || d.pageNums > 0 || len(d.splices) > 0 {
		t.Errorf("defects: glued %q, broken %q, page-number lines %d, footnote splices %q", d.glued, d.broken, d.pageNums, d.splices)
	}
}

// No block of the ElegantPaper PDFs is a page number.
func TestElegantPaperNoPageNumberLines(t *testing.T) {
	for _, f := range []string{"elegantpaper-en.pdf", "elegantpaper-cn.pdf"} {
		doc, _ := readShared(t, f)
		if d := countDefects(doc, nil, nil, ""); d.pageNums > 0 {
			t.Errorf("%s: %d blocks are a page number line", f, d.pageNums)
		}
	}
}

// The ElegantPaper manuals' footnotes are footnotes, their marks apart
// from their text, although the manuals' code listings (9 pt, like the
// notes) outnumber their prose (11 pt) in characters; a listing's lines
// that begin with a number ("1.75***", "11 ,253***") stay in the body.
func TestElegantPaperFootnotes(t *testing.T) {
	for _, c := range []struct {
		file  string
		page  int
		notes []string
	}{
		{"elegantpaper-cn.pdf", 4, []string{"1 通过调用 gbt7714 宏包", "2 英文模式下，由于未加载中文宏包，无法输入中文。"}},
		{"elegantpaper-en.pdf", 1, []string{"1 with ctex package for Chinese fonts settings."}},
	} {
		doc, _ := readShared(t, c.file)
		var got []string
		for _, b := range doc.Blocks {
			if b.Kind == Footnote && b.Lines[0].Box.Page == c.page {
				got = append(got, b.Text)
			}
			if b.Kind == Footnote && regexp.MustCompile(`^[0-9]+ ?[.,]`).MatchString(b.Text) {
				t.Errorf("%s: a listing's line taken for a footnote: %q", c.file, b.Text)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.notes, "\n") {
			t.Errorf("%s p. %d: footnotes %q, want %q", c.file, c.page, got, c.notes)
		}
	}
}

// raisedMarks lists the footnote marks a PDF draws after a word, read
// from its characters: digits smaller than the character before them
// (a letter or closing punctuation, with no space between) and raised
// above its baseline, then not followed by a letter or digit. Each is
// given as the four characters before it and its digits ("Chat", "2").
func raisedMarks(t *testing.T, data []byte) [][2]string {
	t.Helper()
	out, err := testEngine(t).extract(context.Background(), data)
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
	doc, data := readShared(t, "alce-gao2023-citations.pdf")
	text := doc.text()
	marks := raisedMarks(t, data)
	var glued, missing []string
	for _, m := range marks {
		if strings.Contains(text, m[0]+m[1]) {
			glued = append(glued, m[0]+m[1])
		}
		if !strings.Contains(text, m[0]+superscript(m[1])) {
			missing = append(missing, m[0]+superscript(m[1]))
		}
	}
	if len(marks) < 10 || len(glued) > 0 || len(missing) > 0 {
		t.Errorf("%d raised marks; glued to their word: %q; not written as superscripts: %q", len(marks), glued, missing)
	}
	t.Logf("%d raised marks: %q", len(marks), marks)
}

package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// reasonNoPDFText is the skip reason for a PDF whose pages carry no text
// (scanned images, or text drawn as shapes).
const reasonNoPDFText = "no extractable text in this PDF (scanned pages or text drawn as images); run OCR on it first"

// loadPDF extracts a PDF's pages with pdfium and reads them as a paper
// (see layoutPDF): paragraphs in reading order joined by a blank line,
// sections from the outline or the headings, footnotes as sections of
// their own. Page i+1 starts at pageStarts[i].
func (l *Loader) loadPDF(ctx context.Context, path string, data []byte) (*parsed, error) {
	out, err := l.pdf.extract(ctx, data)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if errors.Is(err, errEngineStart) {
			return nil, err
		}
		return nil, skip(path, "%s", pdfReason(err))
	}
	if len(out.Pages) == 0 {
		return nil, skip(path, "PDF has no pages")
	}
	// Most text runs unmapped: what little comes out is fragments out of
	// order, worse than nothing for retrieval.
	if out.Unmapped > 0 && out.Unmapped*2 > out.TextObjects {
		return nil, skip(path, "no extractable text in this PDF (%d of %d text runs use fonts without a Unicode map); run OCR on it first", out.Unmapped, out.TextObjects)
	}
	lay, p, err := readPaper(out)
	if err != nil {
		return nil, skip(path, "unreadable PDF: %v", err)
	}
	if strings.TrimSpace(p.text) == "" {
		return nil, skip(path, "%s", reasonNoPDFText)
	}
	p.title, p.author = out.Title, out.Author
	if p.title == "" || generatedTitle(p.title) {
		p.title = lay.title
	}
	if p.title == "" {
		p.title = firstLineTitle(p.text[:pageEnd(p, 0)])
	}
	if p.author == "" {
		p.author = strings.Join(lay.authors, ", ")
	}
	p.heads = lay.heads
	return p, nil
}

// readPaper lays the pages out and writes the text; a bug in the layout
// on a strange file costs that file, not the run.
func readPaper(out *pdfText) (lay *pdfLayout, p *parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("layout failed: %v", r)
		}
	}()
	lay = layoutPDF(out.Pages, out.Outline)
	return lay, assemblePDF(lay), nil
}

// generatedTitle reports whether an Info title names the file or the
// program that made it ("Microsoft Word - paper.docx", "main.tex")
// rather than the paper.
func generatedTitle(t string) bool {
	l := strings.ToLower(t)
	for _, ext := range []string{".docx", ".doc", ".tex", ".pdf", ".dvi", ".odt", ".rtf", ".indd"} {
		if strings.HasSuffix(l, ext) {
			return true
		}
	}
	return strings.HasPrefix(l, "microsoft word - ") || l == "untitled"
}

func pageEnd(p *parsed, i int) int {
	if i+1 < len(p.pageStarts) {
		return p.pageStarts[i+1]
	}
	return len(p.text)
}

// assemblePDF writes a layout's paragraphs as text, one blank line apart,
// and finds the sections: each heading starts one (its path from the
// heading levels; a named heading such as References is top-level); the
// title, authors and abstract share the first section (path "Abstract"
// when there is one); each footnote is a section of its own under the
// current path, so it is a segment of its own.
func assemblePDF(lay *pdfLayout) *parsed {
	var b strings.Builder
	p := &parsed{pageStarts: make([]int, len(lay.pages)), pageLabels: lay.labels}
	set := make([]bool, len(lay.pages))
	startPage := func(pg, off int) {
		for k := 0; k <= pg && k < len(set); k++ {
			if !set[k] {
				p.pageStarts[k], set[k] = off, true
			}
		}
	}
	var stack, path []string
	secStart := 0
	newSection := func(at int, next []string) {
		if at > secStart {
			p.sections = append(p.sections, section{path: path, start: secStart, end: at})
		}
		secStart, path = at, next
	}
	headings := 0
	abstractAt := -1 // where the abstract's text begins, after its heading
	for _, para := range lay.paras {
		if strings.TrimSpace(para.text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		off := b.Len()
		startPage(para.first().page, off)
		switch para.kind {
		case paraHeading:
			t := para.text
			switch {
			case headings == 0 && abstractHeadings[strings.ToLower(t)] && para.first().page == 0:
				path = []string{t} // the front matter and the abstract are one section
				abstractAt = off + len(t)
			case isNamedHeading(t):
				stack = []string{t}
				newSection(off, slices.Clone(stack))
			default:
				d := min(max(para.level, 1), len(stack)+1)
				stack = append(stack[:d-1], t)
				newSection(off, slices.Clone(stack))
			}
			headings++
		case paraFootnote:
			newSection(off, path)
		}
		b.WriteString(para.text)
		p.lines = paraLines(p.lines, lay, para, off)
		for _, po := range para.pageOffs {
			startPage(po.page, off+po.off)
		}
		if para.kind == paraFootnote {
			newSection(b.Len(), path)
		}
	}
	startPage(len(lay.pages)-1, b.Len())
	p.text = b.String()
	newSection(len(p.text), nil)
	if abstractAt >= 0 {
		for _, sec := range p.sections {
			if sec.start <= abstractAt && abstractAt < sec.end {
				p.abstract = strings.TrimSpace(p.text[abstractAt:sec.end])
				break
			}
		}
	}
	return p
}

// firstLineTitle guesses a title from the first page when the Info
// dictionary has none: its first line, if it looks like a title.
func firstLineTitle(page string) string {
	for _, ln := range strings.Split(page, "\n") {
		ln = strings.Join(strings.Fields(ln), " ")
		if ln == "" {
			continue
		}
		n := utf8.RuneCountInString(ln)
		if n < 4 || n > 200 || strings.HasPrefix(strings.ToLower(ln), "arxiv:") || !strings.ContainsFunc(ln, unicode.IsLetter) {
			return ""
		}
		return ln
	}
	return ""
}

// headingNumber is a parsed section number: "2.1" is [2 1]; an appendix
// letter counts as its position in the alphabet ("B.2" is [2 2]) with
// appendix set.
type headingNumber struct {
	parts    []int
	appendix bool
}

// parseHeading reads a line like "2.1 Setup", "3 Results" or "B Proofs";
// ok is false for anything else. The title must start with a letter (not a
// lower-case Latin one), be at most 80 runes, and not end like a sentence.
func parseHeading(line string) (num headingNumber, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || utf8.RuneCountInString(line) > 80 {
		return num, false
	}
	numStr, title, found := strings.Cut(line, " ")
	if !found {
		return num, false
	}
	title = strings.TrimSpace(title)
	numStr = strings.TrimSuffix(numStr, ".")
	first, _ := utf8.DecodeRuneInString(title)
	if !unicode.IsLetter(first) || unicode.IsLower(first) || strings.ContainsAny(title[len(title)-1:], ".,;:") {
		return num, false
	}
	for i, f := range strings.Split(numStr, ".") {
		if i == 0 && len(f) == 1 && f[0] >= 'A' && f[0] <= 'Z' {
			num.appendix = true
			num.parts = append(num.parts, int(f[0]-'A')+1)
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || v > 99 || len(f) > 2 {
			return num, false
		}
		num.parts = append(num.parts, v)
	}
	return num, len(num.parts) > 0 && len(num.parts) <= 4
}

// follows reports whether n is a plausible next heading after cur (nil
// before the first): the next number at some level ("2" or "1.2" after
// "1.1"), or a first child ("1.1.1" after "1.1"). Appendices start at "A"
// after the numbered sections. Requiring this order weeds out table rows
// and numbered list items that look like headings.
func follows(cur *headingNumber, n headingNumber) bool {
	if cur == nil {
		return !n.appendix && len(n.parts) == 1 && n.parts[0] == 1
	}
	if n.appendix && !cur.appendix {
		return len(n.parts) == 1 && n.parts[0] == 1
	}
	if n.appendix != cur.appendix {
		return false
	}
	m := len(n.parts)
	if m > len(cur.parts)+1 {
		return false
	}
	for i := 0; i < m-1; i++ {
		if n.parts[i] != cur.parts[i] {
			return false
		}
	}
	if m == len(cur.parts)+1 {
		return n.parts[m-1] == 1
	}
	return n.parts[m-1] == cur.parts[m-1]+1
}

// namedHeadings are unnumbered headings that papers put on a line of their
// own; they start a top-level section without changing the numbering,
// whatever their style. Other back matter needs a style of its own (see
// backMatterHeadings).
var namedHeadings = map[string]bool{
	"abstract": true, "references": true, "bibliography": true,
	"acknowledgments": true, "acknowledgements": true, "acknowledgment": true,
	"acknowledgement": true, "appendix": true, "appendices": true, "摘要": true, "摘 要": true, "参考文献": true,
	"致谢": true, "附录": true, "要旨": true, "謝辞": true,
}

// abstractHeadings name an abstract; before any other heading on page 1,
// it joins the title and authors in the first section.
var abstractHeadings = map[string]bool{"abstract": true, "摘要": true, "摘 要": true, "要旨": true}

// isNamedHeading reports whether a whole line is one of namedHeadings
// (any case, any style).
func isNamedHeading(line string) bool {
	return namedHeadings[strings.ToLower(strings.TrimSpace(line))]
}

// backMatterHeadings are unnumbered headings of a paper's end matter,
// singular and plural. Body text can hold such a line too ("conclusion"
// alone at the end of a paragraph), so they count only when the font sets
// them apart (see isBackMatterHeading and markHeadings).
var backMatterHeadings = map[string]bool{
	"limitation": true, "limitations": true,
	"limitations and future work": true, "limitations and risks": true,
	"ethics statement": true, "ethical statement": true, "ethics": true,
	"ethical consideration": true, "ethical considerations": true, "ethics considerations": true,
	"broader impact": true, "broader impacts": true, "broader impact statement": true,
	"impact statement": true, "societal impact": true, "societal impacts": true,
	"acknowledgment": true, "acknowledgments": true, "acknowledgement": true, "acknowledgements": true,
	"conclusion": true, "conclusions": true, "concluding remarks": true,
	"conclusion and future work": true, "conclusions and future work": true,
	"discussion and conclusion": true, "discussion and conclusions": true,
	"future work": true, "appendix": true, "appendices": true,
	"supplementary material": true, "supplementary materials": true,
	"author contributions": true, "reproducibility statement": true,
	"funding": true, "competing interests": true, "declaration of competing interest": true,
	"data availability": true, "data availability statement": true,
}

// isBackMatterHeading reports whether a whole line is a back-matter
// heading: one of backMatterHeadings or ReferencesHeadings, capitalised ("Limitation",
// "LIMITATIONS", "Ethics Statement"), with nothing after it. A line that
// merely starts with such a word ("Limitations of this kind ...") is not
// one.
func isBackMatterHeading(line string) bool {
	line = strings.Join(strings.Fields(line), " ")
	r, _ := utf8.DecodeRuneInString(line)
	capital := unicode.IsUpper(r) || unicode.IsLetter(r) && !unicode.IsLower(r) // a script without case counts
	key := strings.ToLower(line)
	return capital && (backMatterHeadings[key] || isReferencesHeading(key))
}

// pdfSections splits a PDF's text at numbered headings found in reading
// order (see follows) and at named ones (References, Abstract, ...).
// Without any, the text is one section.
func pdfSections(text string) []section {
	var secs []section
	var cur *headingNumber
	var stack []string // heading lines by depth
	var path []string
	start := 0
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		line := text[ls:le]
		if isNamedHeading(line) {
			if ls > start {
				secs = append(secs, section{path: path, start: start, end: ls})
			}
			stack = []string{strings.TrimSpace(line)}
			path = append([]string(nil), stack...)
			start = ls
		} else if n, ok := parseHeading(line); ok && follows(cur, n) {
			if ls > start {
				secs = append(secs, section{path: path, start: start, end: ls})
			}
			d := len(n.parts)
			if d > len(stack) {
				d = len(stack) + 1
			}
			stack = append(stack[:d-1], strings.Join(strings.Fields(line), " "))
			path = append([]string(nil), stack...)
			nn := n
			cur = &nn
			start = ls
		}
		ls = le + 1
	}
	if start < len(text) {
		secs = append(secs, section{path: path, start: start, end: len(text)})
	}
	return secs
}

// errEngineStart marks a PDF engine that could not start: not the
// document's fault.
var errEngineStart = fmt.Errorf("PDF engine unavailable")

package pdf

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/store"
)

// Document is a PDF read as a paper: its pages, and its text as blocks in
// reading order with what each block is and where its lines are drawn.
//
// Invariants: Blocks are in reading order (a block broken by a column or
// page break is one block; the footnotes of a page come before any block
// that starts on a later page); every block has at least one line;
// Lines[0].Start == 0 and Start is nondecreasing and at most len(Text);
// every line's Box.Page is 1..len(Pages) and lies inside its page; Text
// holds no line break but between a table's rows. Text that is not the paper's (running headers and
// footers, page numbers, figure labels) is in no block. A Table block's
// rows are separated by a blank line ("\n\n") and its cells by " · ";
// it follows its caption.
type Document struct {
	// Title is the Info dictionary's title unless it names a file or the
	// program that made it, else the largest text at the top of page 1,
	// else page 1's first line when it reads like a title; "" when none.
	Title string
	// Author is the Info dictionary's author, else the names found under
	// the title, joined by ", ".
	Author string
	Pages  []Page
	Blocks []Block
	// RunningHeads are the running headers and footers taken out of the
	// text, each once, as first drawn, in page order.
	RunningHeads []string
}

// Page is one page of a Document.
type Page struct {
	Width, Height float32 // in PDF points
	// Label is the page number printed on the page ("vii", "7"), "" when
	// none was found; it is taken out of the text.
	Label string
	// OCR is set for a page without a text layer whose text Tesseract
	// read from its image (see OCR).
	OCR bool
}

// Kind says what a block is.
type Kind int

const (
	Body     Kind = iota // running text
	Heading              // a section heading; Block.Level is its depth
	Caption              // a figure's or table's caption ("Table 1: ...")
	Footnote             // one footnote, its mark first ("1 Our code ...")
	Title                // the paper's title on page 1
	Authors              // the author names under the title
	Table                // a table: rows separated by a blank line, cells by " · "
)

var kindNames = [...]string{"body", "heading", "caption", "footnote", "title", "authors", "table"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Block is a paragraph, a heading, a caption or a footnote.
type Block struct {
	Kind Kind
	// Level is a heading's depth, 1 outermost (from the outline, the tags
	// or the numbering; a named heading such as References or Abstract is
	// 1); 0 for other kinds.
	Level int
	// Text is the block's lines joined: words broken at a line end are
	// mended, cells of a table row are joined by " | ", a footnote's mark
	// is set apart from its text, raised footnote marks are superscript
	// digits.
	Text  string
	Lines []Line
	// Turned is text drawn turned a quarter from its page's text (the
	// arXiv stamp in the margin, a table or caption set sideways): read
	// after the page's text, in its own turn's reading order, and never
	// part of the page's paragraphs, so a loader keeps it apart.
	Turned bool
}

// Line is one visual line of a block.
type Line struct {
	// Start is where the line's text begins in Block.Text; the line runs
	// to the next line's Start (the last to the end of Text).
	Start int
	Box   store.Box // where it is drawn: 1-based page, top-left origin, points
	Flow  int       // 0 spans the page, 1.. the columns from the left
	Size  float32   // font size in points
}

// Page is the 0-based page the line is drawn on.
func (l Line) Page() int { return l.Box.Page - 1 }

// document turns a layout and the extracted Info into a Document.
func document(out *extracted, lay *layout) *Document {
	d := &Document{RunningHeads: lay.heads}
	for _, p := range lay.pages {
		d.Pages = append(d.Pages, Page{Width: p.pageW, Height: p.pageH, Label: p.label})
	}
	for _, para := range lay.paras {
		if len(para.lines) == 0 || len(para.lineOffs) != len(para.lines) {
			continue // paraText did not write it
		}
		b := Block{Kind: para.kind, Text: para.text, Turned: para.sideways}
		if para.kind == Heading {
			b.Level = para.level
			if isNamedHeading(para.text) {
				b.Level = 1
			}
		}
		for k, l := range para.lines {
			pg := lay.pages[l.page]
			x0, y0, x1, y1 := fromFrame(l.turn, pg.pageW, pg.pageH, l.x0, l.y0, l.x1, l.y1)
			b.Lines = append(b.Lines, Line{
				Start: para.lineOffs[k],
				Box:   box(l.page, pg.pageW, pg.pageH, x0, y0, x1, y1),
				Flow:  l.flow, Size: l.size,
			})
		}
		d.Blocks = append(d.Blocks, b)
	}
	d.Title, d.Author = out.Title, out.Author
	if d.Title == "" || generatedTitle(d.Title) {
		d.Title = lay.title
	}
	if d.Title == "" {
		d.Title = firstLineTitle(d.firstPageText())
	}
	if d.Author == "" {
		d.Author = strings.Join(lay.authors, ", ")
	}
	return d
}

// firstPageText is the text of the first block with text, up to the end
// of page 1, when it starts on page 1; "" otherwise.
func (d *Document) firstPageText() string {
	for _, b := range d.Blocks {
		if strings.TrimSpace(b.Text) == "" {
			continue
		}
		if b.Lines[0].Page() != 0 {
			return ""
		}
		for _, l := range b.Lines[1:] {
			if l.Page() != 0 {
				return b.Text[:l.Start]
			}
		}
		return b.Text
	}
	return ""
}

// box converts a rectangle in PDF user space (y up from the bottom of a
// page of the given size) on page (0-based) to a store.Box (y down from
// the top, 1-based page), clamped to the page.
func box(page int, width, height, x0, y0, x1, y1 float32) store.Box {
	clamp := func(v, hi float32) float32 { return min(max(v, 0), hi) }
	return store.Box{
		Page: page + 1,
		X0:   clamp(x0, width), Y0: clamp(height-y1, height),
		X1: clamp(x1, width), Y1: clamp(height-y0, height),
	}
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

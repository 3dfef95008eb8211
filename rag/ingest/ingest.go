// Package ingest reads files into documents and segments: the first step of
// ibid's flow (files ──load──▶ Document ──chunk──▶ Segment).
//
// A Loader turns one file (PDF, Markdown, plain text or HTML) into a
// store.Document, the document's full extracted text, and the segments that
// retrieval will hand to the model. Segments follow the document's
// structure: sections (Markdown headings, numbered PDF headings), then
// paragraphs, then sentences, packed up to a token budget and never across
// a section boundary. Every segment's Start/End are byte offsets into the
// text with Text[Start:End] == Segment.Text, so a viewer can show it in
// place.
//
// PDFs are read by the PDF engine in rag/ingest/pdf, which returns pages and
// blocks with their boxes; this package's PDF loader (pdf.go) only writes
// those blocks as text, sections and line boxes. A second binary format
// gets an engine package of its own beside pdf and an adapter here.
//
// Bad input never panics and never yields an empty document: Load returns a
// *SkipError with a one-line reason the user can act on. Hostile input
// costs time and memory in proportion to its size: ReadFile checks a file
// (type, size limit, head) before reading it, every step after is linear,
// and loading checks its context often enough to stop at once.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest/pdf"
	"github.com/ibid-dev/ibid/store"
)

// DefaultTokenBudget is the most tokens (cl100k_base) a segment holds.
const DefaultTokenBudget = 300

// Loader reads files into documents and segments.
//
// A Loader is safe for concurrent use by several goroutines. The PDF engine
// (pdfium compiled to WebAssembly) starts on the first PDF and is then
// reused; its compiled code is cached in the cache directory, if one was
// given, so later processes start fast. Close releases it.
type Loader struct {
	budget int
	pdf    *pdf.Engine
}

// NewLoader returns a Loader whose PDF engine keeps wazero's compilation
// cache in cacheDir (e.g. $XDG_CACHE_HOME/ibid/wazero); "" means no cache
// on disk (compiling pdfium then costs a few seconds per process).
func NewLoader(cacheDir string) *Loader {
	return &Loader{budget: DefaultTokenBudget, pdf: pdf.NewEngine(cacheDir)}
}

// Close releases the PDF engine. Load after Close fails for PDFs.
func (l *Loader) Close() error {
	return l.pdf.Close()
}

// SetOCR sets how the PDF engine reads pages without a text layer:
// Tesseract's languages (lang, "" for English) and the folder that keeps
// each page's words so that a page is read once (cacheDir, "" for none),
// and the resolution pages are rendered at for it (dpi, 0 for 300).
// Call it before the first Load.
func (l *Loader) SetOCR(lang, cacheDir string, dpi int) {
	l.pdf.SetOCR(pdf.OCR{Lang: lang, CacheDir: cacheDir, DPI: dpi})
}

// WithOCRProgress returns a context under which a Load reports the pages
// Tesseract has read of those the PDF needs read (done of total, from 0 of
// total when OCR begins), from one goroutine at a time.
func WithOCRProgress(ctx context.Context, fn func(done, total int)) context.Context {
	return pdf.WithOCRProgress(ctx, fn)
}

// RenderPage renders page (1-based) of the PDF at path as a PNG with
// marks (a passage's boxes) drawn over it, with the Loader's PDF engine:
// "the page as it looks". It has the shape of pdf.RenderFunc.
func (l *Loader) RenderPage(ctx context.Context, path string, page int, marks []store.Box) ([]byte, error) {
	return l.pdf.RenderPage(ctx, path, page, marks)
}

// Loaded is one file read and chunked.
//
// Invariants: Document.Segments == len(Segments) > 0; Segments[i].Index == i
// and Segments[i].ID == Document.ID+":"+i; no segment crosses a section
// boundary, except that a hierarchical parent holds the PDF footnotes
// that fall inside its text (Load makes each footnote a section of its
// own, under its surrounding heading path): no segment crosses a heading,
// and its Section is the heading path of all its text.
//
// Segments are passages, then index rows (the store's rule: a segment
// with Parent set is an index row, found in its parent's stead):
//
//   - Passages are the segments that are read and shown: Segments[0:P],
//     Parent == "", non-empty, Text[Start:End] == Segment.Text, in reading
//     order and not overlapping. Load and MakeSemantic leave only
//     passages (P == N).
//   - Index rows are Segments[P:N], each with Parent the ID of a passage
//     of the same document. A row with Text != "" has
//     Text[Start:End] == Segment.Text and lies inside its parent's span
//     (MakeHierarchical: the recursive chunks, in reading order); a row
//     with Text == "" (a generated question) indexes IndexText only.
//   - When there are index rows, Document.Meta[MetaPassages] is P in
//     decimal; consumers that walk passages stop at the first segment
//     with Parent set.
//   - IndexText, when set, is what keyword search indexes and what is
//     embedded instead of Text; it is never shown or cited.
//   - Boxes (PDF only): every segment with text has the rectangles
//     where its lines are drawn (setBoxes), and its PageStart..PageEnd
//     are the pages they are on; a segment without text, and every
//     segment of another format, has none.
//   - Document.Meta[MetaStrategy] names the strategy that made the
//     segments when it is not the default (Load sets none: recursive).
type Loaded struct {
	Document store.Document // ID, Path (absolute), Hash, Title, Author, URL, Date, Format, Pages, Segments; Added left 0
	Text     string         // the document's full extracted text
	Segments []store.Segment
	// PageStarts (PDF only) holds the byte offset in Text where each page
	// begins: page i+1 starts at PageStarts[i]. Pages are joined by a
	// blank line.
	PageStarts []int
	// Notes says what was changed or left out while loading, one line
	// each, for the user (e.g. base64 blobs dropped); nil when nothing.
	Notes []string
	// PageLabels (PDF only) holds the page number printed on each page
	// ("" where none was found); it is taken out of the text.
	PageLabels []string
	// sections are the document's sections as loaded (ordered, within
	// Text), so that re-chunking keeps to them; nil for a Loaded built
	// by hand, where runs of segments with the same Section stand in.
	sections []section
	// lines (PDF only) are where each line of Text is drawn (see
	// lineBox), so that every way of cutting Text into segments (Load,
	// MakeSemantic, MakeHierarchical, AddQuestions) gives each segment
	// its Boxes; nil for other formats and for a Loaded built by hand,
	// whose new segments then have none.
	lines []lineBox
}

// SkipError is a file that was not added, with a one-line reason for the
// user.
type SkipError struct {
	Path, Reason string
}

func (e *SkipError) Error() string { return e.Path + ": " + e.Reason }

func skip(path, format string, args ...any) *SkipError {
	return &SkipError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// Load reads, parses and chunks the file at path, read with ReadFile and
// the default Limits. Bad input (unreadable, not a regular file, too
// large, empty, binary, invalid UTF-8, unsupported type, corrupt or
// encrypted PDF, PDF without text) is reported as a *SkipError; other
// errors are the context's or the PDF engine's.
func (l *Loader) Load(ctx context.Context, path string) (*Loaded, error) {
	f, err := ReadFile(ctx, path, Limits{})
	if err != nil {
		return nil, err
	}
	return l.load(ctx, path, f.Data, f.Hash)
}

// LoadFile is Load for a file ReadFile has read.
func (l *Loader) LoadFile(ctx context.Context, f *File) (*Loaded, error) {
	return l.load(ctx, f.Path, f.Data, f.Hash)
}

// LoadBytes is Load for a file already read: data is the content of the
// file at path (the path names the document and, by its extension, the
// format). It lets a caller hash and load the same bytes.
func (l *Loader) LoadBytes(ctx context.Context, path string, data []byte) (*Loaded, error) {
	return l.load(ctx, path, data, "")
}

// load loads data, the content of the file at path, whose hash is hash
// ("" to compute it).
func (l *Loader) load(ctx context.Context, path string, data []byte, hash string) (*Loaded, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, skip(path, "cannot resolve path: %v", err)
	}
	if len(data) == 0 {
		return nil, skip(path, "empty file")
	}
	head := data
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	format, ok := Sniff(abs, head)
	if !ok {
		return nil, skip(path, "%s", unsupportedReason(abs, head))
	}
	if hash == "" {
		hash = HashBytes(data)
	}
	doc := store.Document{
		ID:     DocumentID(hash),
		Path:   abs,
		Hash:   hash,
		Format: format,
	}
	var p *parsed
	if format == store.FormatPDF {
		p, err = l.loadPDF(ctx, path, data)
	} else {
		p, err = parseTextFormat(ctx, path, format, data)
	}
	if err != nil {
		return nil, err
	}
	for i := range p.sections {
		for j, h := range p.sections[i].path {
			p.sections[i].path[j] = OneLine(h)
		}
	}
	segs, err := chunk(ctx, p.text, p.sections, p.pageStarts, l.budget)
	if err != nil {
		return nil, err
	}
	if len(segs) == 0 {
		if format == store.FormatPDF {
			return nil, skip(path, "%s", pdf.ReasonNoText)
		}
		return nil, skip(path, "no text (only front matter, markup or whitespace)")
	}
	setBoxes(segs, p.lines)
	for i := range segs {
		segs[i].DocumentID = doc.ID
		segs[i].Index = i
		segs[i].ID = doc.ID + ":" + strconv.Itoa(i)
	}
	// No field carries a line break or a control character (OneLine).
	doc.Title = OneLine(p.title)
	if doc.Title == "" {
		doc.Title = OneLine(FileTitle(abs))
	}
	doc.Author, doc.URL, doc.Date = OneLine(p.author), OneLine(p.url), OneLine(p.date)
	doc.Pages = len(p.pageStarts)
	doc.Segments = len(segs)
	if p.abstract != "" {
		doc.Meta = withMeta(doc.Meta, MetaAbstract, p.abstract)
	}
	if len(p.heads) > 0 {
		doc.Meta = withMeta(doc.Meta, MetaRunningHeads, strings.Join(p.heads, "\n"))
	}
	if len(p.ocrPages) > 0 {
		doc.Meta = withMeta(doc.Meta, MetaOCRPages, strings.Join(p.ocrPages, ","))
	}
	return &Loaded{Document: doc, Text: p.text, Segments: segs, PageStarts: p.pageStarts, Notes: p.notes, PageLabels: p.pageLabels, sections: p.sections, lines: p.lines}, nil
}

// parsed is a document's text and structure, before chunking.
//
// Invariants: sections are ordered, do not overlap and lie within text;
// pageStarts (PDF only) is increasing, pageStarts[0] == 0, and page i+1
// (1-based) begins at byte pageStarts[i]; lines (PDF only) are where the
// text's lines are drawn, as lineBox says.
type parsed struct {
	text                     string
	sections                 []section
	pageStarts               []int
	pageLabels               []string // PDF only: the number printed on each page, "" if none
	title, author, url, date string
	notes                    []string // see Loaded.Notes
	lines                    []lineBox
	abstract                 string   // PDF only: the abstract's text, when a heading names it
	heads                    []string // PDF only: running headers and footers taken out of the text
	ocrPages                 []string // PDF only: the pages (1-based) whose text Tesseract read
}

// section is a run of text under one heading path.
type section struct {
	path       []string // outermost first; empty before the first heading
	start, end int      // byte offsets in the text
}

// FileTitle is a path's file name without its extension: the title a
// document without one of its own is given.
func FileTitle(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// readReason is the user's one-line reason for a file that cannot be read.
func readReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied; check the file's permissions"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if pe.Err.Error() == "is a directory" {
			return "is a directory"
		}
		return "cannot read: " + pe.Err.Error()
	}
	return "cannot read: " + err.Error()
}

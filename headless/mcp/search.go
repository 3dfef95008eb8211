package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/retrieve"
	"github.com/ibid-dev/ibid/store"
)

// searchArgs are search's arguments.
type searchArgs struct {
	Query    string `json:"query" jsonschema:"what to look for: a question or keywords, in the documents' language"`
	K        int    `json:"k,omitempty" jsonschema:"how many passages to return, 1 to 50 (default 8)"`
	Document string `json:"document,omitempty" jsonschema:"only this document: its document_id (or the start of it) from list_documents, or a glob over its file path or name, such as *vaswani*.pdf"`
	Section  string `json:"section,omitempty" jsonschema:"only passages under a section whose heading contains this text, e.g. Results"`
	Pages    string `json:"pages,omitempty" jsonschema:"only passages on these pages: one page (7) or a range (3-5)"`
}

// passage is a passage as search and get_passage return it.
type passage struct {
	SegmentID  string   `json:"segment_id" jsonschema:"the passage's id: get_passage reads it with the text around it"`
	DocumentID string   `json:"document_id"`
	Title      string   `json:"title" jsonschema:"the document's title"`
	Authors    []string `json:"authors,omitempty" jsonschema:"the document's authors, where known"`
	Year       string   `json:"year,omitempty" jsonschema:"the document's year, where known"`
	Pages      string   `json:"pages,omitempty" jsonschema:"the pages the passage is on, as cited: p. 3 or pp. 3–4"`
	PageStart  int      `json:"page_start,omitempty"`
	PageEnd    int      `json:"page_end,omitempty"`
	Section    string   `json:"section,omitempty" jsonschema:"the headings the passage is under, outermost first"`
	Path       string   `json:"path,omitempty" jsonschema:"the file the document was read from"`
	URL        string   `json:"url,omitempty"`
	Text       string   `json:"text" jsonschema:"the passage's own words"`
	// Cut is true when Text was cut to textBytes: get_passage gives it whole.
	Cut bool `json:"cut,omitempty" jsonschema:"true when text was cut short: get_passage gives the whole passage"`
}

// hit is a search result: a passage with its rank and score.
type hit struct {
	Rank  int     `json:"rank"`
	Score float64 `json:"score" jsonschema:"the retrieval score: higher is better, comparable only within one search"`
	passage
}

// searchResult is search's answer.
type searchResult struct {
	Library  string `json:"library"`
	Passages []hit  `json:"passages"`
	Note     string `json:"note,omitempty"`
}

const (
	defaultK = 8
	// maxK bounds search's k: more passages than a model can read, and a
	// bound on the work and the output of one call.
	maxK = 50
	// textBytes bounds one passage's text in search's answer.
	textBytes = 8000
)

func (s *server) addSearch(srv *sdk.Server) {
	schema := mustSchema[searchArgs]()
	bound(schema, "k", 1, maxK, defaultK)
	sdk.AddTool(srv, &sdk.Tool{
		Name: "search",
		Description: fmt.Sprintf("Search the user's document library (%q) for passages about a query, best first. "+
			"Each passage comes with its segment_id (get_passage reads the text around it), the document's title, authors and year where known, "+
			"its pages and section, and its text. Use it to find evidence yourself; ask gives a ready answer with footnotes. "+
			"Filters narrow the search: document, section, pages.", s.cfg.LibraryName),
		InputSchema: schema,
		Annotations: readOnly("Search the library"),
	}, s.search)
}

func (s *server) search(ctx context.Context, _ *sdk.CallToolRequest, in searchArgs) (*sdk.CallToolResult, searchResult, error) {
	out := searchResult{Library: s.cfg.LibraryName, Passages: []hit{}}
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, out, fmt.Errorf("query is empty: give words to look for, e.g. \"attention without recurrence\"")
	}
	if in.K == 0 {
		in.K = defaultK
	}
	if in.K < 1 || in.K > maxK {
		return nil, out, fmt.Errorf("k %d: give a number of passages from 1 to %d", in.K, maxK)
	}
	opt := retrieve.Options{K: in.K, Neighbours: -1, Section: strings.TrimSpace(in.Section), Rerank: s.cfg.Options.Rerank, References: s.cfg.Options.References}
	if d := strings.TrimSpace(in.Document); d != "" {
		opt.Documents = []string{d}
	}
	var err error
	if opt.PageFrom, opt.PageTo, err = parsePages(in.Pages); err != nil {
		return nil, out, err
	}
	ps, err := s.cfg.Library.Search(ctx, query, opt)
	if err != nil {
		return nil, out, fmt.Errorf("couldn't search library %q: %w", s.cfg.LibraryName, err)
	}
	for i, p := range ps {
		out.Passages = append(out.Passages, hit{Rank: i + 1, Score: p.Score, passage: describePassage(p.Document, p.Segment, window(p))})
	}
	if len(ps) == 0 {
		out.Note = "no passage matches: try other words, or fewer filters (list_documents shows what the library holds)"
	}
	return nil, out, nil
}

// window is a passage's segments in reading order: the hit, and the hits
// merged with it.
func window(p retrieve.Passage) []store.Segment {
	if len(p.Context) == 0 {
		return []store.Segment{p.Segment}
	}
	return p.Context
}

// describePassage describes the passage of doc made of segs (in reading
// order, at least one), found as seg: its id and section are seg's (the
// hit a citation would point at), its text and pages all of segs'.
func describePassage(doc store.Document, seg store.Segment, segs []store.Segment) passage {
	out := passage{
		SegmentID: seg.ID, DocumentID: doc.ID, Title: rag.DocTitle(doc), Authors: authors(doc), Year: year(doc),
		Section: rag.SectionText(doc, seg.Section), Path: doc.Path, URL: doc.URL,
	}
	texts := make([]string, len(segs))
	for i, sg := range segs {
		texts[i] = strings.TrimSpace(sg.Text)
		if sg.PageStart > 0 && (out.PageStart == 0 || sg.PageStart < out.PageStart) {
			out.PageStart = sg.PageStart
		}
		out.PageEnd = max(out.PageEnd, sg.PageEnd)
	}
	if out.PageEnd <= out.PageStart {
		out.PageEnd = 0
	}
	out.Pages = rag.Pages(out.PageStart, out.PageEnd)
	out.Text = strings.Join(texts, "\n\n")
	if len(out.Text) > textBytes {
		out.Text, out.Cut = cut(out.Text, textBytes), true
	}
	return out
}

// cut is the start of s, at most n bytes, never inside a rune.
func cut(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// parsePages reads a page filter: "" (none), "7", or "3-5" (an en dash
// or spaces too).
func parsePages(s string) (from, to int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, nil
	}
	bad := fmt.Errorf("pages %q: give one page (7) or a range (3-5)", s)
	a, b, isRange := strings.Cut(strings.ReplaceAll(s, "–", "-"), "-")
	if from, err = strconv.Atoi(strings.TrimSpace(a)); err != nil || from < 1 {
		return 0, 0, bad
	}
	if !isRange {
		return from, from, nil
	}
	if to, err = strconv.Atoi(strings.TrimSpace(b)); err != nil || to < from {
		return 0, 0, bad
	}
	return from, to, nil
}

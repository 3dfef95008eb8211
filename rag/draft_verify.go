package rag

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ibid-dev/ibid/rag/bib"
	checker "github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
)

// DraftStatus is what `ibid verify DRAFT.md` found of one citation.
type DraftStatus string

const (
	// DraftSupported: a passage on the cited page (or, without a page,
	// anywhere in the work) supports the sentence.
	DraftSupported DraftStatus = "supported"
	// DraftPartial: the best passage supports part of the sentence.
	DraftPartial DraftStatus = "partial"
	// DraftUnsupported: no passage of the work supports the sentence.
	DraftUnsupported DraftStatus = "unsupported"
	// DraftWrongPage: the cited page does not support the sentence, and
	// another page of the work does (SupportPage).
	DraftWrongPage DraftStatus = "wrong_page"
	// DraftUnknownKey: no document of the library has the citekey.
	DraftUnknownKey DraftStatus = "unknown_key"
)

// Failed reports whether a citation with this status fails the check:
// unsupported, on a wrong page, or its key unknown (a partial support is
// reported but passes, as it does for an answer's footnote).
func (s DraftStatus) Failed() bool {
	return s == DraftUnsupported || s == DraftWrongPage || s == DraftUnknownKey
}

// DraftFinding is the check of one citation of a manuscript.
type DraftFinding struct {
	DraftCitation
	Status DraftStatus `json:"status"`
	// Verdict is the support checker's verdict on the passage reported
	// (for a wrong page, the page that supports it); "" for an unknown key.
	Verdict    checker.Verdict `json:"verdict,omitempty"`
	DocumentID string          `json:"document_id,omitempty"`
	Title      string          `json:"title,omitempty"`
	// SegmentID, Page and Sentence are the passage that supports the
	// sentence best, its page (0: none), and its sentence that does;
	// empty for an unknown key.
	SegmentID   string  `json:"segment_id,omitempty"`
	SupportPage int     `json:"support_page,omitempty"`
	Sentence    string  `json:"sentence,omitempty"`
	Score       float64 `json:"score"`
	Message     string  `json:"message"`
}

// Finding is f in the shape ibid verify reports every input in: a
// supported or partial citation is FindingOK (its Verdict says which),
// an unsupported one FindingUnsupported, and a wrong page and an unknown
// key their own kinds.
func (f DraftFinding) Finding() Finding {
	kind := FindingOK
	switch f.Status {
	case DraftUnsupported:
		kind = FindingUnsupported
	case DraftWrongPage:
		kind = FindingWrongPage
	case DraftUnknownKey:
		kind = FindingUnknownKey
	}
	return Finding{
		Kind: kind, Title: f.Title, SegmentID: f.SegmentID, Verdict: f.Verdict,
		Claim: f.Claim, Sentence: f.Sentence, Message: f.Message,
		Citekey: f.Key, Locator: f.Locator, Page: f.Page, PageEnd: f.PageEnd, Line: f.Line,
		DocumentID: f.DocumentID, SupportPage: f.SupportPage,
	}
}

// DraftLibrary is what checking a manuscript needs of a library
// (*library.Library has it).
type DraftLibrary interface {
	Documents(ctx context.Context) ([]store.Document, error)
	Segments(ctx context.Context, docID string) ([]store.Segment, error)
	Store() store.Store
}

// DraftOptions tune VerifyDraft.
type DraftOptions struct {
	// Pass, when not nil, judges again with a model the citations whose
	// lexical verdict is partial.
	Pass *checker.Pass
}

// VerifyDraft checks each citation of a manuscript against the library:
// the document whose citekey it names, and in it the passages of the
// cited page (every page, for a citation without one), for the one that
// supports the citing sentence best (rag/support). With a page: supported
// when a passage on it supports the sentence; a wrong page when it does
// not and a passage on another page does; else partial or unsupported as
// the cited page's best. Findings come in the citations' order.
func VerifyDraft(ctx context.Context, lib DraftLibrary, cites []DraftCitation, opt DraftOptions) ([]DraftFinding, error) {
	docs, err := lib.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("couldn't list the library's documents: %w", err)
	}
	byKey := map[string]store.Document{}
	byFold := map[string]store.Document{}
	for _, d := range docs {
		if k := d.Meta[bib.MetaCitekey]; k != "" {
			if _, dup := byKey[k]; !dup {
				byKey[k] = d
			}
			if _, dup := byFold[strings.ToLower(k)]; !dup {
				byFold[strings.ToLower(k)] = d
			}
		}
	}
	v := &draftVerifier{ctx: ctx, lib: lib, opt: opt, pages: map[string][]pageWindow{}, rarity: libraryRarity(ctx, lib.Store())}
	out := make([]DraftFinding, 0, len(cites))
	for _, c := range cites {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		f := DraftFinding{DraftCitation: c}
		doc, ok := byKey[c.Key]
		if !ok {
			doc, ok = byFold[strings.ToLower(c.Key)]
		}
		if !ok {
			f.Status = DraftUnknownKey
			f.Message = fmt.Sprintf("no document of the library has the citekey %q (add its bibliography: ibid add refs.bib)", c.Key)
			out = append(out, f)
			continue
		}
		f.DocumentID, f.Title = doc.ID, DocTitle(doc)
		if err := v.check(&f, doc); err != nil {
			return out, err
		}
		if k := doc.Meta[bib.MetaCitekey]; k != c.Key {
			f.Message += fmt.Sprintf(" (the library's citekey is %q: Pandoc may not find %q)", k, c.Key)
		}
		out = append(out, f)
	}
	return out, nil
}

// pageWindow is a stretch of a document checked as one passage: the
// segments of one page (or, in a document without pages, a few
// consecutive segments), analysed once.
type pageWindow struct {
	page int // 0 in a document without pages
	segs []store.Segment
	ev   *checker.Evidence
}

type draftVerifier struct {
	ctx    context.Context
	lib    DraftLibrary
	opt    DraftOptions
	pages  map[string][]pageWindow // document id → its windows
	rarity checker.Rarity
}

// windowSegments is how many consecutive segments make a window of a
// document without pages.
const windowSegments = 4

// windows are a document's windows: one per page, or runs of
// windowSegments segments overlapping by one.
func (v *draftVerifier) windows(doc store.Document) ([]pageWindow, error) {
	if w, ok := v.pages[doc.ID]; ok {
		return w, nil
	}
	segs, err := v.lib.Segments(v.ctx, doc.ID)
	if err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", DocTitle(doc), err)
	}
	segs = store.Passages(segs)
	var out []pageWindow
	paged := false
	for _, s := range segs {
		if s.PageStart > 0 {
			paged = true
			break
		}
	}
	if paged {
		byPage := map[int][]store.Segment{}
		for _, s := range segs {
			end := max(s.PageEnd, s.PageStart)
			for p := s.PageStart; p <= end && p > 0; p++ {
				byPage[p] = append(byPage[p], s)
			}
		}
		var pages []int
		for p := range byPage {
			pages = append(pages, p)
		}
		sort.Ints(pages)
		for _, p := range pages {
			out = append(out, pageWindow{page: p, segs: byPage[p]})
		}
	} else {
		for i := 0; i < len(segs); i += windowSegments - 1 {
			out = append(out, pageWindow{segs: segs[i:min(len(segs), i+windowSegments)]})
			if i+windowSegments >= len(segs) {
				break
			}
		}
	}
	for i := range out {
		out[i].ev = checker.Analyse(supportPassage(doc, out[i].segs))
	}
	v.pages[doc.ID] = out
	return out, nil
}

// verdictRank orders verdicts, best first.
func verdictRank(v checker.Verdict) int {
	switch v {
	case checker.Supported:
		return 3
	case checker.Partial:
		return 2
	case checker.Unchecked:
		return 1
	}
	return 0
}

// scored is a window's result for a claim.
type scored struct {
	w *pageWindow
	r checker.Result
}

func better(a, b scored) bool {
	if ra, rb := verdictRank(a.r.Verdict), verdictRank(b.r.Verdict); ra != rb {
		return ra > rb
	}
	return a.r.Score > b.r.Score
}

// check fills f's status from the document's windows.
func (v *draftVerifier) check(f *DraftFinding, doc store.Document) error {
	ws, err := v.windows(doc)
	if err != nil {
		return err
	}
	if len(ws) == 0 {
		f.Status, f.Message = DraftUnsupported, "the document has no text to check"
		return nil
	}
	if strings.TrimSpace(f.Claim) == "" {
		f.Status, f.Message = DraftPartial, "no sentence cites it, so nothing was checked"
		return nil
	}
	var onPage, anywhere *scored
	for i := range ws {
		s := scored{&ws[i], ws[i].ev.Check(f.Claim, v.rarity)}
		if anywhere == nil || better(s, *anywhere) {
			c := s
			anywhere = &c
		}
		if f.Page > 0 && ws[i].page >= f.Page && ws[i].page <= max(f.Page, f.PageEnd) {
			if onPage == nil || better(s, *onPage) {
				c := s
				onPage = &c
			}
		}
	}
	if err := v.refine(f.Claim, anywhere); err != nil {
		return err
	}
	if onPage != nil && onPage.w != anywhere.w {
		if err := v.refine(f.Claim, onPage); err != nil {
			return err
		}
	}
	paged := ws[0].page > 0
	switch {
	case f.Page > 0 && !paged:
		f.Message = "the document has no pages; checked against the whole work: "
		v.settle(f, *anywhere)
	case f.Page > 0 && onPage == nil:
		f.Message = fmt.Sprintf("the work has no page %s (its pages run %d–%d): ", pageText(f.Page, f.PageEnd), ws[0].page, ws[len(ws)-1].page)
		v.settle(f, *anywhere)
		if f.Status == DraftSupported || f.Status == DraftPartial {
			f.Status = DraftWrongPage
		}
	case f.Page > 0 && onPage.r.Verdict != checker.Supported && anywhere.r.Verdict == checker.Supported:
		v.settle(f, *anywhere)
		f.Status = DraftWrongPage
		f.Message = fmt.Sprintf("%s does not support it; p. %d does", pageText(f.Page, f.PageEnd), anywhere.w.page)
	case f.Page > 0:
		v.settle(f, *onPage)
	default:
		v.settle(f, *anywhere)
	}
	return nil
}

// refine runs the model pass, when there is one, on a partial result.
func (v *draftVerifier) refine(claim string, s *scored) error {
	if v.opt.Pass == nil || s == nil {
		return nil
	}
	r, err := v.opt.Pass.Refine(v.ctx, claim, s.w.ev, s.r)
	if err != nil {
		if v.ctx.Err() != nil {
			return v.ctx.Err()
		}
		return nil // the lexical verdict stands; the pass says why once
	}
	s.r = r
	return nil
}

// settle sets f's status, passage and message from s.
func (v *draftVerifier) settle(f *DraftFinding, s scored) {
	f.SegmentID, f.Sentence, f.Score = s.r.Segment, s.r.Sentence, s.r.Score
	f.SupportPage = s.w.page
	f.Verdict = s.r.Verdict
	where := "the work"
	if s.w.page > 0 {
		where = fmt.Sprintf("p. %d", s.w.page)
	}
	switch s.r.Verdict {
	case checker.Supported:
		f.Status = DraftSupported
		f.Message += where + " supports it"
	case checker.Partial, checker.Unchecked:
		f.Status = DraftPartial
		f.Message += where + " supports part of it"
	default:
		f.Status = DraftUnsupported
		f.Message += "no passage of " + strings.TrimPrefix(where, "the ")
		if f.Page > 0 && s.w.page > 0 {
			f.Message = "no passage of " + pageText(f.Page, f.PageEnd)
		}
		f.Message += " supports it"
		f.Sentence = ""
	}
}

// pageText is "p. 5" or "pp. 5–7".
func pageText(start, end int) string {
	if end > start {
		return Pages(start, end)
	}
	return Pages(start, start)
}

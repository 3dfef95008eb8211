package rag

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest"
	checker "github.com/ibid-dev/ibid/rag/support"
	"github.com/ibid-dev/ibid/store"
)

// This file verifies saved answers again against the library as it is
// now (`ibid verify`): for each footnote, is its document still there,
// unchanged, is the passage it cites where it was, and does the passage
// still support the sentence that cites it?

// SavedAnswer is one answer as it was saved: its events, as `ibid ask
// --format ndjson` writes them or as a conversation keeps a turn's.
type SavedAnswer struct {
	Label  string // how findings name it: "answer 2", or the question
	Events []Event
}

// ReadAnswers reads answers saved by `ibid ask --format ndjson`: one event
// per line; a done event ends an answer, and several answers may follow
// one another. A line that is not an event is an error naming its line.
func ReadAnswers(r io.Reader) ([]SavedAnswer, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []SavedAnswer
	var cur []Event
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if strings.TrimSpace(string(b)) == "" {
			continue
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("line %d is not an answer's event (ibid ask --format ndjson writes them): %w", line, err)
		}
		if e.Type == EventDone {
			out = append(out, SavedAnswer{Label: fmt.Sprintf("answer %d", len(out)+1), Events: cur})
			cur = nil
			continue
		}
		cur = append(cur, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(cur) > 0 { // cut off before its done event: still an answer
		out = append(out, SavedAnswer{Label: fmt.Sprintf("answer %d", len(out)+1), Events: cur})
	}
	if len(out) == 0 {
		return nil, errors.New("no answer in it: ibid ask --format ndjson writes one")
	}
	return out, nil
}

// ConversationAnswers are a saved conversation's answers, each labelled
// by its question.
func ConversationAnswers(c *Conversation) []SavedAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]SavedAnswer, len(c.Turns))
	for i, t := range c.Turns {
		out[i] = SavedAnswer{Label: fmt.Sprintf("answer %d (%s)", i+1, clipLine(t.Question, 60)), Events: t.Events}
	}
	return out
}

// VerifyLibrary is what verifying needs of a library: a segment by id, its
// documents, a document's segments (*library.Library has them).
type VerifyLibrary interface {
	Segment(ctx context.Context, id string) (store.Segment, store.Document, error)
	Documents(ctx context.Context) ([]store.Document, error)
	Segments(ctx context.Context, docID string) ([]store.Segment, error)
}

// FindingKind is what verify found of a footnote, worst first.
type FindingKind string

const (
	// FindingDeleted: the cited document is no longer in the library.
	FindingDeleted FindingKind = "deleted"
	// FindingChanged: the document's file changed (the library holds
	// another version at its path), or the cited passage's text did.
	FindingChanged FindingKind = "changed"
	// FindingMoved: the cited passage is in the document still, at
	// another segment (the document was indexed again).
	FindingMoved FindingKind = "moved"
	// FindingFlipped: the passage's verdict is not the one recorded.
	FindingFlipped FindingKind = "flipped"
	// FindingUnsupported: the passage does not support the sentence
	// that cites it (and did not when the answer was saved either, or
	// nothing was recorded).
	FindingUnsupported FindingKind = "unsupported"
	// FindingWrongPage: a manuscript's citation names a page that does
	// not support its sentence; another page of the work does
	// (Finding.SupportPage).
	FindingWrongPage FindingKind = "wrong_page"
	// FindingUnknownKey: no document of the library has a manuscript
	// citation's citekey.
	FindingUnknownKey FindingKind = "unknown_key"
	// FindingOK: nothing changed and the passage supports the claim
	// (Supported, Partial or Unchecked).
	FindingOK FindingKind = "ok"
)

// Finding is what verify found of one footnote, or of one citation of a
// manuscript (Citekey set; Answer and Number empty).
type Finding struct {
	Answer string      `json:"answer,omitempty"` // SavedAnswer.Label
	Number int         `json:"display_number,omitempty"`
	Kind   FindingKind `json:"status"`
	Title  string      `json:"title,omitempty"`
	// SegmentID is the segment cited (a manuscript's: the passage that
	// supports the sentence best); Now, when the passage moved, the
	// segment that holds it now.
	SegmentID string `json:"segment_id,omitempty"`
	Now       string `json:"segment_now,omitempty"`
	// Was is the verdict recorded with the answer ("" none); Verdict the
	// passage's verdict now ("" when the document is gone).
	Was      Verdict `json:"verdict_was,omitempty"`
	Verdict  Verdict `json:"verdict,omitempty"`
	Claim    string  `json:"claim,omitempty"`
	Sentence string  `json:"sentence,omitempty"` // the supporting sentence now
	Message  string  `json:"message"`
	// A manuscript's citation (DraftFinding.Finding): its citekey,
	// locator as written, page range and line; the document the key
	// names and the page whose passage SegmentID is.
	Citekey     string `json:"citekey,omitempty"`
	Locator     string `json:"locator,omitempty"`
	Page        int    `json:"page,omitempty"`
	PageEnd     int    `json:"page_end,omitempty"`
	Line        int    `json:"line,omitempty"`
	DocumentID  string `json:"document_id,omitempty"`
	SupportPage int    `json:"support_page,omitempty"`
}

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// Neighbours is how many segments on each side of the cited one make
	// the passage checked, as retrieval offers them (0: 1).
	Neighbours int
	// Pass, when not nil, judges again with a model the claims whose
	// lexical verdict is not clear-cut, as answering does.
	Pass *checker.Pass
}

// Verify checks every footnote of answers against lib as it is now and
// returns one finding per footnote, in order. A footnote is looked up by
// its segment id and its document; the segment's text is compared with
// the hash the citation recorded (SegmentHash) and, when it differs,
// looked for among the document's passages; the sentence that cites it
// (its support event's claim, else the answer's sentence around its
// first reference, Claim) is checked against the passage as it is now,
// and the verdict compared with the last one recorded.
func Verify(ctx context.Context, lib VerifyLibrary, answers []SavedAnswer, opt VerifyOptions) ([]Finding, error) {
	if opt.Neighbours <= 0 {
		opt.Neighbours = 1
	}
	v := &verifier{ctx: ctx, lib: lib, opt: opt, rarity: libraryRarity(ctx, lib)}
	var out []Finding
	for _, a := range answers {
		fs, err := v.answer(a)
		if err != nil {
			return out, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

type verifier struct {
	ctx    context.Context
	lib    VerifyLibrary
	opt    VerifyOptions
	rarity checker.Rarity
	docs   []store.Document // read once, when a segment is missing
	byDoc  map[string]*docPassages
}

// docPassages are a document's passages, read and hashed once per Verify
// however many footnotes cite it.
type docPassages struct {
	segs   []store.Segment
	hashes map[string]int // SegmentHash → the first passage with it; made on first use
}

// find is the index of the first passage whose text has hash (a
// SegmentHash), or -1; "" finds none.
func (d *docPassages) find(hash string) int {
	if hash == "" {
		return -1
	}
	if d.hashes == nil {
		d.hashes = make(map[string]int, len(d.segs))
		for i := len(d.segs) - 1; i >= 0; i-- {
			d.hashes[SegmentHash(d.segs[i].Text)] = i
		}
	}
	if i, ok := d.hashes[hash]; ok {
		return i
	}
	return -1
}

func (v *verifier) answer(a SavedAnswer) ([]Finding, error) {
	var text strings.Builder
	firstRef := map[int]int{}
	verdicts := Verdicts{}
	var sources []Source
	for _, e := range a.Events {
		switch e.Type {
		case EventText:
			text.WriteString(e.Text)
		case EventRef:
			if _, ok := firstRef[e.Number]; !ok && !e.Inferred {
				firstRef[e.Number] = text.Len()
			}
		case EventCitation:
			if e.Source != nil && !e.Source.Inferred {
				sources = append(sources, *e.Source)
			}
		case EventSupport:
			verdicts.Add(e)
		}
	}
	var out []Finding
	for _, src := range sources {
		f := Finding{Answer: a.Label, Number: src.Number, Title: src.Title, SegmentID: src.SegmentID}
		claim := ""
		if s := verdicts[src.Number]; s != nil {
			f.Was, claim = s.Verdict, s.Claim
		}
		if at, ok := firstRef[src.Number]; ok && claim == "" {
			claim = Claim(text.String(), at)
		}
		f.Claim = claim
		if err := v.footnote(&f, src); err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

// footnote fills f for the footnote of src.
func (v *verifier) footnote(f *Finding, src Source) error {
	seg, doc, err := v.lib.Segment(v.ctx, src.SegmentID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return v.missing(f, src)
	case err != nil:
		return fmt.Errorf("couldn't read segment %s: %w", src.SegmentID, err)
	}
	dp, err := v.passages(doc.ID)
	if err != nil {
		return err
	}
	segs := dp.segs
	at := indexOf(segs, seg.ID)
	if src.SegmentHash != "" && SegmentHash(seg.Text) != src.SegmentHash {
		if moved, err := v.moved(f, doc, dp, src.SegmentHash); moved {
			return err
		}
		f.Kind = FindingChanged
		f.Message = fmt.Sprintf("segment %s holds other text now (the document was indexed again and the passage is not in it as it was)", src.SegmentID)
		if at < 0 {
			return nil
		}
		return v.check(f, doc, segs, at)
	}
	if at < 0 { // an index row: check it alone
		segs, at = []store.Segment{seg}, 0
	}
	return v.check(f, doc, segs, at)
}

// moved fills f, and reports true, when doc (read into dp) holds the
// passage with hash at another segment: the document was indexed again.
func (v *verifier) moved(f *Finding, doc store.Document, dp *docPassages, hash string) (bool, error) {
	at := dp.find(hash)
	if at < 0 {
		return false, nil
	}
	f.Kind, f.Now = FindingMoved, dp.segs[at].ID
	f.Message = fmt.Sprintf("the passage cited is now segment %s (the document was indexed again)", dp.segs[at].ID)
	return true, v.check(f, doc, dp.segs, at)
}

// missing fills f for a footnote whose segment is gone: its document is
// gone too, or the library holds another version of its file.
func (v *verifier) missing(f *Finding, src Source) error {
	if v.docs == nil {
		docs, err := v.lib.Documents(v.ctx)
		if err != nil {
			return fmt.Errorf("couldn't list the library's documents: %w", err)
		}
		v.docs = docs
	}
	for _, d := range v.docs {
		switch {
		case d.ID == src.DocumentID:
			dp, err := v.passages(d.ID)
			if err != nil {
				return err
			}
			if moved, err := v.moved(f, d, dp, src.SegmentHash); moved {
				return err
			}
			f.Kind = FindingChanged
			f.Message = fmt.Sprintf("segment %s is gone from its document (indexed again); the passage was not found as it was", src.SegmentID)
			return v.bestOf(f, d, dp.segs)
		case src.Path != "" && d.Path == src.Path:
			dp, err := v.passages(d.ID)
			if err != nil {
				return err
			}
			segs := dp.segs
			f.Kind = FindingChanged
			f.Message = fmt.Sprintf("%s changed since the answer (the library holds another version of it)", src.Path)
			if at := dp.find(src.SegmentHash); at >= 0 {
				f.Now = segs[at].ID
				f.Message += fmt.Sprintf("; the passage cited is unchanged, at segment %s", segs[at].ID)
				return v.check(f, d, segs, at)
			}
			return v.bestOf(f, d, segs)
		}
	}
	f.Kind = FindingDeleted
	where := cmp.Or(src.Path, src.URL, src.DocumentID)
	f.Message = fmt.Sprintf("%s is no longer in the library", where)
	return nil
}

// check checks f's claim against the passage of segs[at] and its
// neighbours, and sets f's verdict and, when nothing worse was found, its
// kind.
func (v *verifier) check(f *Finding, doc store.Document, segs []store.Segment, at int) error {
	lo, hi := max(0, at-v.opt.Neighbours), min(len(segs), at+v.opt.Neighbours+1)
	return v.judge(f, doc, segs[lo:hi])
}

// bestOf checks f's claim against the whole document (segs), for a
// passage that is not where it was.
func (v *verifier) bestOf(f *Finding, doc store.Document, segs []store.Segment) error {
	if len(segs) == 0 {
		return nil
	}
	return v.judge(f, doc, segs)
}

func (v *verifier) judge(f *Finding, doc store.Document, segs []store.Segment) error {
	if f.Claim == "" {
		f.Verdict = Unchecked
		v.settle(f)
		return nil
	}
	e := checker.Analyse(supportPassage(doc, segs))
	r := e.Check(f.Claim, v.rarity)
	if v.opt.Pass != nil {
		if r2, err := v.opt.Pass.Refine(v.ctx, f.Claim, e, r); err == nil {
			r = r2
		} else if v.ctx.Err() != nil {
			return v.ctx.Err()
		}
	}
	f.Verdict, f.Sentence = r.Verdict, r.Sentence
	v.settle(f)
	return nil
}

// settle gives f its kind from its verdicts when nothing worse was found.
func (v *verifier) settle(f *Finding) {
	switch {
	case f.Kind != "":
		if f.Was != "" && f.Verdict != f.Was {
			f.Message += fmt.Sprintf("; its verdict was %s, now %s", f.Was, f.Verdict)
		}
	case f.Was != "" && f.Verdict != f.Was:
		f.Kind = FindingFlipped
		f.Message = fmt.Sprintf("its verdict was %s, now %s", f.Was, f.Verdict)
	case f.Verdict == Unsupported:
		f.Kind = FindingUnsupported
		f.Message = "the passage cited does not support the sentence that cites it"
	default:
		f.Kind = FindingOK
		f.Message = "unchanged, " + string(f.Verdict)
	}
}

// passages are the passages of document id (its index rows left out), in
// reading order, read once.
func (v *verifier) passages(id string) (*docPassages, error) {
	if dp, ok := v.byDoc[id]; ok {
		return dp, nil
	}
	segs, err := v.lib.Segments(v.ctx, id)
	if err != nil {
		return nil, fmt.Errorf("couldn't read document %s: %w", id, err)
	}
	if v.byDoc == nil {
		v.byDoc = map[string]*docPassages{}
	}
	dp := &docPassages{segs: store.Passages(segs)}
	v.byDoc[id] = dp
	return dp, nil
}

func indexOf(segs []store.Segment, id string) int {
	for i, s := range segs {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// SegmentHash is a citation's hash of its segment's text (Source's
// SegmentHash): hex SHA-256.
func SegmentHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:])
}

// supportPassage is the passage segs of doc as the support check reads
// it: the segments, and the document's title and the sections' headings,
// which are never evidence.
func supportPassage(doc store.Document, segs []store.Segment) checker.Passage {
	p := checker.Passage{Headings: []string{DocTitle(doc)}}
	seen := map[string]bool{}
	for _, s := range segs {
		p.Segments = append(p.Segments, checker.Segment{ID: s.ID, Text: s.Text})
		for _, h := range s.Section {
			if !seen[h] {
				seen[h] = true
				p.Headings = append(p.Headings, h)
			}
		}
	}
	return p
}

// libraryRarity weighs terms by their idf in lib, when lib can count
// them (store.TermCounter); nil (all alike) otherwise. A claim checked
// against many passages (a manuscript's citation, page window by page
// window) asks the library once: the weights are kept by the claim's
// terms. Not for concurrent use.
func libraryRarity(ctx context.Context, lib any) checker.Rarity {
	tc, ok := lib.(store.TermCounter)
	if !ok {
		return nil
	}
	known := map[string][]float64{}
	return func(terms []string) []float64 {
		key := strings.Join(terms, "\x00")
		if w, ok := known[key]; ok {
			return w
		}
		df, n, err := tc.DocFreq(ctx, terms)
		if err != nil || len(df) != len(terms) || n <= 0 {
			return nil
		}
		w := make([]float64, len(terms))
		for i, d := range df {
			w[i] = checker.IDF(d, n)
		}
		known[key] = w
		return w
	}
}

func clipLine(s string, n int) string {
	return ingest.Clip(oneLine(s), n)
}

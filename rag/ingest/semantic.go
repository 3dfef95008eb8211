package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/store"
)

// Embed returns one vector per text, in order, all of one dimension. It is
// how the semantic strategy sees what a sentence is about.
type Embed func(ctx context.Context, texts []string) ([][]float32, error)

// DefaultBreakpointPercentile is where the semantic strategy cuts: between
// adjacent sentences whose cosine distance is above this percentile of
// the document's distances (LangChain SemanticChunker's default).
const DefaultBreakpointPercentile = 95.0

// embedBatch is how many texts one call to Embed is given at most.
const embedBatch = 256

// MakeSemantic is MakeSemanticPercentile at DefaultBreakpointPercentile.
func MakeSemantic(ctx context.Context, l *Loaded, embed Embed, budget int) error {
	return MakeSemanticPercentile(ctx, l, embed, budget, DefaultBreakpointPercentile)
}

// MakeSemanticPercentile re-chunks l, whose segments are plain chunks
// (what Load returns), where the topic changes: each section is split
// into sentences (Sentences: none ends inside a fenced code block or an
// inline code span), every sentence is embedded (embedBatch texts per
// call to embed), and a segment ends between two adjacent sentences of a
// section whose cosine distance is above the given percentile (in
// (0, 100]; linear interpolation, as numpy's) of all such distances in
// the document, and wherever the next sentence would take it over budget
// tokens (≤ 0 means DefaultTokenBudget). No segment crosses a section. A
// sentence over budget is split as the recursive chunker splits an
// over-long unit (lines, then pieces cut on rune boundaries), and its
// pieces are embedded as sentences.
//
// The result keeps every invariant of Loaded, with only passages: ids
// and indexes renumbered in reading order, Text[Start:End] ==
// Segment.Text, trimmed, not empty, within budget, pages from
// PageStarts (for a PDF, the pages its boxes are on), boxes where the
// text is drawn (PDFs only, as Load's: see setBoxes); Document.Segments is updated and Document.Meta records
// MetaStrategy ("semantic").
//
// On error (embed's, a reply of the wrong shape, ctx's, or l already
// holding index rows) l is left unchanged.
func MakeSemanticPercentile(ctx context.Context, l *Loaded, embed Embed, budget int, percentile float64) error {
	if budget <= 0 {
		budget = DefaultTokenBudget
	}
	if !(percentile > 0 && percentile <= 100) {
		return fmt.Errorf("semantic chunking: breakpoint percentile %v is not in (0, 100]", percentile)
	}
	if embed == nil {
		return errors.New("semantic chunking: no embedder")
	}
	for _, s := range l.Segments {
		if s.Parent != "" {
			return errors.New("semantic chunking: the document already has index rows; re-chunk it from Load's segments")
		}
	}
	runs := sectionRuns(l)
	units := make([][]unit, len(runs)) // the sentences (or their pieces) of each run
	var texts []string
	for r, run := range runs {
		first, last := l.Segments[run.Start], l.Segments[run.End-1]
		// From the start of the first line, so that its indentation
		// counts in telling a fence from indented code (but not into the
		// run before).
		start := strings.LastIndexByte(l.Text[:first.Start], '\n') + 1
		if run.Start > 0 {
			start = max(start, l.Segments[run.Start-1].End)
		}
		for _, sp := range sentences(l.Text, start, last.End) {
			var err error
			if units[r], err = appendUnits(ctx, units[r], l.Text, sp, budget, 1); err != nil {
				return err
			}
		}
		for _, u := range units[r] {
			texts = append(texts, l.Text[u.start:u.end])
		}
	}
	vecs, err := embedAll(ctx, embed, texts)
	if err != nil {
		return err
	}
	// dist[r][k] is the cosine distance between units k and k+1 of run r.
	dist := make([][]float64, len(runs))
	var all []float64
	v := 0
	for r := range runs {
		for k := 1; k < len(units[r]); k++ {
			d := 1 - cosine(vecs[v+k-1], vecs[v+k])
			dist[r] = append(dist[r], d)
			all = append(all, d)
		}
		v += len(units[r])
	}
	threshold := math.Inf(1)
	if len(all) > 0 {
		threshold = percentileOf(all, percentile)
	}
	var segs []store.Segment
	for r, run := range runs {
		sec := l.Segments[run.Start].Section
		us := units[r]
		for g := 0; g < len(us); {
			if err := ctx.Err(); err != nil {
				return err
			}
			ge := g + 1 // the topic group us[g:ge]
			for ge < len(us) && dist[r][ge-1] <= threshold {
				ge++
			}
			for i := g; i < ge; {
				j := i + packEnd(l.Text, us[i:ge], 0, budget)
				start, end := us[i].start, us[j].end
				seg := store.Segment{
					DocumentID: l.Document.ID,
					Text:       l.Text[start:end],
					Section:    slices.Clone(sec),
					Start:      start,
					End:        end,
				}
				if len(l.PageStarts) > 0 {
					seg.PageStart = pageAt(l.PageStarts, start)
					seg.PageEnd = pageAt(l.PageStarts, end-1)
				}
				segs = append(segs, seg)
				i = j + 1
			}
			g = ge
		}
	}
	setBoxes(segs, l.lines)
	for i := range segs {
		segs[i].Index = i
		segs[i].ID = l.Document.ID + ":" + strconv.Itoa(i)
	}
	l.Segments = segs
	l.Document.Segments = len(segs)
	l.Document.Meta = withMeta(l.Document.Meta, MetaStrategy, string(Semantic))
	return nil
}

// embedAll embeds texts in batches of embedBatch, checking ctx between
// calls, and checks the reply: one vector per text, one dimension, finite
// values.
func embedAll(ctx context.Context, embed Embed, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for b := 0; b < len(texts); b += embedBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		batch := texts[b:min(b+embedBatch, len(texts))]
		vecs, err := embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("semantic chunking: embedding sentences: %w", err)
		}
		if len(vecs) != len(batch) {
			return nil, fmt.Errorf("semantic chunking: the embedder returned %d vectors for %d sentences", len(vecs), len(batch))
		}
		out = append(out, vecs...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, checkVectors(out)
}

// checkVectors reports vectors of different or zero dimension, or with a
// value that is not finite.
func checkVectors(vecs [][]float32) error {
	for i, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("semantic chunking: the embedder returned an empty vector (sentence %d)", i+1)
		}
		if len(v) != len(vecs[0]) {
			return fmt.Errorf("semantic chunking: the embedder returned vectors of dimensions %d and %d", len(vecs[0]), len(v))
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("semantic chunking: the embedder returned a value that is not a number (sentence %d)", i+1)
			}
		}
	}
	return nil
}

// cosine is the cosine similarity of a and b (of one dimension); 0 when
// either is zero (as scikit-learn has it, which LangChain uses).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// percentileOf is the p-th percentile (0 < p ≤ 100) of xs, not empty, by
// linear interpolation between closest ranks (numpy's default). It sorts
// a copy.
func percentileOf(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(rank))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (rank-float64(lo))*(s[lo+1]-s[lo])
}

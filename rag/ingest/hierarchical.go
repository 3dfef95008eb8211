package ingest

import (
	"maps"
	"slices"
	"strconv"

	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

// DefaultParentBudget is the most tokens (cl100k_base, as tokens.Count
// counts them) a parent of the hierarchical strategy holds.
const DefaultParentBudget = 2000

// MakeHierarchical rewrites l, whose segments are plain chunks (what Load
// or MakeSemantic leave), into the hierarchical layout: parents that are
// read, then the chunks as index rows that are searched.
//
// Parents come first (Index 0..P-1): each is a run of consecutive chunks
// of one section (chunks with the same Section path: a PDF footnote, which
// Load makes a section of its own so that no chunk splices it into the
// body, stays in the parent where it falls in reading order rather than
// cutting its section's body text into small parents), its span Text[first.Start:last.End] (so Text[Start:End]
// == Segment.Text holds), its pages and section those of its chunks. Every
// chunk is then an index row (Index P..N-1, in reading order) whose Parent
// is the ID of the parent that holds it; its text, offsets and boxes are
// unchanged, so it lies inside its parent exactly. A parent's Boxes are
// where its text is drawn (PDFs only), as Load's segments' are. Every passage of a
// hierarchical document is a parent: a section of one small chunk is a
// parent with one child. IDs are renumbered, Document.Segments is N,
// Document.Meta records MetaPassages (P) and MetaStrategy
// ("hierarchical").
//
// A parent holds at most parentBudget tokens (≤ 0 means
// DefaultParentBudget), unless one chunk alone holds more. Parents are
// balanced: a section is cut into as few parents as the budget allows,
// and among those cuts the one whose largest parent is smallest, so a
// section of 2,100 tokens gives two parents of about 1,050 rather than
// 2,000 and 100 (a small last parent would give the model little
// context around the rows that lead to it).
//
// It panics if a segment of l already has Parent set: that Loaded is
// already laid out with index rows, and calling it is a bug.
func MakeHierarchical(l *Loaded, parentBudget int) {
	if parentBudget <= 0 {
		parentBudget = DefaultParentBudget
	}
	chunks := l.Segments
	for _, s := range chunks {
		if s.Parent != "" {
			panic("ingest: MakeHierarchical on a document that already has index rows")
		}
	}
	docID := l.Document.ID
	var parents []store.Segment
	owner := make([]int, len(chunks)) // the parent of each chunk
	for _, run := range pathRuns(l.Segments) {
		for _, g := range groupChunks(l.Text, chunks[run.Start:run.End], parentBudget) {
			first, last := chunks[run.Start+g.Start], chunks[run.Start+g.End-1]
			for k := g.Start; k < g.End; k++ {
				owner[run.Start+k] = len(parents)
			}
			parents = append(parents, store.Segment{
				DocumentID: docID,
				Text:       l.Text[first.Start:last.End],
				Section:    slices.Clone(first.Section),
				PageStart:  first.PageStart,
				PageEnd:    last.PageEnd,
				Start:      first.Start,
				End:        last.End,
			})
		}
	}
	segs := make([]store.Segment, 0, len(parents)+len(chunks))
	segs = append(segs, parents...)
	segs = append(segs, chunks...)
	for i := range segs {
		segs[i].Index = i
		segs[i].ID = docID + ":" + strconv.Itoa(i)
	}
	for k := range chunks {
		segs[len(parents)+k].Parent = segs[owner[k]].ID
	}
	setBoxes(segs[:len(parents)], l.lines)
	l.Segments = segs
	l.Document.Segments = len(segs)
	l.Document.Meta = withMeta(l.Document.Meta, MetaStrategy, string(Hierarchical))
	l.Document.Meta[MetaPassages] = strconv.Itoa(len(parents))
}

// withMeta is a copy of meta (nil makes a new map) with key set to value.
func withMeta(meta map[string]string, key, value string) map[string]string {
	out := maps.Clone(meta)
	if out == nil {
		out = map[string]string{}
	}
	out[key] = value
	return out
}

// sectionRuns cuts l's segments into runs that share a section: each run
// is a range [Start, End) of indexes into l.Segments. The sections are
// those Load found; for a Loaded built by hand (or one whose segments do
// not fit them), runs of segments with the same Section path stand in.
func sectionRuns(l *Loaded) []Span {
	if runs, ok := runsBySpan(l.Segments, l.sections); ok {
		return runs
	}
	return pathRuns(l.Segments)
}

// pathRuns cuts segs into maximal runs of segments with the same Section
// path, as ranges [Start, End) of indexes.
func pathRuns(segs []store.Segment) []Span {
	var runs []Span
	for i, s := range segs {
		if i == 0 || !slices.Equal(s.Section, segs[i-1].Section) {
			runs = append(runs, Span{i, i})
		}
		runs[len(runs)-1].End = i + 1
	}
	return runs
}

// runsBySpan groups segs (in reading order) by the section whose span
// holds them; ok is false if a segment lies in no single section.
func runsBySpan(segs []store.Segment, secs []section) (runs []Span, ok bool) {
	if len(secs) == 0 {
		return nil, false
	}
	k, prev := 0, -1
	for i, s := range segs {
		for k < len(secs) && secs[k].end <= s.Start {
			k++
		}
		if k == len(secs) || s.Start < secs[k].start || s.End > secs[k].end {
			return nil, false
		}
		if k != prev {
			runs = append(runs, Span{i, i})
			prev = k
		}
		runs[len(runs)-1].End = i + 1
	}
	return runs, true
}

// groupChunks cuts chunks (consecutive chunks of one section of text)
// into groups of at most budget tokens each (a chunk over budget is a
// group of its own), balanced as MakeHierarchical says: the fewest groups
// the budget allows, with the largest as small as it can be. Groups are
// ranges [Start, End) of indexes into chunks, in order, covering them.
//
// Sizes are planned from the chunks' counts plus those of the white space
// between them, then each group is counted whole; where joining text
// costs tokens the plan missed, the group is cut shorter and the rest
// planned again. Planning costs O(len(chunks)·log budget) additions.
func groupChunks(text string, chunks []store.Segment, budget int) []Span {
	n := len(chunks)
	tok := make([]int, n) // tokens of chunk k
	gap := make([]int, n) // tokens of the white space before chunk k
	for k, c := range chunks {
		tok[k] = tokens.Count(c.Text)
		if k > 0 {
			gap[k] = tokens.Count(text[chunks[k-1].End:c.Start])
		}
	}
	// end is the last chunk of a group starting at i, filled up to most tokens.
	end := func(i, most int) int {
		j, size := i, tok[i]
		for j+1 < n && size+gap[j+1]+tok[j+1] <= most {
			j++
			size += gap[j] + tok[j]
		}
		return j
	}
	count := func(i, most int) int {
		c := 0
		for ; i < n; i = end(i, most) + 1 {
			c++
		}
		return c
	}
	// plan is the smallest cap that cuts chunks[i:] into as few groups as
	// budget does (the count only falls as the cap grows).
	plan := func(i int) int {
		want := count(i, budget)
		lo := min(slices.Max(tok[i:]), budget) // no smaller cap holds every chunk
		hi := budget
		for lo < hi {
			mid := (lo + hi) / 2
			if count(i, mid) <= want {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return hi
	}
	var out []Span
	limit := plan(0)
	for i := 0; i < n; {
		j := end(i, limit)
		if lo := longestFit(i, j, func(k int) bool {
			return tokens.Count(text[chunks[i].Start:chunks[k].End]) <= budget
		}); lo < j {
			out = append(out, Span{i, lo + 1})
			i = lo + 1
			if i < n {
				limit = plan(i)
			}
			continue
		}
		out = append(out, Span{i, j + 1})
		i = j + 1
	}
	return out
}

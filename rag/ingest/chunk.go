package ingest

import (
	"context"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest/tokens"
	"github.com/ibid-dev/ibid/store"
)

// span is a byte range [start, end) of a document's text.
type span struct{ start, end int }

// unit is a span no longer than the budget: a paragraph, a sentence, a
// line, or a piece of an over-long line. Units are what segments are
// packed from.
type unit struct {
	span
	tokens int
}

// chunk splits text into segments. Each section is split on its own, so no
// segment crosses a section boundary: into paragraphs (separated by blank
// lines); a paragraph over budget into sentences; a sentence over budget
// into lines; a line over budget into pieces of at most budget tokens cut
// on rune boundaries. Consecutive units are then packed greedily into
// segments of at most budget tokens. Segment text is text[Start:End]
// exactly (leading and trailing white space trimmed). Ids and indexes are
// left to the caller.
//
// Every byte is tokenised a bounded number of times, so chunking takes
// time linear in len(text); ctx is checked between paragraphs and pieces,
// and its error returned.
func chunk(ctx context.Context, text string, sections []section, pageStarts []int, budget int) ([]store.Segment, error) {
	var segs []store.Segment
	for _, sec := range sections {
		units, err := sectionUnits(ctx, text, sec.start, sec.end, budget)
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(units); {
			if i%64 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			j := packEnd(text, units, i, budget)
			start, end := units[i].start, units[j].end
			seg := store.Segment{
				Text:    text[start:end],
				Section: append([]string(nil), sec.path...),
				Start:   start,
				End:     end,
			}
			if len(pageStarts) > 0 {
				seg.PageStart = pageAt(pageStarts, start)
				seg.PageEnd = pageAt(pageStarts, end-1)
			}
			segs = append(segs, seg)
			i = j + 1
		}
	}
	return segs, nil
}

// packEnd is the last unit of the segment that starts with units[i]: as
// many units as fit the budget, counting the white space between them.
func packEnd(text string, units []unit, i, budget int) int {
	j, tok := i, units[i].tokens
	for j+1 < len(units) {
		gap := text[units[j].end:units[j+1].start]
		g := 1
		if len(gap) > 2 {
			g = tokens.Count(gap)
		}
		if tok+g+units[j+1].tokens > budget || units[j+1].end-units[i].start > budget*tokens.MaxTokenBytes {
			break
		}
		j++
		tok += g + units[j].tokens
	}
	// The sum of the parts estimates the whole; check it, and find the
	// longest run that fits by halving (one unit always fits).
	return longestFit(i, j, func(k int) bool {
		return tokens.Count(text[units[i].start:units[k].end]) <= budget
	})
}

// longestFit is the largest k in [i, j] for which fits(k) holds, given
// that fits(i) holds and fits turns false once and stays false: j itself
// when it fits, else found by halving. It calls fits O(log(j-i)) times.
func longestFit(i, j int, fits func(k int) bool) int {
	if j <= i || fits(j) {
		return j
	}
	lo, hi := i, j // fits(lo), !fits(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// pageAt is the 1-based page holding byte off.
func pageAt(pageStarts []int, off int) int {
	return sort.Search(len(pageStarts), func(i int) bool { return pageStarts[i] > off })
}

// sectionUnits breaks text[start:end] into units in reading order.
func sectionUnits(ctx context.Context, text string, start, end, budget int) ([]unit, error) {
	var out []unit
	for _, p := range paragraphs(text, start, end) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if out, err = appendUnits(ctx, out, text, p, budget, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendUnits adds sp as one unit if it fits the budget, otherwise its
// finer parts: level 0 splits into sentences, 1 into lines, 2 cuts. A span
// longer than budget*tokens.MaxTokenBytes bytes cannot fit and is not counted.
func appendUnits(ctx context.Context, out []unit, text string, sp span, budget, level int) ([]unit, error) {
	if sp.end-sp.start <= budget*tokens.MaxTokenBytes {
		if t := tokens.Count(text[sp.start:sp.end]); t <= budget {
			return append(out, unit{sp, t}), nil
		}
	}
	var parts []span
	switch {
	case level == 0 && isTable(text[sp.start:sp.end]):
		level, parts = 1, lines(text, sp.start, sp.end) // a row is a unit
	case level == 0:
		parts = sentences(text, sp.start, sp.end)
	case level == 1:
		parts = lines(text, sp.start, sp.end)
	default:
		return appendCuts(ctx, out, text, sp, budget)
	}
	if len(parts) <= 1 {
		return appendUnits(ctx, out, text, sp, budget, level+1)
	}
	for _, p := range parts {
		var err error
		if out, err = appendUnits(ctx, out, text, p, budget, level+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// isTable reports whether a paragraph is a Markdown table: two lines or
// more, each a row that starts with "|". Its rows are its units, so a
// segment never cuts a row.
func isTable(p string) bool {
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(p), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			return false
		}
		n++
	}
	return n >= 2
}

// appendCuts cuts sp into pieces of at most budget tokens on rune
// boundaries (preferring the last white space in the piece's final fifth).
func appendCuts(ctx context.Context, out []unit, text string, sp span, budget int) ([]unit, error) {
	s := sp.start
	for s < sp.end {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, size := utf8.DecodeRuneInString(text[s:sp.end])
		if unicode.IsSpace(r) {
			s += size
			continue
		}
		n := tokens.PrefixWithin(text[s:sp.end], budget)
		if s+n < sp.end {
			piece := text[s : s+n]
			if k := strings.LastIndexFunc(piece, unicode.IsSpace); k > len(piece)*4/5 {
				n = k
			}
		}
		p, _ := trim(text, span{s, s + n})
		tok := tokens.Count(text[p.start:p.end])
		// Cutting can make a piece tokenize worse than its prefix
		// estimate: shrink until it fits (one rune always fits or is
		// accepted, so this ends).
		for tok > budget && p.end-p.start > size {
			_, last := utf8.DecodeLastRuneInString(text[p.start:p.end])
			n = tokens.PrefixWithin(text[p.start:p.end-last], budget)
			p, _ = trim(text, span{p.start, p.start + n})
			tok = tokens.Count(text[p.start:p.end])
		}
		out = append(out, unit{p, tok})
		s = p.end
	}
	return out, nil
}

// trim narrows sp to exclude leading and trailing white space; ok is false
// if nothing is left.
func trim(text string, sp span) (span, bool) {
	s := text[sp.start:sp.end]
	l := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	r := len(strings.TrimRightFunc(s, unicode.IsSpace))
	if l >= r {
		return span{}, false
	}
	return span{sp.start + l, sp.start + r}, true
}

// paragraphs splits text[start:end] at blank lines (lines of only white
// space), returning trimmed non-empty spans.
func paragraphs(text string, start, end int) []span {
	var out []span
	pstart := start
	blank := false
	for ls := start; ls < end; {
		le := strings.IndexByte(text[ls:end], '\n')
		if le < 0 {
			le = end
		} else {
			le += ls
		}
		isBlank := strings.TrimSpace(text[ls:le]) == ""
		if isBlank && !blank {
			if p, ok := trim(text, span{pstart, ls}); ok {
				out = append(out, p)
			}
		}
		if !isBlank && blank {
			pstart = ls
		}
		blank = isBlank
		ls = le + 1
	}
	if !blank {
		if p, ok := trim(text, span{pstart, end}); ok {
			out = append(out, p)
		}
	}
	return out
}

// lines splits text[start:end] at line breaks, returning trimmed non-empty
// spans.
func lines(text string, start, end int) []span {
	var out []span
	for ls := start; ls < end; {
		le := strings.IndexByte(text[ls:end], '\n')
		if le < 0 {
			le = end
		} else {
			le += ls
		}
		if p, ok := trim(text, span{ls, le}); ok {
			out = append(out, p)
		}
		ls = le + 1
	}
	return out
}

// sentences splits text[start:end] into sentences (see Sentences).
func sentences(text string, start, end int) []span {
	var out []span
	for _, s := range Sentences(text[start:end]) {
		out = append(out, span{start + s.Start, start + s.End})
	}
	return out
}

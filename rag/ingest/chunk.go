package ingest

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

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
func chunk(text string, sections []section, pageStarts []int, budget int) []store.Segment {
	var segs []store.Segment
	for _, sec := range sections {
		units := sectionUnits(text, sec.start, sec.end, budget)
		for i := 0; i < len(units); {
			j, tok := i, units[i].tokens
			for j+1 < len(units) && tok+units[j+1].tokens+1 <= budget {
				j++
				tok += units[j].tokens + 1
			}
			// The sum of the parts estimates the whole; check it.
			for j > i && CountTokens(text[units[i].start:units[j].end]) > budget {
				j--
			}
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
	return segs
}

// pageAt is the 1-based page holding byte off.
func pageAt(pageStarts []int, off int) int {
	return sort.Search(len(pageStarts), func(i int) bool { return pageStarts[i] > off })
}

// sectionUnits breaks text[start:end] into units in reading order.
func sectionUnits(text string, start, end, budget int) []unit {
	var out []unit
	for _, p := range paragraphs(text, start, end) {
		out = appendUnits(out, text, p, budget, 0)
	}
	return out
}

// appendUnits adds sp as one unit if it fits the budget, otherwise its
// finer parts: level 0 splits into sentences, 1 into lines, 2 cuts.
func appendUnits(out []unit, text string, sp span, budget, level int) []unit {
	if t := CountTokens(text[sp.start:sp.end]); t <= budget {
		return append(out, unit{sp, t})
	}
	var parts []span
	switch level {
	case 0:
		parts = sentences(text, sp.start, sp.end)
	case 1:
		parts = lines(text, sp.start, sp.end)
	default:
		return appendCuts(out, text, sp, budget)
	}
	if len(parts) <= 1 {
		return appendUnits(out, text, sp, budget, level+1)
	}
	for _, p := range parts {
		out = appendUnits(out, text, p, budget, level+1)
	}
	return out
}

// appendCuts cuts sp into pieces of at most budget tokens on rune
// boundaries (preferring the last white space in the piece's final fifth).
func appendCuts(out []unit, text string, sp span, budget int) []unit {
	s := sp.start
	for s < sp.end {
		r, size := utf8.DecodeRuneInString(text[s:sp.end])
		if unicode.IsSpace(r) {
			s += size
			continue
		}
		n := prefixWithin(text[s:sp.end], budget)
		if s+n < sp.end {
			piece := text[s : s+n]
			if k := strings.LastIndexFunc(piece, unicode.IsSpace); k > len(piece)*4/5 {
				n = k
			}
		}
		p, _ := trim(text, span{s, s + n})
		tok := CountTokens(text[p.start:p.end])
		// Cutting can make a piece tokenize worse than its prefix
		// estimate: shrink until it fits (one rune always fits or is
		// accepted, so this ends).
		for tok > budget && p.end-p.start > size {
			_, last := utf8.DecodeLastRuneInString(text[p.start:p.end])
			n = prefixWithin(text[p.start:p.end-last], budget)
			p, _ = trim(text, span{p.start, p.start + n})
			tok = CountTokens(text[p.start:p.end])
		}
		out = append(out, unit{p, tok})
		s = p.end
	}
	return out
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

// Sentence punctuation. CJK full stops end a sentence by themselves; Latin
// ones need white space (or the end) after them.
const (
	cjkStops   = "。！？｡"
	latinStops = ".!?"
	closers    = "\"'”’)]}」』）］】〕》〉"
)

// abbreviations are words that end in a full stop without ending a
// sentence (compared lower-case, without the final stop).
var abbreviations = map[string]bool{
	"al": true, "e.g": true, "i.e": true, "cf": true, "vs": true, "fig": true,
	"figs": true, "eq": true, "eqs": true, "sec": true, "dr": true,
	"mr": true, "mrs": true, "ms": true, "prof": true, "st": true, "vol": true,
	"pp": true, "p": true, "approx": true, "ref": true, "refs": true, "tab": true,
}

// sentences splits text[start:end] after sentence-ending punctuation,
// returning trimmed non-empty spans that together cover every non-space
// byte.
func sentences(text string, start, end int) []span {
	var out []span
	s := start
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(text[i:end])
		i += n
		cjk := strings.ContainsRune(cjkStops, r)
		if !cjk && !strings.ContainsRune(latinStops, r) {
			continue
		}
		// Take repeated stops and closing quotes or brackets along.
		j := i
		for j < end {
			r2, n2 := utf8.DecodeRuneInString(text[j:end])
			if !strings.ContainsRune(closers, r2) && !strings.ContainsRune(cjkStops+latinStops, r2) {
				break
			}
			j += n2
		}
		if !cjk {
			if j < end {
				r2, _ := utf8.DecodeRuneInString(text[j:end])
				if !unicode.IsSpace(r2) {
					continue // "3.14", "e.g.,", "a.b"
				}
			}
			if r == '.' && isAbbreviation(text[s:i-1]) {
				continue
			}
			// A lower-case word after the stop continues the sentence.
			k := j
			for k < end {
				r2, n2 := utf8.DecodeRuneInString(text[k:end])
				if !unicode.IsSpace(r2) {
					if unicode.IsLower(r2) {
						k = -1
					}
					break
				}
				k += n2
			}
			if k < 0 {
				continue
			}
		}
		if p, ok := trim(text, span{s, j}); ok {
			out = append(out, p)
		}
		s, i = j, j
	}
	if p, ok := trim(text, span{s, end}); ok {
		out = append(out, p)
	}
	return out
}

// isAbbreviation reports whether before ends with a known abbreviation or
// a single capital initial ("J.").
func isAbbreviation(before string) bool {
	k := strings.LastIndexFunc(before, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	word := before[k+1:]
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsUpper(r)
	}
	return abbreviations[strings.ToLower(word)]
}

package pdf

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pageNumberRE matches a line that only numbers its page: "7", "- 7 -",
// "Page 7", "Page 7 of 23", "7 / 23", "vii".
var pageNumberRE = regexp.MustCompile(`^(?i)(page\s+)?[-–—]?\s*(\d{1,4}|[ivxlc]{1,7})\s*[-–—]?(\s*(/|of)\s*\d{1,4})?$`)

// marginLines returns the indexes of up to n live lines nearest the top
// and the bottom edge of a page (by position, whatever the reading order).
func marginLines(lines []*textLine, n int) []int {
	var idx []int
	for k := 0; k < n; k++ {
		hi, lo := -1, -1
		for i, l := range lines {
			if l.drop || containsInt(idx, i) {
				continue
			}
			if hi < 0 || l.y1 > lines[hi].y1 {
				hi = i
			}
			if lo < 0 || l.y0 < lines[lo].y0 {
				lo = i
			}
		}
		for _, i := range []int{hi, lo} {
			if i >= 0 && !containsInt(idx, i) {
				idx = append(idx, i)
			}
		}
	}
	return idx
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// marginKey is a margin line's text with digits blanked, so "Page 3" and
// "Page 4" (or a header with the section number) compare equal.
func marginKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return '#'
		}
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// dropMargins removes running headers and footers (a line at the top or
// bottom of a page whose text, digits aside, recurs at about the same
// height on at least two pages and a quarter of them) and page numbers,
// which it records by page (layoutPage.label, "" where none was found). It
// returns the running headers and footers it removed, each once, as first
// drawn, in page order.
func dropMargins(pages []*layoutPage) (heads []string) {
	type seen struct {
		pages map[int]bool
		y     float32
	}
	counts := map[string]*seen{}
	cands := make([][]int, len(pages))
	for pi, p := range pages {
		cands[pi] = marginLines(p.lines, 2)
		for _, i := range cands[pi] {
			l := p.lines[i]
			k := marginKey(l.text)
			if k == "" {
				continue
			}
			s := counts[k]
			if s == nil {
				s = &seen{pages: map[int]bool{}, y: l.y0}
				counts[k] = s
			}
			// Same text far from where it was first seen (a heading
			// repeated in the body) does not count.
			if abs32(l.y0-s.y) < 0.06*p.height || len(s.pages) == 0 {
				s.pages[pi] = true
			}
		}
	}
	need := max(2, (len(pages)+3)/4)
	kept := map[string]bool{}
	for pi, p := range pages {
		for _, i := range cands[pi] {
			l := p.lines[i]
			t := strings.TrimSpace(l.text)
			if pageNumberRE.MatchString(t) && (l.y1 > 0.85*p.height || l.y0 < 0.15*p.height) {
				l.drop = true
				p.label = strings.Trim(t, "-–— ")
				continue
			}
			if k := marginKey(t); counts[k] != nil && len(counts[k].pages) >= need && counts[k].pages[pi] {
				l.drop = true
				if !kept[k] {
					kept[k] = true
					heads = append(heads, t)
				}
				if p.label == "" {
					p.label = trailingNumber(t)
				}
			}
		}
	}
	return heads
}

// trailingNumber is the number a header or footer ends or starts with
// ("Gao et al. 7" gives "7"), or "".
func trailingNumber(s string) string {
	f := strings.Fields(s)
	if len(f) < 2 {
		return ""
	}
	for _, w := range []string{f[len(f)-1], f[0]} {
		if pageNumberRE.MatchString(w) {
			return w
		}
	}
	return ""
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// ligatures maps presentation forms to their letters.
var ligatures = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st", "\u00ad", "")

// cleanRunes turns a line's text into clean text: ligatures become
// letters, control characters go (pdfium's U+0002 marks a hyphen at a line
// end and becomes "-"), white space runs shrink to one space.
func cleanLine(s string) string {
	s = ligatures.Replace(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == 0x02:
			r = '-'
		case r == utf8.RuneError, r == 0xFFFE, r == 0xFFFF, unicode.IsControl(r) && !unicode.IsSpace(r):
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isCJK reports whether r is written without spaces between words (Han,
// kana, CJK punctuation and full-width forms).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// vocabulary is the set of words a document uses inside its lines (never
// a piece cut at a line end), lower-case, with and without their hyphens.
type vocabulary map[string]bool

// add takes the words of a line; afterBreak says the line before it
// ended with a hyphen, so its first word is the rest of a broken one.
func (v vocabulary) add(line string, afterBreak bool) {
	f := strings.Fields(line)
	for i, w := range f {
		if i == len(f)-1 && strings.HasSuffix(w, "-") || i == 0 && afterBreak {
			continue
		}
		w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }))
		w = strings.Trim(w, "-")
		if w == "" {
			continue
		}
		v[w] = true
		if strings.Contains(w, "-") {
			for _, p := range strings.Split(w, "-") {
				if p != "" {
					v[p] = true
				}
			}
		}
	}
}

// joinTo appends the next line of a paragraph to text. A word broken at
// the line end is mended: "hal-" + "lucination" is "hallucination" when
// the document uses that word or its first part is not a word of it;
// "state-of-the-" + "art" and "natural-" + "language" keep their hyphen.
// CJK text joins without a space; other lines join with one. It reads
// only text's last word, so a paragraph of many lines is written in time
// linear in its length.
func joinTo(text []byte, next string, vocab vocabulary) []byte {
	if len(text) == 0 {
		return append(text, next...)
	}
	if next == "" {
		return text
	}
	last, _ := utf8.DecodeLastRune(text)
	first, _ := utf8.DecodeRuneInString(next)
	if isCJK(last) || isCJK(first) {
		if isCJK(last) && isCJK(first) || isCJK(last) && !unicode.IsLetter(first) && !unicode.IsDigit(first) || isCJK(first) && !unicode.IsLetter(last) && !unicode.IsDigit(last) {
			return append(text, next...)
		}
	}
	lastTok := string(text[bytes.LastIndexByte(text, ' ')+1:])
	if strings.Contains(lastTok, "://") || strings.HasPrefix(lastTok, "www.") {
		if strings.ContainsRune("./-_", last) {
			return append(text, next...) // a URL broken at the line end
		}
	}
	if last == '-' && len(text) > 1 {
		// The word before the hyphen lies within the last word (lines
		// are cleaned: their only white space is single spaces).
		if keep, ok := hyphenBreak(lastTok, next, vocab); ok {
			if keep {
				return append(text, next...)
			}
			return append(text[:len(text)-1], next...)
		}
	}
	return append(append(text, ' '), next...)
}

// hyphenBreak decides a hyphen at a line end; ok is false when it is not
// a broken word at all (a dash after a space, a number range).
func hyphenBreak(text, next string, vocab vocabulary) (keep, ok bool) {
	head := text[:len(text)-1]
	k := strings.LastIndexFunc(head, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("([{\"'“‘/–—", r) })
	pre := head[k+1:]
	pr, _ := utf8.DecodeLastRuneInString(pre)
	if pre == "" || !unicode.IsLetter(pr) && !unicode.IsDigit(pr) {
		return false, false
	}
	if !unicode.IsLetter(pr) {
		return true, true // "T5-" "11B", "pages 10-" "12"
	}
	e := strings.IndexFunc(next, func(r rune) bool { return !unicode.IsLetter(r) })
	if e < 0 {
		e = len(next)
	}
	suf := next[:e]
	sr, _ := utf8.DecodeRuneInString(next)
	tok := next
	if k := strings.IndexFunc(tok, unicode.IsSpace); k >= 0 {
		tok = tok[:k]
	}
	tok = strings.TrimRightFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) })
	lp, ls := strings.ToLower(pre), strings.ToLower(suf)
	switch {
	case suf == "":
		return true, true // "GPT-" "4"
	case strings.Contains(pre, "-"), strings.Contains(tok, "-"):
		return true, true // "state-of-the-" "art", "state-" "of-the-art"
	case vocab[lp+ls]:
		return false, true // "hal-" "lucination", "Chat-" "GPT"
	case vocab[lp+"-"+ls], !unicode.IsLower(sr):
		return true, true // "BERT-" "Large"
	case utf8.RuneCountInString(lp) >= 3 && utf8.RuneCountInString(ls) >= 3 && vocab[lp] && vocab[ls]:
		return true, true
	}
	return false, true
}

package pdf

import (
	"strings"
	"unicode"
)

// raisedMark reports whether fragment i of a line's fragments (ordered
// left to right) is a footnote mark glued to the word before it: one to
// three ASCII digits, smaller than that word's type and raised above its
// baseline, touching a word's last letter or closing punctuation ("Chat"
// "2", "models." "14"), and followed by a space, punctuation or the line's
// end. An exponent inside a formula ("10" "3", "x" "2y") is none: the
// digit before it or the letter after it rules it out.
func raisedMark(frags []*fragment, i int) bool {
	if i == 0 {
		return false
	}
	f, prev := frags[i], frags[i-1]
	if len(f.text) == 0 || len(f.text) > 3 {
		return false
	}
	for _, r := range f.text {
		if r < '0' || r > '9' {
			return false
		}
	}
	h := prev.y1 - prev.y0
	if f.size > 0.85*prev.size || h <= 0 || f.y0 < prev.y0+0.2*h || f.x0-prev.x1 > 0.2*prev.size {
		return false // not smaller, not raised, or apart from the word
	}
	last := prev.text[len(prev.text)-1]
	if !unicode.IsLetter(last) && !strings.ContainsRune(closingMarks, last) {
		return false
	}
	if i+1 == len(frags) {
		return true
	}
	next := frags[i+1]
	first := next.text[0]
	return next.x0-f.x1 > 0.2*max(f.size, next.size) || unicode.IsPunct(first) && !strings.ContainsRune("([{‘“", first)
}

// closingMarks may end a word that a footnote mark follows.
const closingMarks = `.,;:!?)]}’”'"`

// superscripts are the superscript digits ⁰ to ⁹, in order.
const superscripts = "⁰¹²³⁴⁵⁶⁷⁸⁹"

var superscriptDigits = []rune(superscripts)

// superscript writes ASCII digits as superscript digits ("14" is "¹⁴");
// other runes are kept.
func superscript(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 3)
	for _, r := range s {
		if r >= '0' && r <= '9' {
			r = superscriptDigits[r-'0']
		}
		b.WriteRune(r)
	}
	return b.String()
}

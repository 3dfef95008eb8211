package support

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviation is a short form a passage defines, "brown adipose tissue
// (BAT)": its analysed term and the analysed terms of its long form.
type abbreviation struct {
	short string
	long  []string
}

// maxShort bounds a short form's length in bytes.
const maxShort = 12

// abbreviations finds the short forms text defines in parentheses after
// their long form, by Schwartz and Hearst's rule ("A simple algorithm for
// identifying abbreviation definitions in biomedical text", 2003): the
// short form is two runes to maxShort bytes holding a capital, starting
// with a letter or digit, and no more than two words; its long form ends right
// before the parenthesis, spans at most min(n+5, 2n) words for an n-byte
// short form, and holds every letter and digit of the short form in order,
// the first at the start of a word. tokenize analyses a text into terms.
func abbreviations(text string, tokenize func(string) []string) []abbreviation {
	var out []abbreviation
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '(')
		if j < 0 {
			break
		}
		open := i + j
		i = open + 1
		k := strings.IndexByte(text[i:], ')')
		if k < 0 {
			break
		}
		short := strings.TrimSpace(text[i : i+k])
		if cut := strings.IndexAny(short, ";,"); cut >= 0 {
			short = strings.TrimSpace(short[:cut])
		}
		if !shortForm(short) {
			continue
		}
		long := longForm(strings.TrimRight(text[:open], " "), short)
		if long == "" {
			continue
		}
		st := tokenize(short)
		lt := tokenize(long)
		if len(st) != 1 || len(lt) == 0 || len(lt) == 1 && lt[0] == st[0] {
			continue
		}
		out = append(out, abbreviation{short: st[0], long: lt})
	}
	return out
}

// shortForm reports whether s can be a short form.
func shortForm(s string) bool {
	if s == "" || len(s) > maxShort || strings.Count(s, " ") > 1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	upper := false
	for _, r := range s {
		upper = upper || unicode.IsUpper(r)
	}
	return upper && utf8.RuneCountInString(s) >= 2
}

// longForm is the long form that before (the text up to the parenthesis)
// ends with for short, or "".
func longForm(before, short string) string {
	n := utf8.RuneCountInString(short)
	words := strings.Fields(before)
	words = words[max(0, len(words)-min(n+5, 2*n)):]
	cand := strings.Join(words, " ")
	// Match short's letters and digits right to left in cand.
	sr := []rune(strings.ToLower(short))
	cr := []rune(strings.ToLower(cand))
	si, ci := len(sr)-1, len(cr)-1
	for si >= 0 {
		c := sr[si]
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			si--
			continue
		}
		for ci >= 0 && (cr[ci] != c || si == 0 && ci > 0 && (unicode.IsLetter(cr[ci-1]) || unicode.IsDigit(cr[ci-1]))) {
			ci--
		}
		if ci < 0 {
			return ""
		}
		si--
		ci--
	}
	// ci+1 is where the first letter matched: the long form starts at
	// that word.
	from := ci + 1
	for from > 0 && cr[from-1] != ' ' && cr[from-1] != '\n' && cr[from-1] != '\t' {
		from--
	}
	return string([]rune(cand)[from:])
}

package keyword

// The analyser as it was before it was made faster (commit ef9c899), kept
// to check that the fast one emits exactly the same tokens.

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

func refTokenize(text string) []string {
	var out []string
	refAnalyse(text, func(tok string, cjk bool) {
		if !cjk {
			tok = refNormWord(tok)
			if tok == "" {
				return
			}
		}
		out = append(out, tok)
	})
	return out
}

func refAnalyse(text string, emit func(tok string, cjk bool)) {
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart >= 0 {
			refBigrams(text[runStart:runEnd], emit)
			runStart = -1
		}
	}
	it := words.FromString(text)
	pos := 0
	for it.Next() {
		w := it.Value()
		start := pos
		pos += len(w)
		r, _ := utf8.DecodeRuneInString(w)
		if r < utf8.RuneSelf {
			if !refIsASCIIWordStart(w) {
				flush()
				continue
			}
			flush()
			emit(w, false)
			continue
		}
		if refIsCJK(r) {
			if runStart >= 0 && runEnd == start {
				runEnd = pos
			} else {
				flush()
				runStart, runEnd = start, pos
			}
			continue
		}
		flush()
		if refHasLetterOrDigit(w) {
			emit(w, false)
		}
	}
	flush()
}

func refIsASCIIWordStart(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
		if c >= utf8.RuneSelf {
			return refHasLetterOrDigit(w[i:])
		}
	}
	return false
}

func refHasLetterOrDigit(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func refIsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		r == 'ー' // prolonged sound mark (script Common)
}

func refBigrams(run string, emit func(string, bool)) {
	var prev, prevEnd int = -1, 0
	n := 0
	single := ""
	for i, r := range run {
		size := utf8.RuneLen(r)
		if !refIsCJK(r) {
			continue
		}
		if prev >= 0 && prevEnd == i {
			emit(run[prev:i+size], true)
			n++
		} else if prev >= 0 && n == 0 {
			emit(single, true)
		}
		if prev >= 0 && prevEnd != i {
			n = 0
		}
		prev, prevEnd = i, i+size
		single = run[i : i+size]
	}
	if prev >= 0 && n == 0 {
		emit(single, true)
	}
}

func refNormWord(w string) string {
	w = refLower(w)
	if strings.HasSuffix(w, "'s") {
		w = w[:len(w)-2]
	} else if strings.HasSuffix(w, "’s") {
		w = w[:len(w)-len("’s")]
	}
	if w == "" || refStopwords[w] {
		return ""
	}
	return refStem(w)
}

func refLower(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
	}
	return w
}

func refStem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	s := refPorter{b: []byte(w), k: len(w) - 1}
	s.step1ab()
	if s.k > 0 {
		s.step1c()
		s.step2()
		s.step3()
		s.step4()
		s.step5()
	}
	return string(s.b[:s.k+1])
}

type refPorter struct {
	b    []byte
	k, j int
}

func (p *refPorter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

func (p *refPorter) m() int {
	n, i := 0, 0
	for {
		if i > p.j {
			return n
		}
		if !p.cons(i) {
			break
		}
		i++
	}
	i++
	for {
		for {
			if i > p.j {
				return n
			}
			if p.cons(i) {
				break
			}
			i++
		}
		i++
		n++
		for {
			if i > p.j {
				return n
			}
			if !p.cons(i) {
				break
			}
			i++
		}
		i++
	}
}

func (p *refPorter) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

func (p *refPorter) doublec(j int) bool {
	return j >= 1 && p.b[j] == p.b[j-1] && p.cons(j)
}

func (p *refPorter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	switch p.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

func (p *refPorter) ends(s string) bool {
	n := len(s)
	if n > p.k+1 || string(p.b[p.k-n+1:p.k+1]) != s {
		return false
	}
	p.j = p.k - n
	return true
}

func (p *refPorter) setto(s string) {
	p.b = append(p.b[:p.j+1], s...)
	p.k = p.j + len(s)
}

func (p *refPorter) r(s string) {
	if p.m() > 0 {
		p.setto(s)
	}
}

func (p *refPorter) step1ab() {
	if p.b[p.k] == 's' {
		switch {
		case p.ends("sses"):
			p.k -= 2
		case p.ends("ies"):
			p.setto("i")
		case p.b[p.k-1] != 's':
			p.k--
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.k--
		}
	} else if (p.ends("ed") || p.ends("ing")) && p.vowelInStem() {
		p.k = p.j
		switch {
		case p.ends("at"):
			p.setto("ate")
		case p.ends("bl"):
			p.setto("ble")
		case p.ends("iz"):
			p.setto("ize")
		case p.doublec(p.k):
			p.k--
			switch p.b[p.k] {
			case 'l', 's', 'z':
				p.k++
			}
		default:
			p.j = p.k
			if p.m() == 1 && p.cvc(p.k) {
				p.setto("e")
			}
		}
	}
}

func (p *refPorter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b[p.k] = 'i'
	}
}

type refSuffix struct{ from, to string }

var refStep2Rules = map[byte][]refSuffix{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

var refStep3Rules = map[byte][]refSuffix{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

var refStep4Rules = map[byte][]string{
	'a': {"al"},
	'c': {"ance", "ence"},
	'e': {"er"},
	'i': {"ic"},
	'l': {"able", "ible"},
	'n': {"ant", "ement", "ment", "ent"},
	'o': {"ion", "ou"},
	's': {"ism"},
	't': {"ate", "iti"},
	'u': {"ous"},
	'v': {"ive"},
	'z': {"ize"},
}

func (p *refPorter) step2() {
	if p.k < 1 {
		return
	}
	for _, r := range refStep2Rules[p.b[p.k-1]] {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

func (p *refPorter) step3() {
	for _, r := range refStep3Rules[p.b[p.k]] {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

func (p *refPorter) step4() {
	if p.k < 1 {
		return
	}
	for _, s := range refStep4Rules[p.b[p.k-1]] {
		if !p.ends(s) {
			continue
		}
		if s == "ion" && (p.j < 0 || p.b[p.j] != 's' && p.b[p.j] != 't') {
			return
		}
		if p.m() > 1 {
			p.k = p.j
		}
		return
	}
}

func (p *refPorter) step5() {
	p.j = p.k
	if p.b[p.k] == 'e' {
		a := p.m()
		if a > 1 || a == 1 && !p.cvc(p.k-1) {
			p.k--
		}
	}
	if p.b[p.k] == 'l' && p.doublec(p.k) && p.m() > 1 {
		p.k--
	}
}

var refStopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "but": true, "by": true, "for": true, "if": true, "in": true,
	"into": true, "is": true, "it": true, "no": true, "not": true, "of": true,
	"on": true, "or": true, "such": true, "that": true, "the": true,
	"their": true, "then": true, "there": true, "these": true, "they": true,
	"this": true, "to": true, "was": true, "will": true, "with": true,
}

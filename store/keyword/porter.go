package keyword

// stem returns the Porter stem (M. F. Porter, "An algorithm for suffix
// stripping", 1980, in the form of his reference C implementation, as used
// by Lucene's PorterStemFilter) of a lowercase ASCII word. Words of two
// letters or fewer, and words with anything other than a-z, are returned
// unchanged. The result may share memory with w.
func stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	var buf [maxFastWord]byte
	b := buf[:]
	if len(w) >= len(buf) {
		b = make([]byte, len(w)+1)
	}
	copy(b, w)
	b = stemBytes(b, len(w))
	if string(b) == w[:len(b)] {
		return w[:len(b)]
	}
	return string(b)
}

// stemBytes stems the lowercase a-z word b[:n] (more than two letters, n <
// len(b)) in place and returns the stem. The stem never grows past n
// letters (a step that adds a letter follows one that removed at least
// two); b has room for one more all the same.
func stemBytes(b []byte, n int) []byte {
	p := porter{b: b, k: n - 1}
	p.step1ab()
	if p.k > 0 {
		p.step1c()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
	}
	return p.b[:p.k+1]
}

// porter is the stemmer's state: b[0..k] is the word being stemmed (b has
// room past k for what setto writes), and j marks the end of the stem
// before a suffix found by ends.
type porter struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m measures the number of consonant sequences in b[0..j]:
// [C](VC)^m[V].
func (p *porter) m() int {
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

// vowelInStem reports whether b[0..j] contains a vowel.
func (p *porter) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

// doublec reports whether b[j-1..j] is a double consonant.
func (p *porter) doublec(j int) bool {
	return j >= 1 && p.b[j] == p.b[j-1] && p.cons(j)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant and the last
// consonant is not w, x or y (cav(e), lov(e), hop(e), but not snow, box).
func (p *porter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	switch p.b[i] {
	case 'w', 'x', 'y':
		return false
	}
	return true
}

// ends reports whether b[0..k] ends with s, and sets j before it.
func (p *porter) ends(s string) bool {
	n := len(s)
	if n > p.k+1 || string(p.b[p.k-n+1:p.k+1]) != s {
		return false
	}
	p.j = p.k - n
	return true
}

// setto replaces b[j+1..k] with s.
func (p *porter) setto(s string) {
	p.k = p.j + copy(p.b[p.j+1:], s)
}

func (p *porter) r(s string) {
	if p.m() > 0 {
		p.setto(s)
	}
}

// step1ab removes plurals and -ed or -ing.
func (p *porter) step1ab() {
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

// step1c turns a terminal y into i when there is another vowel in the stem.
func (p *porter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b[p.k] = 'i'
	}
}

// suffix is one rule: a suffix and its replacement.
type suffix struct{ from, to string }

var step2Rules = [256][]suffix{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

var step3Rules = [256][]suffix{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

var step4Rules = [256][]string{
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

// step2 maps double suffixes to single ones (-ization to -ize, ...) when
// m() > 0.
func (p *porter) step2() {
	if p.k < 1 {
		return
	}
	for _, r := range step2Rules[p.b[p.k-1]] {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

// step3 deals with -ic-, -full, -ness etc.
func (p *porter) step3() {
	for _, r := range step3Rules[p.b[p.k]] {
		if p.ends(r.from) {
			p.r(r.to)
			return
		}
	}
}

// step4 removes -ant, -ence etc. in context <c>vcvc<v>.
func (p *porter) step4() {
	if p.k < 1 {
		return
	}
	for _, s := range step4Rules[p.b[p.k-1]] {
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

// step5 removes a final -e if m() > 1 (or m() == 1 and not cvc), and
// changes -ll to -l if m() > 1.
func (p *porter) step5() {
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

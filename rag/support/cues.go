package support

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// negationCues are the words that negate an English clause, compared in
// lower case (a word ending in "n't" is one too). "no" and "not" are
// stopwords to the analyser, so the cues are read from the raw text.
var negationCues = set("not", "no", "never", "none", "neither", "nor", "nothing", "nobody",
	"without", "cannot", "lack", "lacks", "lacked", "lacking", "fail", "fails", "failed",
	"unable", "absence", "absent")

// anaphors are the words that, leading a sentence, point back to the one
// before it ("It binds …", "These mice …"): the sentence before may
// complete it.
var anaphors = set("it", "its", "this", "these", "those", "that", "they", "their", "them",
	"such", "he", "she", "his", "her", "both", "here", "there", "thus", "hence", "similarly",
	"likewise", "moreover", "furthermore", "however", "conversely", "consequently", "additionally",
	"also", "further")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// cue flags say what kind of sentence a sentence is.
const (
	cueNegated uint8 = 1 << iota // holds a negation cue (negationCues)
	cueAnaphor                   // starts with an anaphor
	cueAim                       // states an aim or a method, not a finding (aimCues)
	cueFinding                   // reports a finding (findingCues)
)

// aimWords mark a sentence that asks or sets up rather than finds:
// "whether", an aim or objective; a sentence led by "to" and a verb of
// inquiry ("To determine …") or by a structured abstract's label for its
// aims and methods ("OBJECTIVE", "Methods:") is one too.
var aimWords = set("whether", "aim", "aims", "aimed", "objective", "objectives", "purpose",
	"hypothesis", "hypothesized", "hypothesised", "hypothesize", "sought")

// aimLabels are the labels of a structured abstract's parts that state
// aims or methods; findingLabels those that state findings.
var (
	aimLabels = set("objective", "objectives", "background", "context", "methods", "method",
		"design", "setting", "settings", "participants", "patients", "main", "aim", "aims",
		"purpose", "introduction", "intervention", "interventions", "data", "trial", "funding",
		"measurements", "materials", "approach", "importance", "rationale", "study", "population")
	findingLabels = set("results", "result", "conclusion", "conclusions", "findings",
		"interpretation", "significance", "outcome", "outcomes")
)

// findingVerbs after a findingSubject ("we found", "results suggest",
// "data show") mark a sentence that reports a finding, as do the words
// of findingWords anywhere.
var (
	findingSubjects = set("we", "results", "data", "findings", "study", "studies", "analysis",
		"analyses", "experiments", "observations", "evidence", "this", "these", "our", "work", "it")
	findingVerbs = set("show", "shows", "showed", "shown", "demonstrate", "demonstrates",
		"demonstrated", "reveal", "reveals", "revealed", "found", "find", "report", "reported",
		"suggest", "suggests", "suggested", "indicate", "indicates", "indicated", "conclude",
		"concluded", "confirm", "confirms", "confirmed", "identified", "observed", "establish",
		"established", "provide", "provides", "support", "supports", "implicate", "implicates")
	findingWords = set("conclusion", "conclusions", "findings")
)

// cues reads the cue flags of a sentence.
func cues(text string) uint8 {
	var f uint8
	k := 0
	prev := ""
	label := leadingLabel(text)
	if aimLabels[label] {
		f |= cueAim
	} else if findingLabels[label] {
		f |= cueFinding
	}
	eachWord(text, func(w []byte) bool {
		s := string(w) // no allocation: map lookups with a converted key
		if k == 0 && anaphors[s] {
			f |= cueAnaphor
		}
		if negationCues[s] || len(w) > 3 && s[len(s)-3:] == "n't" {
			f |= cueNegated
		}
		if aimWords[s] || k == 0 && s == "to" {
			f |= cueAim
		}
		if findingWords[s] || findingVerbs[s] && findingSubjects[prev] {
			f |= cueFinding
		}
		if findingSubjects[s] {
			prev = s // a constant of the map: no allocation
		} else {
			prev = ""
		}
		k++
		return true
	})
	return f
}

// leadingLabel is the first word of text, lower-cased, when it can be
// the label of a structured abstract's part: three letters or more, all
// capitals ("RESULTS …") or followed by a colon ("Results: …"); ""
// otherwise. Whether it is one, aimLabels and findingLabels say.
func leadingLabel(text string) string {
	i := 0
	upper := true
	for i < len(text) && i < 16 {
		c := text[i]
		if 'a' <= c && c <= 'z' {
			upper = false
		} else if !('A' <= c && c <= 'Z') {
			break
		}
		i++
	}
	if i < 3 || i == len(text) || i == 16 {
		return ""
	}
	if !upper && text[i] != ':' {
		return ""
	}
	if upper && !(text[i] == ' ' || text[i] == ':' || text[i] == ',') {
		return ""
	}
	return strings.ToLower(text[:i])
}

// eachWord calls fn with each word of text, lower-cased, until fn returns
// false: a word is a run of letters, digits and apostrophes (’ read as
// '); words over 15 bytes are skipped (no cue is that long). It allocates
// nothing.
func eachWord(text string, fn func(w []byte) bool) {
	var buf [16]byte
	n := 0
	long := false
	flush := func() bool {
		ok := true
		if n > 0 && !long {
			ok = fn(buf[:n])
		}
		n, long = 0, false
		return ok
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '\'':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				if !flush() {
					return
				}
				continue
			}
			if n < len(buf) {
				buf[n] = c
				n++
			} else {
				long = true
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == '’':
			if n < len(buf) {
				buf[n] = '\''
				n++
			} else {
				long = true
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			long = true // not ASCII: no cue
		default:
			if !flush() {
				return
			}
		}
	}
	flush()
}

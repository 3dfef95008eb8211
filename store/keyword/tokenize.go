package keyword

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"
)

// Tokenize is the analyser shared by BM25, the local embedder and anyone
// else who compares texts by their words: Unicode word segmentation
// (UAX #29), lowercasing, English possessives and the Lucene English
// stopwords dropped, Porter stemming of ASCII words, and runs of Han, kana
// and Hangul turned into overlapping bigrams (a run of one character is
// kept as it is). Tokens are returned in text order; words with neither a
// letter nor a digit (punctuation, spaces, emoji) are dropped.
func Tokenize(text string) []string {
	out := make([]string, 0, len(text)/8+1) // about one term in 7 bytes of English
	analyse(text, func(tok string, cjk bool) {
		if !cjk {
			tok = normWord(tok)
			if tok == "" {
				return
			}
		}
		out = append(out, tok)
	})
	return out
}

// analyse splits text into raw tokens and calls emit for each: a word as
// segmented (not yet lowercased or stemmed; cjk false) or a CJK bigram or
// single character (cjk true, final).
func analyse(text string, emit func(tok string, cjk bool)) {
	// A CJK run is text[runStart:runEnd], made of adjacent CJK words.
	runStart, runEnd := -1, -1
	flush := func() {
		if runStart >= 0 {
			bigrams(text[runStart:runEnd], emit)
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
			if !isASCIIWordStart(w) {
				flush()
				continue
			}
			flush()
			emit(w, false)
			continue
		}
		if isCJK(r) {
			if runStart >= 0 && runEnd == start {
				runEnd = pos
			} else {
				flush()
				runStart, runEnd = start, pos
			}
			// A word can mix a CJK prefix with other letters (rare):
			// its tail is still part of the run; bigrams sorts it out.
			continue
		}
		flush()
		if hasLetterOrDigit(w) {
			emit(w, false)
		}
	}
	flush()
}

// isASCIIWordStart reports whether an ASCII-led segment is a word (it
// starts with a letter or digit, or contains one).
func isASCIIWordStart(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return true
		}
		if c >= utf8.RuneSelf {
			return hasLetterOrDigit(w[i:])
		}
	}
	return false
}

func hasLetterOrDigit(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

// isCJK reports whether r is Han, Hiragana, Katakana or Hangul: scripts
// written without spaces between words (Hangul has spaces, but its words
// inflect, so bigrams match them better than whole words).
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		r == 'ー' // prolonged sound mark (script Common)
}

// bigrams emits the overlapping bigrams of the CJK characters of run,
// lowercasing and emitting as words any other letters inside it.
func bigrams(run string, emit func(string, bool)) {
	var prev, prevEnd int = -1, 0
	n := 0
	single := ""
	for i, r := range run {
		size := utf8.RuneLen(r)
		if !isCJK(r) {
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

// normWord lowercases a segmented word, strips an English possessive,
// drops stopwords and stems ASCII words; "" means drop the word. The
// result may share memory with w.
func normWord(w string) string {
	if len(w) <= maxFastWord && isASCII(w) {
		return normASCII(w)
	}
	w = lower(w)
	if strings.HasSuffix(w, "'s") {
		w = w[:len(w)-2]
	} else if strings.HasSuffix(w, "’s") {
		w = w[:len(w)-len("’s")]
	}
	if w == "" || stopwords[w] {
		return ""
	}
	return stem(w)
}

// maxFastWord is the longest word normASCII takes: its buffer lives on the
// stack.
const maxFastWord = 64

// normASCII is normWord for an ASCII word of at most maxFastWord bytes,
// lowercased and stemmed in a buffer on the stack: it allocates only when
// the term is not a piece of w (a word in capitals, or a stem that
// rewrites a suffix, such as happy → happi).
func normASCII(w string) string {
	var buf [maxFastWord + 1]byte
	b := buf[:len(w)]
	same := true // b == w so far
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
			same = false
		}
		b[i] = c
	}
	if n := len(b); n >= 2 && b[n-2] == '\'' && b[n-1] == 's' {
		b = b[:n-2]
	}
	if len(b) == 0 || isStopword(b) {
		return ""
	}
	if len(b) > 2 && allLower(b) {
		b = stemBytes(buf[:], len(b))
	}
	if same && string(b) == w[:len(b)] {
		return w[:len(b)]
	}
	return string(b)
}

func isASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func allLower(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// lower is strings.ToLower without an allocation for words already in
// lower case.
func lower(w string) string {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
	}
	return w
}

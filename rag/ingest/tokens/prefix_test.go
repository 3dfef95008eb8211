package tokens

import (
	"testing"
	"unicode/utf8"
)

// PrefixWithin cuts on a rune boundary, at least one rune, within the
// budget unless that one rune is over it, and takes at least every whole
// word that fits.
func TestPrefixWithin(t *testing.T) {
	for _, s := range []string{"hello world, this is text", "大型语言模型经常产生幻觉", "🙂🙂🙂🙂🙂🙂", "x"} {
		for budget := 1; budget < 8; budget++ {
			n := PrefixWithin(s, budget)
			if n == 0 || !utf8.ValidString(s[:n]) {
				t.Fatalf("PrefixWithin(%q, %d) = %d", s, budget, n)
			}
			_, first := utf8.DecodeRuneInString(s)
			if Count(s[:n]) > budget && n != first {
				t.Errorf("PrefixWithin(%q, %d) = %q: %d tokens", s, budget, s[:n], Count(s[:n]))
			}
			// At least every whole word that fits is taken.
			whole, tok := 0, 0
			for w := range words(s) {
				if tok += Count(w); tok > budget {
					break
				}
				whole += len(w)
			}
			if n < whole {
				t.Errorf("PrefixWithin(%q, %d) = %q, shorter than the words that fit, %q", s, budget, s[:n], s[:whole])
			}
		}
	}
}

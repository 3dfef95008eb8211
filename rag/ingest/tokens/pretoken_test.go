package tokens

import (
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"
)

// asciiPieces cuts ASCII text where cl100k_base's pattern does: on every
// pair of ASCII bytes, on random strings over letters (those of the
// contractions in both cases), digits, each white space, apostrophes and
// punctuation, and on every line of docs/answers.md; text past ASCII is
// left to the regexp. (Every triple of an ASCII pair and one of nine
// bytes, and 200,000 random strings of up to 24 bytes, agreed once.)
func TestASCIIPiecesAreThePatterns(t *testing.T) {
	e := encoder()
	texts := []string{"", " ", "a", "'", "''", "'s", "'S", "'re", "'RE", "'rx", "'ll", "'lL", "'l", "'ve", "'d'", "'m1",
		"1234567", "a1", "1a", " 1", " .", "  .", ".\n", ".\r\n\r\n", " \n ", "\n\n  x", "   x", "  \t", "\v\f x", "x\v\fy",
		"\x00a", "\x1fb", " \x7f", "it's 3.14 -- ok!\n\n"}
	for a := range 128 {
		for b := range 128 {
			texts = append(texts, string([]byte{byte(a), byte(b)}))
		}
	}
	r := rand.New(rand.NewSource(1))
	const alphabet = "aAbsStTrReEvVmMlLdDxz019 '\t\n\r\v\f.,-!(\x00\x7f"
	for range 3000 {
		b := make([]byte, 1+r.Intn(12))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	doc, err := os.ReadFile("../../../docs/answers.md")
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, strings.SplitAfter(string(doc), "\n")...)
	ascii := 0
	for _, s := range texts {
		var got []string
		if !asciiPieces(s, func(p string) { got = append(got, p) }) {
			continue
		}
		ascii++
		if want := e.pieces(s); !slices.Equal(got, want) {
			t.Errorf("%q: pieces %q, the pattern's %q", s, got, want)
		}
	}
	if asciiPieces("naïve", func(string) {}) {
		t.Error("text past ASCII was cut without the pattern")
	}
	t.Logf("%d of %d texts ASCII", ascii, len(texts))
}

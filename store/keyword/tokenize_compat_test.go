package keyword

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
)

// The fast analyser must emit exactly the tokens the previous one did:
// every library's keyword index (bm25.idx, PostgreSQL's terms) holds them.

// sameTokens fails the test where Tokenize and refTokenize differ on text.
func sameTokens(t *testing.T, what, text string) {
	t.Helper()
	if got, want := Tokenize(text), refTokenize(text); !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("%s: token %d is %q, was %q (of %d, was %d)", what, i, got[i], want[i], len(got), len(want))
			}
		}
		t.Fatalf("%s: %d tokens, was %d", what, len(got), len(want))
	}
}

func TestTokenizeSameOnSciFact(t *testing.T) {
	texts := scifactTexts(t, 1<<30)
	for i, text := range texts {
		sameTokens(t, fmt.Sprintf("SciFact abstract %d", i), text)
	}
	t.Logf("%d abstracts", len(texts))
}

func TestTokenizeSameOnCJKPDFs(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("no pdftotext (poppler-utils)")
	}
	for _, name := range []string{"elegantpaper-cn.pdf", "jo-miyazawa-ja-vertical.pdf", "elegantpaper-en.pdf"} {
		path := filepath.Join(shareddata.Dir(), "pdf", name)
		out, err := exec.Command("pdftotext", path, "-").Output()
		if err != nil {
			t.Skipf("%s: %v", path, err)
		}
		if len(out) < 1000 {
			t.Fatalf("%s: only %d bytes of text", name, len(out))
		}
		sameTokens(t, name, string(out))
		for _, line := range strings.Split(string(out), "\n") {
			sameTokens(t, name, line)
		}
	}
}

// TestTokenizeSameOnMixedText compares the analysers on random text made
// of the pieces where a fast path could part from the slow one: capitals,
// possessives (ASCII and typographic), stopwords in capitals, digits,
// apostrophes, hyphens, accents, the Kelvin sign (lowercases to ASCII k),
// CJK runs, and words longer than the fast path's buffer.
func TestTokenizeSameOnMixedText(t *testing.T) {
	pieces := []string{"The", "THE", "the", "And", "Alzheimer's", "ALZHEIMER'S", "Alzheimer’s", "it's", "'s", "s'",
		"isn't", "IL-6", "3.5-fold", "2019", "Happy", "happy", "RELATIONAL", "relational", "generalizations",
		"Égalité", "ÉTÉ", "\u212Aelvin", "naïve", "café's", "机器学习", "日本語のテキスト", "한국어", "BERT模型", "ー",
		"x", "A", "Is", "sky", "SKY", "skies", "Ponies", "hopping", "feed", "agreed", "y", "yy", "ys",
		"_under_score", "e.g.", "U.S.", "don’t", "…", "—", " ", " ", "\n", ",", ".", "(", ")", "'", "’",
		strings.Repeat("abc", 21) + "ing", strings.Repeat("Ab", 32), strings.Repeat("ab", 32) + "s", strings.Repeat("a", 63) + "'s",
		strings.Repeat("x", 64), strings.Repeat("y", 65), "ational", "tional", "ization", "ousness", "ement"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		sameTokens(t, fmt.Sprintf("mixed text %d %q", i, b.String()), b.String())
	}
}

func TestStopwordSwitch(t *testing.T) {
	for w := range stopwords {
		if !isStopword([]byte(w)) {
			t.Errorf("isStopword(%q) = false", w)
		}
	}
	n := 0
	for _, w := range scifactTexts(t, 200) {
		for _, f := range strings.Fields(strings.ToLower(w)) {
			if isStopword([]byte(f)) != stopwords[f] {
				t.Errorf("isStopword(%q) = %v", f, !stopwords[f])
			}
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d words checked", n)
	}
}

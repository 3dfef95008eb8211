package keyword

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/figures"
	"github.com/ibid-dev/ibid/internal/shareddata"
)

// Every library's keyword index (bm25.idx, PostgreSQL's terms) holds the
// tokens Tokenize emitted when it was written, so a faster Tokenize must
// emit exactly the same ones. testdata/tokens.golden holds, for each
// corpus, the SHA-256 of its texts and of the token stream the analyser
// gave them (recorded before the analyser was made faster, commit
// ef9c899); testdata/sample.tokens is the token list of testdata/sample.txt,
// to read. A change of tokens is a change of every index's format: it
// needs a migration of the indexes, not a new golden file.
//
// The whole SciFact corpus (5,183 abstracts, seconds under -race) runs
// with IBID_FIGURES=1, as CI runs it; its first 500 abstracts always
// ("scifact-500", whose digests were taken from the analyser that matched
// the whole corpus's).

// golden is one line of testdata/tokens.golden.
type golden struct{ textSum, tokenSum string }

func readGolden(t *testing.T) map[string]golden {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "tokens.golden"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]golden{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("tokens.golden: bad line %q", line)
		}
		out[f[0]] = golden{f[1], f[2]}
	}
	return out
}

// digests returns the SHA-256 of texts and of their token streams (each
// token followed by a newline, each text's tokens by a record separator).
func digests(texts []string, tokenize func(string) []string) golden {
	th, kh := sha256.New(), sha256.New()
	for _, text := range texts {
		th.Write([]byte(text))
		th.Write([]byte{0x1e})
		for _, tok := range tokenize(text) {
			kh.Write([]byte(tok))
			kh.Write([]byte{'\n'})
		}
		kh.Write([]byte{0x1e})
	}
	return golden{hex.EncodeToString(th.Sum(nil)), hex.EncodeToString(kh.Sum(nil))}
}

// goldenCorpora are the corpora of tokens.golden: each returns its texts,
// or skips when they are not on this machine.
var goldenCorpora = map[string]func(t *testing.T) []string{
	"scifact": func(t *testing.T) []string {
		figures.Require(t)
		return scifactTexts(t, 1<<30)
	},
	"scifact-500": func(t *testing.T) []string { return scifactTexts(t, 500) },
	"mixed":       func(*testing.T) []string { return mixedTexts() },
	"elegantpaper-cn.pdf": func(t *testing.T) []string {
		return pdfText(t, "elegantpaper-cn.pdf")
	},
	"jo-miyazawa-ja-vertical.pdf": func(t *testing.T) []string {
		return pdfText(t, "jo-miyazawa-ja-vertical.pdf")
	},
	"elegantpaper-en.pdf": func(t *testing.T) []string {
		return pdfText(t, "elegantpaper-en.pdf")
	},
}

func TestTokenizeGolden(t *testing.T) {
	want := readGolden(t)
	if len(want) != len(goldenCorpora) {
		t.Fatalf("tokens.golden has %d corpora, the test %d", len(want), len(goldenCorpora))
	}
	for name, texts := range goldenCorpora {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no line for %s in tokens.golden", name)
			}
			got := digests(texts(t), Tokenize)
			if got.textSum != w.textSum {
				t.Skipf("the texts of %s are not those the digest was made of (another SciFact copy or pdftotext version)", name)
			}
			if got.tokenSum != w.tokenSum {
				t.Fatalf("Tokenize emits other tokens on %s than the analyser every index was built with", name)
			}
		})
	}
}

func TestTokenizeSample(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "sample.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "sample.tokens"))
	if err != nil {
		t.Fatal(err)
	}
	got := Tokenize(string(text))
	if w := strings.Fields(string(want)); !slices.Equal(got, w) {
		for i := range min(len(got), len(w)) {
			if got[i] != w[i] {
				t.Fatalf("token %d is %q, want %q", i, got[i], w[i])
			}
		}
		t.Fatalf("%d tokens, want %d", len(got), len(w))
	}
}

// pdfText returns the text poppler's pdftotext reads from a shared PDF,
// whole and line by line, or skips.
func pdfText(t *testing.T, name string) []string {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("no pdftotext (poppler-utils)")
	}
	path := filepath.Join(shareddata.Dir(), "pdf", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s: %v", name, err)
	}
	out, err := exec.Command("pdftotext", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", name, err)
	}
	if len(out) < 1000 {
		t.Fatalf("%s: only %d bytes of text", name, len(out))
	}
	return append([]string{string(out)}, strings.Split(string(out), "\n")...)
}

// mixedTexts are 20,000 random texts made of the pieces where a fast path
// could part from the slow one: capitals, possessives (ASCII and
// typographic), stopwords in capitals, digits, apostrophes, hyphens,
// accents, the Kelvin sign (which lowercases to an ASCII k), CJK runs, and
// words longer than the fast path's buffer.
func mixedTexts() []string {
	pieces := []string{"The", "THE", "the", "And", "Alzheimer's", "ALZHEIMER'S", "Alzheimer’s", "it's", "'s", "s'",
		"isn't", "IL-6", "3.5-fold", "2019", "Happy", "happy", "RELATIONAL", "relational", "generalizations",
		"Égalité", "ÉTÉ", "\u212Aelvin", "naïve", "café's", "机器学习", "日本語のテキスト", "한국어", "BERT模型", "ー",
		"x", "A", "Is", "sky", "SKY", "skies", "Ponies", "hopping", "feed", "agreed", "y", "yy", "ys",
		"_under_score", "e.g.", "U.S.", "don’t", "…", "—", " ", " ", "\n", ",", ".", "(", ")", "'", "’",
		strings.Repeat("abc", 21) + "ing", strings.Repeat("Ab", 32), strings.Repeat("ab", 32) + "s", strings.Repeat("a", 63) + "'s",
		strings.Repeat("x", 64), strings.Repeat("y", 65), "ational", "tional", "ization", "ousness", "ement"}
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 20000)
	for i := range out {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
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

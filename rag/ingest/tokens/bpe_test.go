package tokens

import (
	"os"
	"slices"
	"testing"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/pkoukk/tiktoken-go"
)

// The encoder's tokens are tiktoken-go's EncodeOrdinary's, and its
// decoding is tiktoken-go's Decode, for cl100k_base: on edge cases (each
// alternative of the pattern, contractions in any case, numbers cut in
// threes, runs of white space before a word or at the end, invalid
// UTF-8, scripts without spaces), on every word of docs/answers.md as the
// chunker cuts it (the encoder is handed words only), and on pieces of
// the hostile texts whole.
func TestBPEIsTiktokens(t *testing.T) {
	tiktoken.SetBpeLoader(vocabulary{})
	want, err := tiktoken.GetEncoding(tokenEncoding)
	if err != nil {
		t.Fatal(err)
	}
	got := encoder()
	texts := []string{
		"", " ", "a", "A", "hello", " hello", "  hello", "hello world", "Hello, World!",
		"don't", "DON'T", "it's", "we'Re", "they've", "I'M", "you'll", "he'D", "WE'VE", "THEY'RE", "YOU'LL", "IT'S", "I'D", "Ann'S", "O'DONNELL", "'TIS", "'SAID'", "'s", "'x",
		"1", "12", "123", "1234", "1234567", "3.14159", "x2y3", "٣٤٥٦",
		"\n", "\r\n", "\n\n\n", "a\nb", "a \n b", "  \n  ", "\t\tx", "end   ", "   ",
		"!!!", " ?!", "...\n", "--\r\n", "(a)", "[[[[", "\\cite{x}", "a_b", "e-mail",
		"naïve café", "Straße", "研究引用", "日本語の文", "😀😀", " 😀", "ab😀cd",
		"\xff\xfe", "a\xffb", "\x00\x01", "zzzzzzzzzzzzzzzzzzzzzzzzzz", "qxjkvwqxjkvw",
		"https://example.org/a?b=c&d=e", "x := f(y) // note", "<b>bold</b>",
	}
	doc, err := os.ReadFile("../../../docs/answers.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for w := range words(string(doc)) {
		if !seen[w] {
			seen[w] = true
			texts = append(texts, w)
		}
	}
	for _, h := range synthtext.Hostile {
		texts = append(texts, h.Make(300))
	}
	for _, s := range texts {
		w := want.EncodeOrdinary(s)
		g := got.encode(s)
		if !slices.Equal(g, w) {
			t.Errorf("%q: tokens %v, tiktoken's %v", s, g, w)
			continue
		}
		// Every prefix of a word's tokens (as cutWord decodes them); a
		// longer text's whole.
		for k := range len(g) + 1 {
			if k < len(g) && len(g) > 16 {
				continue
			}
			if d, wd := got.decode(g[:k]), want.Decode(w[:k]); d != wd {
				t.Errorf("%q: the first %d tokens decode to %q, tiktoken's to %q", s, k, d, wd)
			}
		}
	}
	t.Logf("%d texts, %d distinct words of docs/answers.md", len(texts), len(seen))
}

package keyword

import (
	"slices"
	"testing"
)

// PDF text writes a raised footnote mark as superscript digits after its
// word ("Bing Chat²"); the word is found as itself, and the mark is no
// token.
func TestTokenizeSuperscriptMarks(t *testing.T) {
	got := Tokenize("Bing Chat² and perplexity.ai³ respond, as models.¹⁴ do")
	want := []string{"bing", "chat", "perplexity.ai", "respond", "model", "do"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
	if q := Tokenize("chat"); len(q) != 1 || !slices.Contains(got, q[0]) {
		t.Errorf("the query chat (%q) does not match the text's tokens %q", q, got)
	}
}

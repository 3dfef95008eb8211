package ui

import "testing"

// TestSnippetText: a Markdown passage's start, as rag stores it (one
// line), reads as plain words without the heading the entry names
// already; a PDF's text is kept, its white space collapsed.
func TestSnippetText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in    string
		names []string
		want  string
	}{
		{"## Demo tips - Use the project's own documentation as a library: `ibid --library ibid-docs docs/`", []string{"Demo tips", "The chat"},
			"- Use the project's own documentation as a library: ibid --library ibid-docs docs/"},
		{"# ibid documentation - [tui.md](tui.md): the chat: screens, every key", []string{"", "ibid documentation"}, "- tui.md: the chat: screens, every key"},
		{"## The screen ``` › how are footnote numbers assigned? │Sources (3)", []string{"The screen", "The chat"}, "› how are footnote numbers assigned? │Sources (3)"},
		{"## Another heading then text", []string{"Results"}, "Another heading then text"},
		{"| Mode | Numbers | |---|:--:| | answer | restart |", nil, "| Mode | Numbers | | answer | restart |"},
		{"A **bold** claim with ![a figure](f.png) and __more__ ## inside.", nil, "A bold claim with a figure and more inside."},
		{"7 Related Work Evaluating citations.  Generating text\nwith citations", []string{"7 Related Work"}, "7 Related Work Evaluating citations. Generating text with citations"},
		{"#hashtag is not a heading", nil, "#hashtag is not a heading"},
		{"## Demo tips", []string{"Demo tips"}, ""},
		{"", nil, ""},
	} {
		if got := snippetText(c.in, c.names...); got != c.want {
			t.Errorf("snippetText(%q, %q) = %q, want %q", c.in, c.names, got, c.want)
		}
	}
	if got := innermost("The chat › The screen"); got != "The screen" {
		t.Errorf("innermost: %q", got)
	}
}

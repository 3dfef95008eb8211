package extractive

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The prefiltered patterns (isPromptLine, isPromptCaption, isRefEntry,
// hasTableCaption) say what their regular expressions say, on lines made
// to match each alternative and to miss it narrowly, and on every line
// of docs/answers.md.
func TestPrefiltersAgree(t *testing.T) {
	lines := []string{
		"", "x", "Question: what is it?", "Question 2: why?", "Q: a", "Q1 : b", "A: yes", "A (3): no",
		"Original question: the first", "Sub-claims: two", "Sub-claim [2]: one", "Extracted span: here",
		"Document [1] Title", "Document (12) more", "Document 3: text", "Documents are kept", "Document without a number",
		"The answer is: this", "Answer the question", "Instruction: write", "Context:",
		"Table 3: Prompts used for the judge", "Table 3: Instructions for annotators", "Figure 2: An example 4.",
		"Figure 2: the example 4 of many", "Table 1. Results", "Tables 2: not a caption", "Figure: none",
		"[12] Smith, J. A paper.", "(3) Müller, K., another.", "[1234] Smith, too many digits", "[1] lower, case",
		"In Proceedings of ACL, 2020.", "in proceedings of acl", "arXiv preprint arXiv:2305.14627", "arXiv preprints",
		"Journal, pp. 893–910.", "pp.12", "app. 12", "pp. twelve", "A ppm. 3",
		"Table 13: Retrieval results\nTable 2. More", "no table here\nTable 4: one", "Tablet 3: no", "see Table 3: inline",
	}
	// And the lines of the answerer's own docs (prose, tables, code,
	// examples of prompts and references): all of docs/ took seconds
	// under the race detector.
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "answers.md"))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(b)) {
		lines = append(lines, strings.TrimSpace(l))
	}
	matched := map[string]int{}
	for _, c := range []struct {
		name string
		re   *regexp.Regexp
		fn   func(string) bool
	}{
		{"isPromptLine", rePromptLn, isPromptLine},
		{"isPromptCaption", rePromptCa, isPromptCaption},
		{"isRefEntry", reRefEntry, isRefEntry},
		{"hasTableCaption", reTableCaption, hasTableCaption},
	} {
		for _, l := range lines {
			want := c.re.MatchString(l)
			if got := c.fn(l); got != want {
				t.Errorf("%s(%q) = %v, the pattern says %v", c.name, l, got, want)
			}
			if want {
				matched[c.name]++
			}
		}
		// The pattern matched some lines: the comparison covers its matches.
		if matched[c.name] < 3 {
			t.Errorf("%s: %d lines matched, want at least 3", c.name, matched[c.name])
		}
	}
	t.Logf("%d lines, matched %v", len(lines), matched)
}

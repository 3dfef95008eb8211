package pdf

import (
	"fmt"
	"strings"
	"testing"
)

// testSection is a run of text under one heading path.
type testSection struct {
	path       []string
	start, end int
}

// headingPaths splits a text at numbered headings found in reading
// order (see follows) and at named ones (References, Abstract, ...).
// Without any, the text is one section.
func headingPaths(text string) []testSection {
	var secs []testSection
	var cur *headingNumber
	var stack []string // heading lines by depth
	var path []string
	start := 0
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		line := text[ls:le]
		if isNamedHeading(line) {
			if ls > start {
				secs = append(secs, testSection{path: path, start: start, end: ls})
			}
			stack = []string{strings.TrimSpace(line)}
			path = append([]string(nil), stack...)
			start = ls
		} else if n, ok := parseHeading(line); ok && follows(cur, n) {
			if ls > start {
				secs = append(secs, testSection{path: path, start: start, end: ls})
			}
			d := len(n.parts)
			if d > len(stack) {
				d = len(stack) + 1
			}
			stack = append(stack[:d-1], strings.Join(strings.Fields(line), " "))
			path = append([]string(nil), stack...)
			nn := n
			cur = &nn
			start = ls
		}
		ls = le + 1
	}
	if start < len(text) {
		secs = append(secs, testSection{path: path, start: start, end: len(text)})
	}
	return secs
}

func TestPDFHeadings(t *testing.T) {
	text := strings.Join([]string{
		"A Paper Title",
		"Abstract",
		"Abstract text here.",
		"1 Introduction",
		"intro text, with 2 things.",
		"5 correct answers.",
		"2 0.220 0.293",
		"2 Method",
		"2.1 Setup",
		"1. A numbered list item that is not a heading",
		"2.2 Data",
		"2.2.1 Cleaning",
		"3 Results",
		"5 20 50 100",
		"References",
		"Gao, T. 2023. A paper.",
		"A Appendix Stuff",
		"E. coli, says someone",
		"A.1 More",
		"B Prompts",
	}, "\n")
	var got [][]string
	for _, s := range headingPaths(text) {
		got = append(got, s.path)
	}
	want := [][]string{nil, {"Abstract"}, {"1 Introduction"}, {"2 Method"}, {"2 Method", "2.1 Setup"}, {"2 Method", "2.2 Data"},
		{"2 Method", "2.2 Data", "2.2.1 Cleaning"}, {"3 Results"}, {"References"}, {"A Appendix Stuff"}, {"A Appendix Stuff", "A.1 More"}, {"B Prompts"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("sections\n got %q\nwant %q", got, want)
	}
}

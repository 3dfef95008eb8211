package store

import (
	"regexp"
	"strings"
	"testing"
)

func TestSkipHeadings(t *testing.T) {
	f := Filter{SkipHeadings: []string{"References", "参考文献", ""}}
	for _, c := range []struct {
		section []string
		admit   bool
	}{
		{[]string{"References"}, false},
		{[]string{"REFERENCES", "Journals"}, false},
		{[]string{"7 References"}, false},
		{[]string{"7.1. references"}, false},
		{[]string{"参考文献"}, false},
		{[]string{"Referenced work"}, true},
		{[]string{"Methods", "References"}, true}, // only the outermost heading counts
		{[]string{"A References"}, true},
		{[]string{"7References"}, true},
		{nil, true},
		{[]string{""}, true},
	} {
		seg := Segment{Section: c.section}
		if got := f.Match(&Document{}, &seg); got != c.admit {
			t.Errorf("%q: admitted %v, want %v", c.section, got, c.admit)
		}
	}
	// Lower case decides, as in PostgreSQL: σ and ς fold together but are
	// different lower-case letters.
	if seg := (Segment{Section: []string{"ΑΣ"}}); !(Filter{SkipHeadings: []string{"ας"}}).Match(&Document{}, &seg) {
		t.Error(`"ας" left out the section "ΑΣ"`)
	}
	if (Filter{SkipHeadings: []string{"x"}}).IsZero() {
		t.Error("a filter that skips headings is zero")
	}
}

// TopHeading strips what HeadingNumber matches, as PostgreSQL does with
// regexp_replace.
func TestTopHeadingMatchesHeadingNumber(t *testing.T) {
	re := regexp.MustCompile(HeadingNumber)
	for _, s := range []string{"7 References", "7.1. References", "7.1.References", "7. ", "7.", "7", "12\tNotes", "1.2.3 A", "1..2 X",
		"A References", "References", " 7 References", "7 / References", "7.x Y", "", "٣ Arabic digit", "7  two spaces", "1.2. 3 x"} {
		want := re.ReplaceAllString(s, "")
		if i := strings.Index(s, " / "); i >= 0 {
			want = re.ReplaceAllString(s[:i], "")
		}
		if got := TopHeading([]string{s, "Sub"}); got != want {
			t.Errorf("TopHeading(%q) = %q, want %q", s, got, want)
		}
	}
}

package extractive

import (
	"strings"
	"testing"
)

func TestSplitSentencesAbbreviations(t *testing.T) {
	got := splitSentences("Smith et al. found it. See Fig. 2 for i.e. the rest. A value of 3.5 holds. J. Doe agrees.")
	if len(got) != 4 {
		t.Errorf("sentences = %q, want 4", got)
	}
	for _, s := range got {
		if strings.HasSuffix(s, "al.") || strings.HasSuffix(s, "Fig.") || strings.HasSuffix(s, "i.e.") || strings.HasSuffix(s, " J.") {
			t.Errorf("sentence ends at an abbreviation: %q", s)
		}
	}
}

// A quoted Markdown link shows its text, not where it points; a code
// span keeps what it holds.
func TestQuoteLinkText(t *testing.T) {
	for in, want := range map[string]string{
		"See [the storage guide](storage.md) for the format.":                           "See the storage guide for the format.",
		"Write `[text](url)` for a link, as [CommonMark](https://commonmark.org) says.": "Write `[text](url)` for a link, as CommonMark says.",
		"A bracket [2] and a call f(x) stay.":                                           "A bracket [2] and a call f(x) stay.",
	} {
		us := units(in, "", false)
		if len(us) != 1 || us[0].text != want {
			t.Errorf("units(%q) = %+v, want one quote %q", in, us, want)
		}
	}
}

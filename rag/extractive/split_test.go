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

package ingest

import (
	"strings"
	"testing"
)

func TestParseStrategy(t *testing.T) {
	for _, s := range Strategies {
		got, err := ParseStrategy(" " + strings.ToUpper(string(s)) + " ")
		if err != nil || got != s {
			t.Errorf("ParseStrategy(%q) = %q, %v", s, got, err)
		}
	}
	if got, err := ParseStrategy(""); err != nil || got != Recursive {
		t.Errorf(`ParseStrategy("") = %q, %v; want the default`, got, err)
	}
	_, err := ParseStrategy("sematic")
	if err == nil || !strings.Contains(err.Error(), "semantic") || !strings.Contains(err.Error(), "window-summary") {
		t.Errorf("unknown strategy: err = %v, want one that lists the names", err)
	}
	need := map[Strategy]bool{Contextual: true, WindowSummary: true, Questions: true}
	for _, s := range Strategies {
		if s.NeedsModel() != need[s] {
			t.Errorf("%s.NeedsModel() = %v", s, s.NeedsModel())
		}
	}
}

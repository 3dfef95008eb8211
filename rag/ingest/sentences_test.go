package ingest

import (
	"slices"
	"strings"
	"testing"
)

func sentenceTexts(text string) []string {
	var out []string
	for _, s := range Sentences(text) {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"Pi is 3.14 here. Next one.", []string{"Pi is 3.14 here.", "Next one."}},
		{"As Gao et al. (2023) show, e.g. this. Fig. 2 shows it. Done.", []string{"As Gao et al. (2023) show, e.g. this.", "Fig. 2 shows it.", "Done."}},
		{"Work by Gao et al. Later work differs. See Fig. Two.", []string{"Work by Gao et al. Later work differs.", "See Fig. Two."}},
		{"Use tools, i.e. the compiler. Then stop.", []string{"Use tools, i.e. the compiler.", "Then stop."}},
		{"Compare A vs. B here. Dr. Who agrees. See cf. Smith. End.", []string{"Compare A vs. B here.", "Dr. Who agrees.", "See cf. Smith.", "End."}},
		{"Accuracy rose to 98.5% on 1.2 million items. Next.", []string{"Accuracy rose to 98.5% on 1.2 million items.", "Next."}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"J. Smith wrote it. Ok.", []string{"J. Smith wrote it.", "Ok."}},
		{"the U.S. army. and lower case continues. Yes.", []string{"the U.S. army. and lower case continues.", "Yes."}},
		{"Wait... What?! Really.", []string{"Wait...", "What?!", "Really."}},
		{"As shown [Smith et al. 2020. Proc. ACL] it holds. Next.", []string{"As shown [Smith et al. 2020. Proc. ACL] it holds.", "Next."}},
		{"Results [3]. More results [4, 5]. End.", []string{"Results [3].", "More results [4, 5].", "End."}},
		{"大型语言模型经常产生幻觉。为什么？因为训练！「引用。」好的", []string{"大型语言模型经常产生幻觉。", "为什么？", "因为训练！", "「引用。」", "好的"}},
		{"日本語の文です。次の文｡", []string{"日本語の文です。", "次の文｡"}},
		{"A hard-wrapped\nsentence goes on. Next\none.", []string{"A hard-wrapped\nsentence goes on.", "Next\none."}},
		{"para one\n\npara two", []string{"para one", "para two"}},
		{"Lead-in:\n- first item\n- second\n  continued\n1. numbered\n# Heading\n| a | b |\n> quote", []string{"Lead-in:", "- first item", "- second\n  continued", "1. numbered", "# Heading", "| a | b |", "> quote"}},
		{"Call `x. Y` now. Then `a.` B.", []string{"Call `x. Y` now.", "Then `a.` B."}},
		{"Run ``a ` b. C`` here. Ok.", []string{"Run ``a ` b. C`` here.", "Ok."}},
		{"A lone ` tick. Ends here.", []string{"A lone ` tick.", "Ends here."}},
		{"Before.\n```go\nx := 1. Y := 2\n\nz. Q\n```\nAfter. More.", []string{"Before.", "```go\nx := 1. Y := 2\n\nz. Q\n```", "After.", "More."}},
		{"Open fence.\n~~~\nA. B. C.\n", []string{"Open fence.", "~~~\nA. B. C."}},
		{"  leading and trailing  ", []string{"leading and trailing"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := sentenceTexts(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestSentencesCoverAndCode checks the contract on varied text: spans in
// order, trimmed, holding every non-space byte, and never inside a code
// span or fence (every sentence's backticks outside fences pair up).
func TestSentencesCoverAndCode(t *testing.T) {
	in := strings.Repeat("Gao et al. use `a. B` and ``x`y. Z``. Fig. 3 [Ref. 2] shows 98.5% gains! 中文。Next?\n```\nA. B.\n```\n\n", 20)
	spans := Sentences(in)
	prev := 0
	covered := make([]bool, len(in))
	for _, s := range spans {
		if s.Start < prev || s.End <= s.Start || strings.TrimSpace(in[s.Start:s.End]) != in[s.Start:s.End] {
			t.Fatalf("bad span %v after %d", s, prev)
		}
		for k := s.Start; k < s.End; k++ {
			covered[k] = true
		}
		prev = s.End
		txt := in[s.Start:s.End]
		if !strings.HasPrefix(txt, "```") && len(codeSpans(txt, nil)) == 0 && strings.Contains(txt, "`") {
			t.Errorf("sentence %q has an unpaired backtick", txt)
		}
	}
	for k, c := range in {
		if !covered[k] && !strings.ContainsRune(" \n", c) {
			t.Fatalf("byte %d (%q) in no sentence", k, c)
		}
	}
}

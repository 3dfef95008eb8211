package llm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutAnswer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text  string
		bound int
		want  string
	}{
		{"Short.", 100, "Short."},
		{"One sentence. Two sentences go on and on and on", 24, "One sentence."},
		{`He said "stop." Then he went on and on and on`, 30, `He said "stop."`},
		{"第一句。第二句话很长很长很长很长", 20, "第一句。"},
		{"A line of text\nand a long second line without end", 20, "A line of text"},
		{"no sentence end here at all just words", 20, "no sentence end"},
		{"Too early. Then a very long run without any stop at all", 40, "Too early. Then a very long run without"},
		{strings.Repeat("x", 50), 20, strings.Repeat("x", 20)},
		{"ééééééééé", 5, "éé"},
		{"3.14 is pi and the text goes on", 12, "3.14 is pi"},
	} {
		got := CutAnswer(c.text, c.bound)
		if got != c.want {
			t.Errorf("CutAnswer(%q, %d) = %q, want %q", c.text, c.bound, got, c.want)
		}
		if len(got) > c.bound || !utf8.ValidString(got) {
			t.Errorf("CutAnswer(%q, %d) = %q: over the bound or not UTF-8", c.text, c.bound, got)
		}
	}
}

func TestAnswerBound(t *testing.T) {
	t.Parallel()
	if AnswerBound(150) != 150*16 || AnswerBound(0) != DefaultAnswerBound || AnswerBound(1<<30) != DefaultAnswerBound {
		t.Errorf("AnswerBound: %d %d %d", AnswerBound(150), AnswerBound(0), AnswerBound(1<<30))
	}
}

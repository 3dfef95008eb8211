package enrich

import (
	"slices"
	"testing"
	"time"
)

func TestParseQuestions(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"1. What is A?\n2) Why B?\n3 - How C?", []string{"What is A?", "Why B?", "How C?"}},
		{"Here are three questions:\n\n- What is A?\n* Why B?\n• How C?", []string{"What is A?", "Why B?", "How C?"}},
		{"```json\n[\"What is A?\", \"Why B?\"]\n```", []string{"What is A?", "Why B?"}},
		{`{"questions": ["What is A?"]}`, []string{"What is A?"}},
		{"Q1: What is A?\nQ2: What is A?\n**Why B?**", []string{"What is A?", "Why B?"}},
		{"1. Name the method\n2. State the result", []string{"Name the method", "State the result"}},
		{"1. A?\n2. B?\n3. C?\n4. D?\n5. E?\n6. F?", []string{"A?", "B?", "C?", "D?", "E?"}},
		{"A1 の結果は？", []string{"A1 の結果は？"}},
		{"I'm sorry, I can't help with that.", nil},
		{"", nil},
		{"[]", nil},
	} {
		if got := parseQuestions(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseQuestions(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReportString(t *testing.T) {
	r := Report{Calls: 412, CacheHits: 38, InputTokens: 1_234_567, CachedInputTokens: 912_000, OutputTokens: 30_400, Failed: 2, Wall: time.Second}
	if got, want := r.String(), "enrichment: 412 calls, 38 cache hits, 1.2M input tokens (912k cached), 30k output tokens, 2 chunks failed"; got != want {
		t.Errorf("String = %q\nwant %q", got, want)
	}
	r = Report{Calls: 1, CacheHits: 1, InputTokens: 1500, OutputTokens: 12, EstimatedCalls: 1}
	if got, want := r.String(), "enrichment: 1 call, 1 cache hit, 1.5k input tokens (estimated), 12 output tokens"; got != want {
		t.Errorf("String = %q\nwant %q", got, want)
	}
}

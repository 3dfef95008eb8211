package llm

import (
	"slices"
	"testing"
)

func TestParsePermutation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		answer string
		n      int
		want   []int // nil: unparsed
	}{
		{"[3] > [1] > [2]", 3, []int{2, 0, 1}},
		{"[2] > [2] > [9] > [0] > [1]", 3, []int{1, 0, 2}},
		{"[3]", 4, []int{2, 0, 1, 3}},
		{"3 > 1 > 2", 3, []int{2, 0, 1}},
		{"Ranking: [ 2 ] > [1]. Passage 3 is irrelevant.", 3, []int{1, 0, 2}},
		{"<think>maybe [1] > [2]</think>\n[2] > [1]", 2, []int{1, 0}},
		{"<think>still thinking [2]", 2, nil},
		{"I cannot rank these.", 3, nil},
		{"[7] > [0]", 3, nil},
		{"", 3, nil},
	}
	for _, tc := range tests {
		got, ok := parsePermutation(tc.answer, tc.n)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("parsePermutation(%q, %d) = %v, %v; want %v", tc.answer, tc.n, got, ok, tc.want)
		}
	}
}

package ingest

import (
	"slices"
	"testing"
)

func TestPushHeading(t *testing.T) {
	var stack []string
	for _, c := range []struct {
		level int
		text  string
		want  []string
	}{
		{1, "1 Intro", []string{"1 Intro"}},
		{2, "1.1 Bees", []string{"1 Intro", "1.1 Bees"}},
		{3, "1.1.1 Drones", []string{"1 Intro", "1.1 Bees", "1.1.1 Drones"}},
		{2, "1.2 Mites", []string{"1 Intro", "1.2 Mites"}},
		{5, "A deep one", []string{"1 Intro", "1.2 Mites", "A deep one"}}, // one below the last
		{0, "2 Methods", []string{"2 Methods"}},                           // no level: the top
	} {
		stack = pushHeading(stack, c.level, c.text)
		if !slices.Equal(stack, c.want) {
			t.Fatalf("after %d %q: %q, want %q", c.level, c.text, stack, c.want)
		}
	}
}

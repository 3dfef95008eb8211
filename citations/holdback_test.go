package citations

import (
	"strings"
	"testing"
)

// TestHoldback checks what is held after each write: only a candidate
// token and an incomplete rune; everything else is emitted at once.
func TestHoldback(t *testing.T) {
	t.Parallel()
	steps := []struct {
		write string
		held  int
		shown string // plain text shown so far
	}{
		{"Bees pollinate ", 0, "Bees pollinate "},
		{"almonds [sou", 4, "Bees pollinate almonds "},
		{"rce_12", 10, "Bees pollinate almonds "},
		{"]. 蜜", 0, "Bees pollinate almonds [1]. 蜜"},
		{"\xe8\x9c", 2, "Bees pollinate almonds [1]. 蜜"},
		{"\x82【", 3, "Bees pollinate almonds [1]. 蜜蜂"},
		{"source_1", 11, "Bees pollinate almonds [1]. 蜜蜂"},
		{"】 `[source_1", 0, "Bees pollinate almonds [1]. 蜜蜂[2] `[source_1"},
		{"` [source_2" + strings.Repeat(" ", 50), 59, "Bees pollinate almonds [1]. 蜜蜂[2] `[source_1` "},
		{strings.Repeat(" ", 4), 63, "Bees pollinate almonds [1]. 蜜蜂[2] `[source_1` "},
		{" ", 0, "Bees pollinate almonds [1]. 蜜蜂[2] `[source_1` [source_2" + strings.Repeat(" ", 55)},
		{"]", 0, "Bees pollinate almonds [1]. 蜜蜂[2] `[source_1` [source_2" + strings.Repeat(" ", 55) + "]"},
	}
	var c collector
	r := NewRenumberer(c.handle, Options{})
	for _, s := range steps {
		r.Write([]byte(s.write))
		if got := r.Held(); got != s.held {
			t.Errorf("after %q: held %d, want %d", s.write, got, s.held)
		}
		if got := plain(c.evs); got != s.shown {
			t.Errorf("after %q: shown %q, want %q", s.write, got, s.shown)
		}
	}
	r.Flush()
	if r.Held() != 0 {
		t.Errorf("held %d after Flush", r.Held())
	}
}

package rag

import (
	"strings"
	"testing"
)

func TestClaim(t *testing.T) {
	// "|" marks where the reference is; text is the answer without it.
	for _, c := range []struct {
		marked, want string
		ended        bool
	}{
		{"Bees pollinate almonds |. Mites spread viruses.", "Bees pollinate almonds", true},
		{"Bees pollinate almonds. |Mites spread viruses.", "Bees pollinate almonds.", true},
		{"Bees pollinate almonds.\n\n|", "Bees pollinate almonds.", true},
		{"First. Bees pollinate almonds | and mites spread deformed wing virus.", "Bees pollinate almonds", false},
		{"In 2019 |, mites spread deformed wing virus.", "In 2019, mites spread deformed wing virus.", false},
		{"According to Smith |, mites spread deformed wing virus. Next.", "According to Smith, mites spread deformed wing virus.", true},
		{"According to Smith |, mites spread deformed wing virus", "According to Smith, mites spread deformed wing virus", false},
		{"- one item.\n- mites spread viruses |", "mites spread viruses", false},
		{"As Smith et al. showed, mites spread viruses |. Then", "As Smith et al. showed, mites spread viruses", true},
		{"蜜蜂采蜜。蜂螨传播病毒|。蜂王更替。", "蜂螨传播病毒", true},
		{"|", "", false},
		// A reference at the end of the answer so far, as a citation
		// arrives (its focus is settled there: answerRun.checkFocus).
		{"Bees pollinate almonds. Mites spread viruses |", "Mites spread viruses", false},
		{"Bees pollinate almonds. Mites spread viruses. |", "Mites spread viruses.", true},
		{"Bees warm the nest and drones leave |", "Bees warm the nest and drones leave", false}, // "A [1] and B [2]": refs are not text
		{"First. Run `ibid ask. --strict` on papers |", "Run `ibid ask. --strict` on papers", false},
	} {
		at := strings.Index(c.marked, "|")
		text := c.marked[:at] + c.marked[at+1:]
		if got := Claim(text, at); got != c.want {
			t.Errorf("%q: claim %q, want %q", c.marked, got, c.want)
		}
		if _, _, ended := claimSpan(text, at); ended != c.ended {
			t.Errorf("%q: ended %v, want %v", c.marked, ended, c.ended)
		}
	}
	long := strings.Repeat("é", 3*claimBytes) + " tail words here"
	if got := Claim(long, len(long)); !strings.HasSuffix(got, "tail words here") || len(got) > 2*claimBytes {
		t.Errorf("a long answer's claim: %d bytes", len(got))
	}
}

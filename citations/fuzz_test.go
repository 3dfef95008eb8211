package citations

import (
	"testing"
)

// fuzzCuts turns fuzz bytes into cut positions in a text of length n.
func fuzzCuts(cuts []byte, n int) []int {
	var out []int
	pos := 0
	for _, c := range cuts {
		pos += int(c)%17 + 1
		if pos >= n {
			break
		}
		out = append(out, pos)
	}
	return out
}

func fuzzCheck(t *testing.T, mode Mode, text string, cuts []byte) {
	opt := Options{Offered: func(k int) bool { return k%5 != 0 }}
	want := show(Render(mode, text, opt))
	if got := show(stream(t, mode, text, opt, at(fuzzCuts(cuts, len(text))...))); got != want {
		t.Fatalf("%s %q cut at %v:\n got %s\nwant %s", mode, text, fuzzCuts(cuts, len(text)), got, want)
	}
	if got := show(stream(t, mode, text, opt, bytewise(len(text)))); got != want {
		t.Fatalf("%s %q byte by byte:\n got %s\nwant %s", mode, text, got, want)
	}
}

// FuzzRenumber compares the inline stream, cut where the fuzzer says and
// byte by byte, with Render.
func FuzzRenumber(f *testing.F) {
	for _, tc := range inlineCases {
		f.Add(tc.in, []byte{3, 1, 7})
	}
	f.Add("a 【source_1, source_20】 ```x\n[source_3]\n```\n`[source_4]` [source_5]", []byte{0, 9, 2, 30})
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		fuzzCheck(t, ModeInline, text, cuts)
	})
}

// FuzzJSON does the same for the json and sections modes.
func FuzzJSON(f *testing.F) {
	for _, tc := range jsonCases {
		f.Add(tc.in, []byte{5, 2, 11}, false)
	}
	for _, tc := range sectionsCases {
		f.Add(tc.in, []byte{1, 4, 9}, true)
	}
	f.Fuzz(func(t *testing.T, text string, cuts []byte, sections bool) {
		mode := ModeJSON
		if sections {
			mode = ModeSections
		}
		fuzzCheck(t, mode, text, cuts)
	})
}

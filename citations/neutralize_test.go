package citations

import (
	"strings"
	"testing"
)

func TestNeutralize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"see [source_3].", "see (source 3)."},
		{"[Source 3]", "(Source 3)"},
		{"【source_1, source_2】 ［SOURCE_9］", "(source 1, source 2) (SOURCE 9)"},
		{"[source_1 source_1;source_2]", "(source 1 source 1;source 2)"},
		{"`[source_4]`", "`(source 4)`"},
		{"[source_5" + strings.Repeat(" ", 60) + "]", "(source 5" + strings.Repeat(" ", 60) + ")"},
		{"[1] [x] [source_code] [source_1234567] [source_7", "[1] [x] [source_code] [source_1234567] [source_7"},
		{"[[source_1]]", "[(source 1)]"},
		{"蜜蜂【source_1】。", "蜜蜂(source 1)。"},
		{"", ""},
	} {
		got := Neutralize(tc.in)
		if got != tc.want {
			t.Errorf("Neutralize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		checkNeutral(t, tc.in)
	}
}

// checkNeutral asserts that neutralised text renders without a reference
// in any mode's inline path and that Neutralize is idempotent.
func checkNeutral(t *testing.T, in string) {
	t.Helper()
	out := Neutralize(in)
	for _, e := range Render(ModeInline, out, Options{}) {
		if e.Kind == KindRef || e.Kind == KindUnknown {
			t.Fatalf("Neutralize(%q) = %q still cites: %v", in, out, e)
		}
	}
	if again := Neutralize(out); again != out {
		t.Fatalf("Neutralize not idempotent on %q: %q then %q", in, out, again)
	}
}

func FuzzNeutralize(f *testing.F) {
	for _, tc := range inlineCases {
		f.Add(tc.in)
	}
	f.Fuzz(checkNeutral)
}

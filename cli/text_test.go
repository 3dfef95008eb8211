package cli

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWrapText(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"the quick brown fox jumps", 10, []string{"the quick", "brown fox", "jumps"}},
		{"参考文献示例使用了中国", 8, []string{"参考文献", "示例使用", "了中国"}},
		{"abc 参考文献 def", 7, []string{"abc 参", "考文献", "def"}},
		{"supercalifragilistic", 8, []string{"supercal", "ifragili", "stic"}},
		{"", 10, []string{""}},
	} {
		got := wrapText(tc.in, tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tc.width {
				t.Errorf("line %q wider than %d", l, tc.width)
			}
		}
	}
}

package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"short", 10, "short"},
		{"Answers that cite their sources", 20, "Answers that cite…"},
		{"Supercalifragilistic", 8, "Superca…"},
		{"a b", 2, "a…"},
	} {
		if got := Shorten(c.in, c.w); got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

func TestMiddleEllipsis(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"/home/me/papers/smith2021.pdf", 40, "/home/me/papers/smith2021.pdf"},
		{"/home/me/papers/2021/smith2021.pdf", 24, "/home/me/…/smith2021.pdf"},
		{"/home/me/papers/a-very-long-file-name-indeed.pdf", 20, "…ile-name-indeed.pdf"},
		{"https://example.org/a/b/c/paper.html", 25, "https://examp…/paper.html"},
	} {
		got := MiddleEllipsis(c.in, c.w)
		if ansi.StringWidth(got) > c.w {
			t.Errorf("%q at %d: %q is %d wide", c.in, c.w, got, ansi.StringWidth(got))
		}
		if got != c.want {
			t.Errorf("%q at %d: %q, want %q", c.in, c.w, got, c.want)
		}
		name := c.in[strings.LastIndexByte(c.in, '/')+1:]
		if len(name)+2 <= c.w && !strings.HasSuffix(got, name) {
			t.Errorf("%q at %d: %q lost the file name", c.in, c.w, got)
		}
	}
}

package headless

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// everySplit feeds s to a fresh escaper whole and cut at every position,
// and checks that the output does not depend on the cut.
func everySplit(t *testing.T, name, s string, run func(parts ...string) string) string {
	t.Helper()
	want := run(s)
	for i := 1; i < len(s); i++ {
		if got := run(s[:i], s[i:]); got != want {
			t.Fatalf("%s %q cut at %d: %q, whole: %q", name, s, i, got, want)
		}
	}
	return want
}

func TestTextEscaper(t *testing.T) {
	t.Parallel()
	run := func(parts ...string) string {
		var e textEscaper
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(e.text(p))
		}
		return b.String() + e.flush()
	}
	for _, tc := range []struct{ in, want string }{
		{"no brackets", "no brackets"},
		{"the paper's own [2][3] and [12]", `the paper's own \[2]\[3] and \[12]`},
		{"a [?] mark", `a \[?] mark`},
		{"[link](url) [x] [ 2] arr[i]", "[link](url) [x] [ 2] arr[i]"},
		{"arr[0] and [[1]]", `arr\[0] and [\[1]]`},
		{"ends in [", "ends in ["},
		{"[9", `\[9`},
	} {
		if got := everySplit(t, "text", tc.in, run); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMarkdownEscaper(t *testing.T) {
	t.Parallel()
	run := func(parts ...string) string {
		e := newMDEscaper()
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(e.text(p))
		}
		return b.String() + e.close()
	}
	for _, tc := range []struct{ in, want string }{
		{"**Bees** _pollinate_ # not a heading", "**Bees** _pollinate_ # not a heading"},
		{`\nocite{*} [2](Smith 2019) [^3] $x$ <b> @doe ^sup^ ~sub~ %`, `\\nocite\{*\} \[2\](Smith 2019) \[\^3\] \$x\$ \<b> \@doe \^sup\^ \~sub\~ \%`},
		{"code `a[0] \\x` and ``b ` [c]`` [d]", "code `a[0] \\x` and ``b ` [c]`` \\[d\\]"},
		{"open `span [x]\nnext [y]", "open `span [x]`\nnext \\[y\\]"},
		{"```python {.x}\n[a] `b`\n```\n[c]", "```python .x\n[a] `b`\n```\n\\[c\\]"},
		{"```{=latex}\n\\nocite{*}\n```\n", "```latex\n\\nocite{*}\n```\n"},
		{"unclosed\n```\n[a]", "unclosed\n```\n[a]\n```\n"},
		{"closed at the end\n```\n[a]\n```", "closed at the end\n```\n[a]\n```\n"},
		{"- a list\n---\ntitle: x\n", "- a list\n--\\-\ntitle: x\n"},
		{"    ```\n[a]", "    ``` ```\n\\[a\\]"},      // indented: a span, closed at the line's end
		{"`\n``[]()", "` `\n``[]()``"},                // an empty span's closer must not join its opener
		{"```\n``` x\n[a]", "```\n``` x\n[a]\n```\n"}, // a closing fence takes nothing after its run
	} {
		if got := everySplit(t, "markdown", tc.in, run); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// tricky is a model's answer quoting a document whose text looks like
// markup: its own numbered references, a link, a footnote, LaTeX, math,
// HTML, a citation key, and a raw LaTeX block. source_1 is cited twice.
const tricky = "Bees [source_1] (the review's [2][3]) wrote \\nocite{*} and [2](Smith 2019) and [^3], $x$, <b>bold</b>, @doe.\n" +
	"Code `a[0] [^9]` stays code; mites [source_2], bees again [source_1].\n" +
	"```{=latex}\n\\nocite{*}\n```\n"

func trickyAnswer(t *testing.T, format string) string {
	t.Helper()
	srv := llmtest.New(llmtest.Reply{Chunks: llmtest.Split(tricky, 3)})
	defer srv.Close()
	return runAnswer(t, format, newFakeLibrary(), connect(t, srv))
}

func TestTextFootnotesStandApart(t *testing.T) {
	t.Parallel()
	got := trickyAnswer(t, "text")
	want := "Bees [1] (the review's \\[2]\\[3]) wrote \\nocite{*} and \\[2](Smith 2019) and [^3], $x$, <b>bold</b>, @doe.\n" +
		"Code `a\\[0] [^9]` stays code; mites [2], bees again [1].\n" +
		"```{=latex}\n\\nocite{*}\n```\n" +
		"\nSources:\n" +
		// The answer's sentences are not what the passages say: each
		// footnote is marked so.
		"[1] Unsupported: the passage does not say this. Bees and Flowers, p. 3, § 2 Methods › 2.1 Sites, /papers/bees.pdf\n" +
		"[2] Unsupported: the passage does not say this. Bees and Flowers, p. 4, § 3 Results, /papers/bees.pdf\n" +
		"\nNot supported by the passages they cite: [1], [2].\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestMarkdownFootnotesStandApart(t *testing.T) {
	t.Parallel()
	got := trickyAnswer(t, "markdown")
	want := "Bees[^1] (the review's \\[2\\]\\[3\\]) wrote \\\\nocite\\{*\\} and \\[2\\](Smith 2019) and \\[\\^3\\], \\$x\\$, \\<b>bold\\</b>, \\@doe.\n" +
		"Code `a[0] [^9]` stays code; mites[^2], bees again[^1].\n" +
		"```latex\n\\nocite{*}\n```\n" +
		"\n" +
		`[^1]: Bees and Flowers, p. 3, § 2 Methods › 2.1 Sites, /papers/bees.pdf: "Honey bees pollinate almond orchards in California." *(unsupported: the passage does not say this)*` + "\n" +
		`[^2]: Bees and Flowers, p. 4, § 3 Results, /papers/bees.pdf: "Mites spread viruses that collapse bee colonies." *(unsupported: the passage does not say this)*` + "\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Count(got, "[^1]:") != 1 || strings.Count(got, "[^1]") != 3 {
		t.Errorf("source 1 should have one note referenced twice:\n%s", got)
	}
}

// TestMarkdownThroughPandoc reads the Markdown face's output with Pandoc:
// the only footnotes are ibid's (three references to two notes), the
// document's markup comes through as text (no link, citation, raw TeX,
// math or HTML), and code stays code. Skipped without pandoc.
func TestMarkdownThroughPandoc(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc is not installed")
	}
	md := trickyAnswer(t, "markdown")
	pandoc := func(to string) string {
		cmd := exec.Command("pandoc", "-f", "markdown", "-t", to)
		cmd.Stdin = strings.NewReader(md)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pandoc -t %s: %v\n%s", to, err, stderr.String())
		}
		return string(out)
	}
	native := pandoc("native")
	if n := strings.Count(native, "Note"); n != 3 {
		t.Errorf("pandoc sees %d footnote references, want 3:\n%s", n, native)
	}
	for _, bad := range []string{"Link", "Cite", "RawInline", "RawBlock", "Math", "Superscript", "Subscript", "Span"} {
		if strings.Contains(native, bad) {
			t.Errorf("pandoc read document text as markup (%s):\n%s", bad, native)
		}
	}
	for _, want := range []string{`Code ( "" , [] , [] ) "a[0] [^9]"`, `CodeBlock ( "" , [ "latex" ] , [] ) "\\nocite{*}"`} {
		if !strings.Contains(native, want) {
			t.Errorf("pandoc's tree lacks %s:\n%s", want, native)
		}
	}
	plain := pandoc("plain")
	for _, want := range []string{`\nocite{*}`, "[2](Smith 2019)", "[^3]", "$x$", "<b>bold</b>", "@doe", "the review’s [2][3]", "Honey bees pollinate almond orchards in California."} {
		if !strings.Contains(plain, want) {
			t.Errorf("pandoc -t plain lacks %q:\n%s", want, plain)
		}
	}
}

// TestMarkdownReferenceNeverInCode: a reference drawn while a code span
// or block is open (a sections answer whose text ends inside code) comes
// after the code is closed, and so do the notes.
func TestMarkdownReferenceNeverInCode(t *testing.T) {
	t.Parallel()
	src := rag.Source{Number: 1, Title: "T [draft]", Path: "/p_1.md", Snippet: "a *b*\nc"}
	for _, tc := range []struct {
		text, want string
	}{
		{"See `a[0]", "See `a[0]`[^1]\n\n[^1]: T \\[draft\\], /p\\_1.md: \"a \\*b\\* c\"\n"},
		{"```go\nx[0]", "```go\nx[0]\n```\n[^1]\n\n[^1]: T \\[draft\\], /p\\_1.md: \"a \\*b\\* c\"\n"},
	} {
		var out bytes.Buffer
		w := NewMarkdownWriter(&out)
		for _, e := range []rag.Event{
			{Type: rag.EventText, Text: tc.text},
			{Type: rag.EventCitation, Number: 1, Source: &src},
			{Type: rag.EventRef, Number: 1},
			{Type: rag.EventDone, Total: 1},
		} {
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		if out.String() != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.text, out.String(), tc.want)
		}
	}
}

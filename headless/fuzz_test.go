package headless

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// FuzzMarkdownEscape writes arbitrary answer text through the Markdown
// face's escaper, cut where the fuzzer says, and checks that the cuts do
// not matter and that a CommonMark reader (goldmark) finds no link, image,
// autolink or raw HTML in what the face writes (after TerminalSafe):
// document text stays text. It also checks
// that code spans and blocks are all closed at the end, so that the notes
// that follow are read as notes.
func FuzzMarkdownEscape(f *testing.F) {
	for _, s := range []string{
		tricky,
		"[2](Smith 2019) ![img](x.png) <http://x.org> <b>hi</b>\n[ref]: /url\n[ref]",
		"``a [x](y) ``` b`` [c](d)\n```go\n[e](f)\n```\n~~~\n[g](h)\n~~~",
		"    ```\n[a](b)\n\\`[c](d)`",
		"<div>\n\n[x](y)\n</div>",
		"---\ntitle: x\n---\n% title\n",
		"open\n```\n[a](b)",
	} {
		f.Add(s, []byte{3, 7, 1})
	}
	f.Fuzz(func(t *testing.T, s string, cuts []byte) {
		whole := newMDEscaper()
		want := whole.text(s) + whole.close()

		cut := newMDEscaper()
		var b strings.Builder
		pos := 0
		for _, c := range cuts {
			next := min(len(s), pos+int(c)%13)
			b.WriteString(cut.text(s[pos:next]))
			pos = next
		}
		b.WriteString(cut.text(s[pos:]))
		b.WriteString(cut.close())
		if b.String() != want {
			t.Fatalf("%q: cut %q, whole %q", s, b.String(), want)
		}

		if whole.span != 0 || whole.fence != 0 || whole.run != 0 {
			t.Fatalf("%q: code still open after close: %+v", s, whole)
		}
		// As the Markdown face writes it, and a paragraph after it that no
		// unclosed code may swallow (as it would swallow the notes).
		src := []byte(TerminalSafe(want) + "\n\nSENTINEL\n")
		doc := goldmark.New().Parser().Parse(text.NewReader(src))
		if last := doc.LastChild(); last == nil || last.Kind() != ast.KindParagraph || string(last.Lines().Value(src)) != "SENTINEL" {
			t.Fatalf("%q written as %q leaves a block open: what follows is not a paragraph", s, want)
		}
		ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n.Kind() {
			case ast.KindLink, ast.KindImage, ast.KindAutoLink, ast.KindRawHTML, ast.KindHTMLBlock:
				t.Fatalf("%q written as %q reads as a %s", s, want, n.Kind())
			}
			return ast.WalkContinue, nil
		})
	})
}

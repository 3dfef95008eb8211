package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseAndChunk feeds arbitrary text through the Markdown, plain-text
// and PDF-heading paths and checks chunk's contract: no panic, segments in
// order, inside one section, exact slices of the text, within budget.
func FuzzParseAndChunk(f *testing.F) {
	for _, s := range []string{
		"# A\n\ntext. More!\n\n## B\nx",
		"---\ntitle: t\n---\n# H\n```\n# not a heading\n\n```\n",
		"1 Introduction\nabc. def\n2 Method\n2.1 Setup\n",
		"大型语言模型。为什么？因为！",
		"Setext\n===\n\npara",
		strings.Repeat("word ", 200),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for _, p := range []*parsed{parseMarkdown(s), parseText(s), {text: s, sections: pdfSections(s)}} {
			for _, sec := range p.sections {
				if sec.start < 0 || sec.end > len(p.text) || sec.start > sec.end {
					t.Fatalf("bad section %+v in %d bytes", sec, len(p.text))
				}
			}
			checkChunks(t, p.text, p.sections, nil, 20)
		}
	})
}

func TestMarkdownCodeFenceIsNotAHeading(t *testing.T) {
	p := parseMarkdown("# Real\n\n```sh\n# a comment, not a heading\n\necho hi\n```\n\n    # indented code\n\n> # quoted heading stays in its section\n")
	if len(p.sections) != 1 || len(p.sections[0].path) != 1 || p.sections[0].path[0] != "Real" {
		t.Errorf("sections %+v", p.sections)
	}
}

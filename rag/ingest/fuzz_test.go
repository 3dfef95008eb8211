package ingest

import (
	"strings"
	"testing"
	"unicode"
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
		"![x](data:image/png;base64," + strings.Repeat("iVBORw0KGgo9", 30) + ")\n" + strings.Repeat("  ", 40) + "- deep\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		noBlobs, _ := dropBlobs(s)
		for _, p := range []*parsed{parseMarkdown(s), parseMarkdown(noBlobs), parseText(s)} {
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

// FuzzSentences checks Sentences' contract on arbitrary text: spans in
// order, trimmed, together holding every non-space byte, and never ending
// inside an inline code span or a fenced block.
func FuzzSentences(f *testing.F) {
	for _, s := range []string{
		"One. Two! Three? Four",
		"As Gao et al. (2023) show, e.g. this. Fig. 2 shows it.",
		"Call `x. Y` now. Then ``a ` b. C`` here.",
		"Before.\n```go\nx := 1. Y := 2\n\nz. Q\n```\nAfter.",
		"[Smith et al. 2020. Proc.] it holds. 98.5% of it.",
		"大型语言模型。为什么？「引用。」好的",
		"a\n\n\n b \r\n c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spans := Sentences(s)
		protected := mergeSpans(FencedBlocks(s), codeSpans(s, FencedBlocks(s)))
		prev := 0
		covered := make([]bool, len(s))
		for _, sp := range spans {
			if sp.Start < prev || sp.End <= sp.Start || sp.End > len(s) {
				t.Fatalf("span %v after %d in %d bytes", sp, prev, len(s))
			}
			txt := s[sp.Start:sp.End]
			if strings.TrimSpace(txt) != txt {
				t.Fatalf("span %q not trimmed", txt)
			}
			for _, c := range protected {
				code := strings.TrimRightFunc(s[c.Start:c.End], unicode.IsSpace)
				cs := c.Start + len(code) - len(strings.TrimLeftFunc(code, unicode.IsSpace))
				ce := c.Start + len(code)
				if cs < ce && cs < sp.End && sp.Start < ce && (sp.Start > cs || sp.End < ce) {
					t.Fatalf("sentence %q cuts code %q", txt, code)
				}
			}
			for k := sp.Start; k < sp.End; k++ {
				covered[k] = true
			}
			prev = sp.End
		}
		for k := 0; k < len(s); k++ {
			if !covered[k] && !strings.ContainsRune(" \t\n\r\v\f", rune(s[k])) && utf8.RuneStart(s[k]) {
				r, _ := utf8.DecodeRuneInString(s[k:])
				if !unicode.IsSpace(r) {
					t.Fatalf("byte %d (%q) in no sentence", k, r)
				}
			}
		}
	})
}

// FuzzFrontMatterAndFields feeds arbitrary Markdown through front matter
// and heading parsing: no panic, and every field OneLine makes is one
// line without control characters.
func FuzzFrontMatterAndFields(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: A\n---\nbody",
		"---\ntitle: >\n  folded\n  title\nauthor:\n  - name: Ada\n---\n# H\x1b[1m\n",
		"---\na: &a [x]\nb: [*a, *a]\n---\n",
		"---\ntitle: Notes: part 2\n---\n",
		"Setext\u2028two\n===\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		p := parseMarkdown(s)
		fields := []string{p.title, p.author, p.url, p.date}
		for _, sec := range p.sections {
			fields = append(fields, sec.path...)
		}
		for _, v := range fields {
			v = OneLine(v)
			if OneLine(v) != v {
				t.Fatalf("OneLine not idempotent on %q", v)
			}
			for _, r := range v {
				if breaksLine(r) || (unicode.IsSpace(r) && r != ' ') {
					t.Fatalf("field %q holds %U", v, r)
				}
			}
		}
	})
}

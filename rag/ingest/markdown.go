package ingest

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// parseText reads plain text: one section, no title (the file name is used).
func parseText(s string) *parsed {
	return &parsed{text: s, sections: []section{{start: 0, end: len(s)}}}
}

// parseMarkdown reads Markdown: YAML front matter (title, author, date,
// url) becomes metadata and is left out of the text; top-level headings
// (ATX or setext, found with goldmark) start sections whose path is the
// chain of enclosing headings. Content before the first heading is a
// section with an empty path. The title is the front matter's, else the
// first level-1 heading's.
func parseMarkdown(s string) *parsed {
	meta, body, fmNote := frontMatter(s)
	body, note := flattenNesting(body)
	p := &parsed{text: body, title: meta["title"], author: meta["author"], url: meta["url"], date: meta["date"]}
	for _, n := range []string{fmNote, note} {
		if n != "" {
			p.notes = append(p.notes, n)
		}
	}
	if p.author == "" {
		p.author = meta["authors"]
	}
	src := []byte(body)
	doc := blockParser().Parse(text.NewReader(src))

	type heading struct {
		level int
		title string
	}
	var stack []heading
	var path []string
	start := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		ls := lineStart(body, headingPos(h))
		if ls > start {
			p.sections = append(p.sections, section{path: path, start: start, end: ls})
		}
		title := headingText(h, src)
		if title == "" {
			title = strings.Repeat("#", h.Level)
		}
		if p.title == "" && h.Level == 1 {
			p.title = title
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, heading{h.Level, title})
		path = make([]string, len(stack))
		for i, e := range stack {
			path[i] = e.title
		}
		start = ls
	}
	if start < len(body) {
		p.sections = append(p.sections, section{path: path, start: start, end: len(body)})
	}
	return p
}

// headingPos is a byte offset inside the heading's first line.
func headingPos(h *ast.Heading) int {
	if l := h.Lines(); l != nil && l.Len() > 0 {
		return l.At(0).Start
	}
	if p := h.Pos(); p >= 0 {
		return p
	}
	return 0
}

// lineStart is the offset of the start of the line holding off.
func lineStart(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return strings.LastIndexByte(s[:off], '\n') + 1
}

// maxHeadingSource is the most bytes of a heading's source whose inline
// markup is parsed for its title.
const maxHeadingSource = 1024

// blockParser parses Markdown's blocks only: finding headings needs no
// inline parsing, which is where hostile input (a megabyte of "[") costs
// the parser most. Headings' own text is parsed by headingText.
func blockParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}

// headingText is the plain text of a heading (markup such as emphasis,
// links and code taken off), from at most maxHeadingSource bytes of it.
func headingText(h *ast.Heading, src []byte) string {
	var raw []byte
	lines := h.Lines()
	for i := 0; i < lines.Len() && len(raw) < maxHeadingSource; i++ {
		if i > 0 {
			raw = append(raw, ' ')
		}
		seg := lines.At(i)
		raw = append(raw, seg.Value(src)...)
	}
	if len(raw) > maxHeadingSource {
		n := maxHeadingSource // cut on a rune boundary
		for n > 0 && !utf8.RuneStart(raw[n]) {
			n--
		}
		raw = raw[:n]
	}
	doc := goldmark.New().Parser().Parse(text.NewReader(raw))
	return inlineText(doc, raw)
}

// inlineText is the plain text of a heading's inline content.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

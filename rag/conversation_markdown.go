package rag

import (
	"fmt"
	"strconv"
	"strings"
)

// Markdown renders the whole conversation as Markdown with Pandoc footnotes:
// each reference is [^label] and each source's definition follows its
// answer. Labels are the display numbers; when numbers restart with each
// answer and there is more than one, they are prefixed by the turn
// ("2-1") so that every label is defined once.
func (c *Conversation) Markdown() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	prefix := len(c.Turns) > 1 && c.Registry == nil
	defined := map[string]bool{}
	for i, t := range c.Turns {
		if len(c.Turns) > 1 {
			fmt.Fprintf(&b, "## %s\n\n", strings.TrimSpace(t.Question))
		}
		label := func(n int) string {
			if prefix {
				return strconv.Itoa(i+1) + "-" + strconv.Itoa(n)
			}
			return strconv.Itoa(n)
		}
		if t.Extractive {
			b.WriteString("> " + ExtractiveNote + "\n\n")
		}
		for _, e := range t.Events {
			switch e.Type {
			case EventText:
				b.WriteString(e.Text)
			case EventRef:
				b.WriteString(FootnoteRef(label(e.Number)))
			case EventUnknown:
				b.WriteString(`\[?\]`)
			case EventError:
				fmt.Fprintf(&b, "\n\n*(answer interrupted: %s)*", e.Text)
			}
		}
		b.WriteString("\n\n")
		for _, s := range t.Sources {
			l := label(s.Number)
			if defined[l] {
				continue
			}
			defined[l] = true
			b.WriteString(Footnote(l, s))
		}
		if len(t.Sources) > 0 {
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// FootnoteRef is a Pandoc footnote reference.
func FootnoteRef(label string) string { return "[^" + label + "]" }

// Footnote is the Pandoc footnote definition of a source, one line.
func Footnote(label string, s Source) string {
	return "[^" + label + "]: " + SourceLine(s, true) + "\n"
}

// SourceLine describes a source on one line: title, pages, section, path or
// URL, "(inferred)" where the reference was inferred, and, when withSnippet,
// the start of the passage in quotes.
func SourceLine(s Source, withSnippet bool) string {
	parts := []string{s.Title}
	if p := Pages(s.PageStart, s.PageEnd); p != "" {
		parts = append(parts, p)
	}
	if s.Section != "" {
		parts = append(parts, "§ "+s.Section)
	}
	if s.URL != "" {
		parts = append(parts, s.URL)
	} else if s.Path != "" {
		parts = append(parts, s.Path)
	}
	line := strings.Join(parts, ", ")
	if withSnippet && s.Snippet != "" {
		line += `: "` + oneLine(s.Snippet) + `"`
	}
	if s.Inferred {
		line += " (inferred)"
	}
	return line
}

// Pages renders a page or page range ("p. 3", "pp. 3–4"), or "".
func Pages(start, end int) string {
	switch {
	case start <= 0:
		return ""
	case end <= start:
		return "p. " + strconv.Itoa(start)
	default:
		return "pp. " + strconv.Itoa(start) + "–" + strconv.Itoa(end)
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

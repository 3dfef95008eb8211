package rag

import (
	"cmp"
	"encoding/json"
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
	return c.markdown(CiteFootnotes, "")
}

// PandocMarkdown is Markdown with Pandoc citations for the cited
// documents that have a citekey ("[@gao2023, p. 5]", adjacent references
// in one citation) and footnotes for the rest; with bibliography (a CSL
// JSON file's path, see CitedWorks) it begins with a metadata block that
// names it, so that pandoc --citeproc finds it.
func (c *Conversation) PandocMarkdown(bibliography string) string {
	return c.markdown(CitePandoc, bibliography)
}

func (c *Conversation) markdown(style CiteStyle, bibliography string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	if bibliography != "" {
		q, _ := json.Marshal(bibliography)
		fmt.Fprintf(&b, "---\nbibliography: %s\n---\n\n", q)
	}
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
		byNumber := map[int]Source{}
		for _, s := range t.Sources {
			byNumber[s.Number] = s
		}
		var group CiteGroup
		footnoted := map[int]bool{}
		flush := func() {
			if group.Open() {
				if !endsInSpace(&b) {
					b.WriteByte(' ')
				}
				b.WriteString(group.Flush())
			}
		}
		verdicts := TurnVerdicts(&t)
		for k, e := range t.Events {
			if e.Type != EventRef {
				flush()
			}
			switch e.Type {
			case EventText:
				text := e.Text
				if refFollows(t.Events[k+1:]) {
					// No space before a footnote: "bees.[^1]".
					text = strings.TrimRight(text, " \t")
				}
				b.WriteString(text)
			case EventRef:
				if s, ok := byNumber[e.Number]; ok && style == CitePandoc && Citable(s) && !e.Inferred {
					group.Add(s)
					continue
				}
				flush()
				footnoted[e.Number] = true
				b.WriteString(FootnoteRef(label(e.Number)))
			case EventUnknown:
				b.WriteString(`\[?\]`)
			case EventError:
				fmt.Fprintf(&b, "\n\n*(answer interrupted: %s)*", e.Text)
			}
		}
		flush()
		b.WriteString("\n\n")
		wrote := false
		for _, s := range t.Sources {
			l := label(s.Number)
			if defined[l] || style == CitePandoc && !footnoted[s.Number] {
				continue
			}
			defined[l] = true
			wrote = true
			b.WriteString(Footnote(l, s, verdicts[s.Number]))
		}
		if wrote {
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// refFollows reports whether the next event that writes something is a
// reference (a citation or support event between writes nothing).
func refFollows(events []Event) bool {
	for _, e := range events {
		switch e.Type {
		case EventCitation, EventSupport:
			continue
		case EventRef:
			return true
		}
		return false
	}
	return false
}

// endsInSpace reports whether b is empty or ends in white space.
func endsInSpace(b *strings.Builder) bool {
	s := b.String()
	return s == "" || strings.ContainsRune(" \t\n", rune(s[len(s)-1]))
}

// FootnoteRef is a Pandoc footnote reference.
func FootnoteRef(label string) string { return "[^" + label + "]" }

// Footnote is the Pandoc footnote definition of a source, one line: its
// description, the sentence that supports the claim in quotes (Quote),
// and, when the passage does not support it (sup, nil when unchecked),
// a note saying so.
func Footnote(label string, s Source, sup *Support) string {
	line := SourceLine(s, false)
	if q := Quote(s, sup); q != "" {
		line += `: "` + oneLine(q) + `"`
	}
	if note := VerdictNote(sup); note != "" {
		line += " *(" + note + ")*"
	}
	return "[^" + label + "]: " + line + "\n"
}

// SourceLine describes a source on one line: title, pages, section, path or
// URL, "(inferred)" where the reference was inferred, and, when withSnippet,
// the start of the passage in quotes. A source whose document has a
// bibliography entry begins with its label (Source.Label: "Gao et al.
// 2023 · p. 5 · § 3.1") and then names the title: "… — Title, path".
func SourceLine(s Source, withSnippet bool) string {
	if s.AuthorYear() != "" {
		line := s.Label() + " — " + strings.Join(nonEmpty(s.Title, cmp.Or(s.URL, s.Path)), ", ")
		if withSnippet && s.Snippet != "" {
			line += `: "` + oneLine(s.Snippet) + `"`
		}
		if s.Inferred {
			line += " (inferred)"
		}
		return line
	}
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

// nonEmpty is the strings that are not "".
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

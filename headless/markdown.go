package headless

import (
	"io"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// MarkdownWriter writes the answer as Markdown with Pandoc footnotes:
// references as [^n] while the answer streams, right after the word or
// stop they follow ("bees.[^1]"), then one definition per cited source,
// quoting the sentence that supports the claim, however often it was
// cited, and saying when the passage does not support it.
// The answer's text is escaped so that Pandoc reads it back as the same
// text (mdEscaper): a document's "[2](Title)" or "\nocite{x}" stays text,
// and only ibid's [^n] are footnotes. Code is kept as written, and any
// code span or block still open is closed before a reference or the notes.
// An extractive answer ends with a note saying so.
//
// With the Pandoc citation style (rag.CitePandoc), a reference to a
// document with a citekey is a Pandoc citation instead, "[@gao2023, p.
// 5]", adjacent ones joined ("[@a, p. 5; @b]"), and only the other
// sources get footnotes. A citation is written when the next event shows
// that no reference follows it.
type MarkdownWriter struct {
	prose
	esc      mdEscaper
	style    rag.CiteStyle
	sources  []rag.Source
	byNumber map[int]rag.Source
	group    rag.CiteGroup
	noted    map[int]bool // sources written as footnotes (pandoc style)
	inferred bool
	last     byte // the last byte of text written, 0 before any
	verdicts rag.Verdicts
	// spaces are the spaces and tabs that ended the text so far outside
	// code, held back: a reference that follows drops them ("bees.[^1]"),
	// anything else writes them first.
	spaces string
}

// NewMarkdownWriter returns a MarkdownWriter on w that cites with
// footnotes.
func NewMarkdownWriter(w io.Writer) *MarkdownWriter {
	return NewMarkdownWriterStyle(w, rag.CiteFootnotes)
}

// NewMarkdownWriterStyle returns a MarkdownWriter on w that cites in
// style.
func NewMarkdownWriterStyle(w io.Writer, style rag.CiteStyle) *MarkdownWriter {
	return &MarkdownWriter{prose: prose{w: w}, esc: newMDEscaper(), style: style, byNumber: map[int]rag.Source{}, noted: map[int]bool{}}
}

func (m *MarkdownWriter) Write(e rag.Event) error {
	var s string
	if e.Type != rag.EventRef && e.Type != rag.EventCitation && e.Type != rag.EventSupport && m.group.Open() {
		if err := m.write(m.citation()); err != nil {
			return err
		}
	}
	switch e.Type {
	case rag.EventText:
		s = m.spaces + m.esc.text(e.Text)
		m.spaces = ""
		if m.esc.span == 0 && m.esc.fence == 0 {
			t := strings.TrimRight(s, " \t")
			s, m.spaces = t, s[len(t):]
		}
		if s != "" {
			m.last = s[len(s)-1]
		}
	case rag.EventCitation:
		m.sources = append(m.sources, *e.Source)
		m.byNumber[e.Source.Number] = *e.Source
		return nil
	case rag.EventSupport:
		m.verdicts.Add(e)
		return nil
	case rag.EventRef:
		if src, ok := m.byNumber[e.Number]; ok && m.style == rag.CitePandoc && rag.Citable(src) && !e.Inferred {
			m.group.Add(src)
			return nil
		}
		s = m.citation()
		if e.Inferred {
			s += m.spaces
		}
		m.spaces = ""
		s += m.esc.close()
		if e.Inferred && !m.inferred {
			m.inferred = true
			s += "\n\n*Sources inferred by text overlap (the model cited none):* "
		}
		m.noted[e.Number] = true
		s += rag.FootnoteRef(strconv.Itoa(e.Number))
		m.last = ']'
	case rag.EventUnknown:
		s = m.spaces + m.esc.close() + `\[?\]`
		m.spaces = ""
	case rag.EventError:
		s = m.esc.close() + "\n\n*(answer interrupted: " + escapeMarkdown(e.Text) + ")*"
		m.spaces = ""
	case rag.EventDone:
		m.spaces = ""
		if err := m.write(m.esc.close()); err != nil {
			return err
		}
		s = m.done(e)
	}
	return m.write(s)
}

// citation writes the open group of Pandoc citations, after a space
// when the text before it does not end in one; "" when none is open.
func (m *MarkdownWriter) citation() string {
	if !m.group.Open() {
		return ""
	}
	s := m.esc.close()
	if s == "" && m.last != 0 && m.last != ' ' && m.last != '\n' {
		s += " " // the spaces held back, if any, become this one
	}
	m.spaces = ""
	m.last = ']'
	return s + m.group.Flush()
}

func (m *MarkdownWriter) done(e rag.Event) string {
	var b strings.Builder
	b.WriteString(m.lineEnd())
	var notes []rag.Source
	for _, s := range m.sources {
		if m.style != rag.CitePandoc || m.noted[s.Number] {
			notes = append(notes, s)
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, s := range notes {
			b.WriteString(footnote(s, m.verdicts[s.Number]))
		}
	}
	if e.Info != nil && e.Info.Note != "" {
		b.WriteString("\n> " + escapeMarkdown(e.Info.Note) + "\n")
	}
	if e.Info != nil && e.Info.VerifyNote != "" {
		b.WriteString("\n> " + escapeMarkdown(e.Info.VerifyNote) + "\n")
	}
	return b.String()
}

// footnote is the Pandoc footnote definition of a cited source, on one
// line: title, pages, section, URL or path, and the sentence that supports
// the claim (else the start of the passage) in quotes, every piece of
// document data escaped; then, when its passage does not support the
// claim (sup; nil: not checked), a note saying so.
func footnote(s rag.Source, sup *rag.Support) string {
	parts := []string{escapeMarkdown(s.Title)}
	if ay := s.AuthorYear(); ay != "" {
		parts = []string{escapeMarkdown(ay), escapeMarkdown(s.Title)}
	}
	if p := rag.Pages(s.PageStart, s.PageEnd); p != "" {
		parts = append(parts, p)
	}
	if s.Section != "" {
		parts = append(parts, "§ "+escapeMarkdown(s.Section))
	}
	switch {
	case s.URL != "":
		parts = append(parts, escapeMarkdown(s.URL))
	case s.Path != "":
		parts = append(parts, escapeMarkdown(s.Path))
	}
	line := strings.Join(parts, ", ")
	if q := escapeMarkdown(rag.Quote(s, sup)); q != "" {
		line += `: "` + q + `"`
	}
	if s.Inferred {
		line += " (inferred)"
	}
	if note := rag.VerdictNote(sup); note != "" {
		line += " *(" + note + ")*"
	}
	return rag.FootnoteRef(strconv.Itoa(s.Number)) + ": " + line + "\n"
}

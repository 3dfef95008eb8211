package headless

import (
	"io"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// MarkdownWriter writes the answer as Markdown with Pandoc footnotes:
// references as [^n] while the answer streams, then one definition per
// cited source, quoting the passage cited, however often it was cited.
// The answer's text is escaped so that Pandoc reads it back as the same
// text (mdEscaper): a document's "[2](Title)" or "\nocite{x}" stays text,
// and only ibid's [^n] are footnotes. Code is kept as written, and any
// code span or block still open is closed before a reference or the notes.
// An extractive answer ends with a note saying so.
type MarkdownWriter struct {
	prose
	esc      mdEscaper
	sources  []rag.Source
	inferred bool
}

// NewMarkdownWriter returns a MarkdownWriter on w.
func NewMarkdownWriter(w io.Writer) *MarkdownWriter {
	return &MarkdownWriter{prose: prose{w: w}, esc: newMDEscaper()}
}

func (m *MarkdownWriter) Write(e rag.Event) error {
	var s string
	switch e.Type {
	case rag.EventText:
		s = m.esc.text(e.Text)
	case rag.EventCitation:
		m.sources = append(m.sources, *e.Source)
		return nil
	case rag.EventRef:
		s = m.esc.close()
		if e.Inferred && !m.inferred {
			m.inferred = true
			s += "\n\n*Sources inferred by text overlap (the model cited none):* "
		}
		s += rag.FootnoteRef(strconv.Itoa(e.Number))
	case rag.EventUnknown:
		s = m.esc.close() + `\[?\]`
	case rag.EventError:
		s = m.esc.close() + "\n\n*(answer interrupted: " + escapeMarkdown(e.Text) + ")*"
	case rag.EventDone:
		if err := m.write(m.esc.close()); err != nil {
			return err
		}
		s = m.done(e)
	}
	return m.write(s)
}

func (m *MarkdownWriter) done(e rag.Event) string {
	var b strings.Builder
	b.WriteString(m.lineEnd())
	if len(m.sources) > 0 {
		b.WriteString("\n")
		for _, s := range m.sources {
			b.WriteString(footnote(s))
		}
	}
	if e.Info != nil && e.Info.Note != "" {
		b.WriteString("\n> " + escapeMarkdown(e.Info.Note) + "\n")
	}
	return b.String()
}

// footnote is the Pandoc footnote definition of a cited source, on one
// line: title, pages, section, URL or path, and the passage cited in
// quotes, every piece of document data escaped.
func footnote(s rag.Source) string {
	parts := []string{escapeMarkdown(s.Title)}
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
	if snip := escapeMarkdown(s.Snippet); snip != "" {
		line += `: "` + snip + `"`
	}
	if s.Inferred {
		line += " (inferred)"
	}
	return rag.FootnoteRef(strconv.Itoa(s.Number)) + ": " + line + "\n"
}

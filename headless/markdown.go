package headless

import (
	"io"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// MarkdownWriter writes the answer as Markdown with Pandoc footnotes:
// references as [^n] while the answer streams, then each source's
// definition, ready to paste into notes. An extractive answer ends with a
// note saying so.
type MarkdownWriter struct {
	w        io.Writer
	sources  []rag.Source
	inferred bool
	lastNL   bool
	wroteAny bool
}

func (m *MarkdownWriter) Write(e rag.Event) error {
	var s string
	switch e.Type {
	case rag.EventText:
		s = e.Text
	case rag.EventCitation:
		m.sources = append(m.sources, *e.Source)
		return nil
	case rag.EventRef:
		s = rag.FootnoteRef(strconv.Itoa(e.Number))
		if e.Inferred && !m.inferred {
			m.inferred = true
			s = "\n\n*Sources inferred by text overlap (the model cited none):* " + s
		}
	case rag.EventUnknown:
		s = `\[?\]`
	case rag.EventError:
		s = "\n\n*(answer interrupted: " + e.Text + ")*"
	case rag.EventDone:
		s = m.done(e)
	}
	if s == "" {
		return nil
	}
	m.wroteAny = true
	m.lastNL = strings.HasSuffix(s, "\n")
	if _, err := io.WriteString(m.w, s); err != nil {
		return err
	}
	return flush(m.w)
}

func (m *MarkdownWriter) done(e rag.Event) string {
	var b strings.Builder
	if m.wroteAny && !m.lastNL {
		b.WriteString("\n")
	}
	if len(m.sources) > 0 {
		b.WriteString("\n")
		for _, s := range m.sources {
			b.WriteString(rag.Footnote(strconv.Itoa(s.Number), s))
		}
	}
	if e.Info != nil && e.Info.Note != "" {
		b.WriteString("\n> " + e.Info.Note + "\n")
	}
	return b.String()
}

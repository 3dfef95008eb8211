package headless

import (
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// MarkdownWriter writes the answer as Markdown with Pandoc footnotes:
// references as [^n] while the answer streams, then each source's
// definition, ready to paste into notes. An extractive answer ends with a
// note saying so.
type MarkdownWriter struct {
	prose
	sources  []rag.Source
	inferred bool
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
	return m.write(s)
}

func (m *MarkdownWriter) done(e rag.Event) string {
	var b strings.Builder
	b.WriteString(m.lineEnd())
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

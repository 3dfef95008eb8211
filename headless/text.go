package headless

import (
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// TextWriter writes the answer as plain text: references as [n], unknown
// ids as [?] (the text's own "[2]" or "[?]" is written "\[2]", "\[?]": see
// textEscaper), then a numbered source list (title, pages, section, path or
// URL, "(inferred)" where the reference was inferred) and, for an
// extractive answer, a note saying so and how to configure a model.
//
// Inferred references arrive after the text (the model cited nothing); they
// are listed after the answer, not placed inside text already written.
type TextWriter struct {
	prose
	esc      textEscaper
	sources  []rag.Source
	inferred []int
}

func (t *TextWriter) Write(e rag.Event) error {
	var s string
	switch e.Type {
	case rag.EventText:
		s = t.esc.text(e.Text)
	case rag.EventCitation:
		t.sources = append(t.sources, *e.Source)
		return nil
	case rag.EventRef:
		if e.Inferred {
			t.inferred = append(t.inferred, e.Number)
			return nil
		}
		s = t.esc.flush() + rag.RefText(e.Number)
	case rag.EventUnknown:
		s = t.esc.flush() + rag.UnknownText
	case rag.EventError:
		return nil // the command reports it on stderr
	case rag.EventDone:
		if err := t.write(t.esc.flush()); err != nil {
			return err
		}
		s = t.done(e)
	}
	return t.write(s)
}

func (t *TextWriter) done(e rag.Event) string {
	var b strings.Builder
	b.WriteString(t.lineEnd())
	if len(t.inferred) > 0 {
		b.WriteString("\nThe model cited no passage; these sources were inferred by text overlap:")
		for _, n := range t.inferred {
			b.WriteString(" " + rag.RefText(n))
		}
		b.WriteString("\n")
	}
	if len(t.sources) > 0 {
		b.WriteString("\nSources:\n")
		for _, s := range t.sources {
			b.WriteString("[" + strconv.Itoa(s.Number) + "] " + escapeText(rag.SourceLine(s, false)) + "\n")
		}
	}
	if e.Info != nil && e.Info.Note != "" {
		b.WriteString("\nNote: " + e.Info.Note + "\n")
	}
	return b.String()
}

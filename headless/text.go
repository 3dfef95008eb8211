package headless

import (
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// TextWriter writes the answer as plain text: references as [n], unknown
// ids as [?] (the text's own "[2]" or "[?]" is written "\[2]", "\[?]": see
// textEscaper), then a numbered source list (title, pages, section, path or
// URL, "(inferred)" where the reference was inferred; a source whose
// passage does not support the claim starts "Unsupported: …" or "Partly
// supported: …"), a line naming the unsupported footnotes, if any, and, for
// an extractive answer, a note saying so and how to configure a model.
//
// Inferred references arrive after the text (the model cited nothing); they
// are listed after the answer, not placed inside text already written.
type TextWriter struct {
	prose
	esc      textEscaper
	sources  []rag.Source
	inferred []int
	verdicts rag.Verdicts
}

func (t *TextWriter) Write(e rag.Event) error {
	var s string
	switch e.Type {
	case rag.EventText:
		s = t.esc.text(e.Text)
	case rag.EventCitation:
		t.sources = append(t.sources, *e.Source)
		return nil
	case rag.EventSupport:
		t.verdicts.Add(e)
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
			line := "[" + strconv.Itoa(s.Number) + "] "
			if note := rag.VerdictNote(t.verdicts[s.Number]); note != "" {
				line += strings.ToUpper(note[:1]) + note[1:] + ". "
			}
			b.WriteString(line + escapeText(oneLine(rag.SourceLine(s, false))) + "\n")
		}
	}
	if bad := t.verdicts.Unsupported(); len(bad) > 0 {
		b.WriteString("\nNot supported by the passages they cite: " + rag.RefList(bad) + ".\n")
	}
	if e.Info != nil && e.Info.Note != "" {
		b.WriteString("\nNote: " + e.Info.Note + "\n")
	}
	if e.Info != nil && e.Info.VerifyNote != "" {
		b.WriteString("\nNote: " + e.Info.VerifyNote + "\n")
	}
	return b.String()
}

// oneLine keeps a source's line on one line: a line break, tab or line
// separator inside a title, section or path (a file may be named so) reads
// as its control picture (␤, ␉), as TerminalSafe shows the other controls,
// so that the list's lines stay one per source and the name stays exact.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\t\u2028\u2029\u0085") {
		return s
	}
	return strings.NewReplacer("\n", "\u2424", "\t", "\u2409", "\u2028", "\u2424", "\u2029", "\u2424", "\u0085", "\u2424").Replace(s)
}

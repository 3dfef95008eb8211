package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ibid-dev/ibid/rag"
)

// Writer writes an answer's events in one output format. Write is called
// with each event in order; the done event ends the answer. A Writer
// flushes after every event, so output streams as the answer arrives.
type Writer interface {
	Write(e rag.Event) error
}

// Formats lists the output formats of NewWriter.
var Formats = []string{"text", "markdown", "ndjson"}

// NewWriter returns the writer for format ("text", "markdown" or "ndjson").
func NewWriter(format string, w io.Writer) (Writer, error) {
	return NewWriterStyle(format, rag.CiteFootnotes, w)
}

// NewWriterStyle is NewWriter whose Markdown cites in style (rag.CitePandoc:
// Pandoc citations for documents with a citekey); another style than
// footnotes is refused for the formats that are not Markdown.
func NewWriterStyle(format string, style rag.CiteStyle, w io.Writer) (Writer, error) {
	if style != rag.CiteFootnotes && style != "" && format != "markdown" && format != "md" {
		return nil, fmt.Errorf("citation style %s is Markdown's: use it with --format markdown", style)
	}
	switch format {
	case "text", "":
		return &TextWriter{prose: prose{w: w}}, nil
	case "markdown", "md":
		return NewMarkdownWriterStyle(w, style), nil
	case "ndjson", "jsonl":
		return &NDJSONWriter{w: w}, nil
	}
	return nil, fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
}

// flusher is implemented by buffered outputs (bufio.Writer, and
// http.ResponseWriter through its Flusher).
type flusher interface{ Flush() error }

func flush(w io.Writer) error {
	if f, ok := w.(flusher); ok {
		return f.Flush()
	}
	return nil
}

// NDJSONWriter writes one JSON object per line, the wire form of each event
// (docs/answers.md).
type NDJSONWriter struct {
	w   io.Writer
	buf []byte
}

func (n *NDJSONWriter) Write(e rag.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("couldn't encode a %s event: %w", e.Type, err)
	}
	n.buf = append(append(n.buf[:0], b...), '\n')
	if _, err := n.w.Write(n.buf); err != nil {
		return err
	}
	return flush(n.w)
}

// prose is the output shared by the text and Markdown faces: it writes and
// flushes each piece, and remembers whether the output so far ends a line.
type prose struct {
	w        io.Writer
	wroteAny bool
	lastNL   bool
}

// write writes s (if any) and flushes it to the reader at once. Whatever
// the source, nothing reaches the output that a terminal would run:
// control characters are made visible (TerminalSafe).
func (p *prose) write(s string) error {
	if s == "" {
		return nil
	}
	s = TerminalSafe(s)
	p.wroteAny = true
	p.lastNL = strings.HasSuffix(s, "\n")
	if _, err := io.WriteString(p.w, s); err != nil {
		return err
	}
	return flush(p.w)
}

// lineEnd is the newline needed to finish the current line before a
// closing block, or "" when the output is empty or already ends a line.
func (p *prose) lineEnd() string {
	if p.wroteAny && !p.lastNL {
		return "\n"
	}
	return ""
}

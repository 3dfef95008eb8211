package ingest

import (
	"strings"

	"github.com/ibid-dev/ibid/store"
)

// Extension is one row of the table of what ibid reads: a file name
// extension, the format it names and that format's loader.
type Extension struct {
	Ext    string // lower case, with its dot: ".md"
	Format store.Format
	Name   string // for people: "PDF", "Markdown", "HTML", "plain text"
	// parse reads a text format's decoded text; nil for PDF, which the
	// Loader's PDF engine reads.
	parse func(path, text string) (*parsed, error)
}

// extensions is the one table of supported formats: Sniff, the reasons
// for skipping a file, and the loaders all read it. The first row of a
// format is its usual extension.
var extensions = []Extension{
	{".pdf", store.FormatPDF, "PDF", nil},
	{".md", store.FormatMarkdown, "Markdown", markdownLoader},
	{".markdown", store.FormatMarkdown, "Markdown", markdownLoader},
	{".mdown", store.FormatMarkdown, "Markdown", markdownLoader},
	{".mkd", store.FormatMarkdown, "Markdown", markdownLoader},
	{".txt", store.FormatText, "plain text", textLoader},
	{".text", store.FormatText, "plain text", textLoader},
	{".html", store.FormatHTML, "HTML", parseHTML},
	{".htm", store.FormatHTML, "HTML", parseHTML},
	{".xhtml", store.FormatHTML, "HTML", parseHTML},
}

func markdownLoader(_, text string) (*parsed, error) { return parseMarkdown(text), nil }
func textLoader(_, text string) (*parsed, error)     { return parseText(text), nil }

// Extensions returns the table of supported extensions, in the order
// above (a copy: callers cannot change it).
func Extensions() []Extension {
	return append([]Extension(nil), extensions...)
}

// extensionOf finds the row for ext (lower case, with its dot).
func extensionOf(ext string) (Extension, bool) {
	for _, e := range extensions {
		if e.Ext == ext {
			return e, true
		}
	}
	return Extension{}, false
}

// loaderOf is the parser of a text format.
func loaderOf(format store.Format) func(path, text string) (*parsed, error) {
	for _, e := range extensions {
		if e.Format == format && e.parse != nil {
			return e.parse
		}
	}
	return textLoader
}

// SupportedList is the supported extensions for a message to the user:
// ".pdf, .md, .markdown, ... (or text without an extension)".
func SupportedList() string {
	var exts []string
	for _, e := range extensions {
		exts = append(exts, e.Ext)
	}
	return strings.Join(exts, ", ") + " (or text without an extension)"
}

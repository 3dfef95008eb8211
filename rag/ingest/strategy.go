package ingest

import (
	"fmt"
	"strings"
)

// Strategy is how a library's documents are cut into segments and indexed
// (DESIGN.md §5). It is chosen per library and recorded with each document
// (Document.Meta["strategy"]).
type Strategy string

// The strategies. Recursive is the default; the last three need a model to
// write what they index (rag/enrich).
const (
	// Recursive cuts by structure: sections, paragraphs, sentences, to
	// about DefaultTokenBudget tokens, never across a section.
	Recursive Strategy = "recursive"
	// Semantic cuts a section where the embedding of adjacent sentences
	// changes most, with DefaultTokenBudget as the maximum size.
	Semantic Strategy = "semantic"
	// Hierarchical searches recursive chunks (index rows) and gives the
	// model their parent, about DefaultParentBudget tokens of one section.
	Hierarchical Strategy = "hierarchical"
	// Contextual indexes each chunk with a short context the model writes
	// from the whole document (or its summaries, for long documents).
	Contextual Strategy = "contextual"
	// WindowSummary indexes each chunk with a summary the model writes
	// with the previous chunk's summary as context.
	WindowSummary Strategy = "window-summary"
	// Questions indexes the questions the model writes for each chunk as
	// rows of their own that lead to the chunk.
	Questions Strategy = "questions"
)

// Strategies lists every strategy, the default first.
var Strategies = []Strategy{Recursive, Semantic, Hierarchical, Contextual, WindowSummary, Questions}

// ParseStrategy returns the strategy named name ("" is Recursive), or an
// error that lists the names.
func ParseStrategy(name string) (Strategy, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return Recursive, nil
	}
	for _, s := range Strategies {
		if string(s) == name {
			return s, nil
		}
	}
	names := make([]string, len(Strategies))
	for i, s := range Strategies {
		names[i] = string(s)
	}
	return "", fmt.Errorf("unknown strategy %q (choose one of: %s)", name, strings.Join(names, ", "))
}

// NeedsModel reports whether s asks a chat model to write what it indexes.
func (s Strategy) NeedsModel() bool {
	return s == Contextual || s == WindowSummary || s == Questions
}

// MetaStrategy is the Document.Meta key that records the strategy a
// document was indexed with; MetaPassages the key that records how many of
// its segments are passages when index rows follow them; MetaAbstract a
// paper's abstract (a PDF whose first page has an Abstract heading), its
// text as in the first passage; MetaRunningHeads a PDF's running headers
// and footers, taken out of its passages, one per line as first drawn;
// MetaOCRPages the pages of a PDF whose text Tesseract read from their
// image (1-based, comma-separated: "1,2,5"): a passage on one of them is
// OCR text, for a viewer to say so.
const (
	MetaStrategy     = "strategy"
	MetaPassages     = "passages"
	MetaAbstract     = "abstract"
	MetaRunningHeads = "running_heads"
	MetaOCRPages     = "ocr_pages"
)

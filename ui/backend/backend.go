// Package backend is what the chat (ui) asks of the world, and the real
// one: Backend, the interface the chat's commands call (a library, a
// model, the conversation in progress), the optional interfaces a
// backend may add (suggestions, Pandoc export, page starts, counts, a
// background sync), and RAG, the backend over rag/library and a
// rag.Pipeline that the command line hands the chat. It never imports ui
// and draws nothing: what it reports (AddProgress, SyncEvent, Turn) is
// data the chat shows.
package backend

import (
	"context"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/store"
)

// Backend is everything the chat asks of the world: a library, a model and
// the conversation in progress. The real one wraps rag.Library,
// rag.Pipeline and rag.Conversation (NewRAG); tests use fakes.
//
// Ask, Add, SwitchLibrary, Save and Export are called from commands, never
// from Update or View, and never two at once: the chat waits for an answer
// to end before it saves, exports or starts another. The lookups (Segment,
// Segments) are called from commands too.
type Backend interface {
	LibraryName() string
	LibrarySize() int // documents in the library
	ModelName() string
	Extractive() bool

	// Ask answers question as the next turn of the conversation, calling
	// emit synchronously, in order, from the calling goroutine. Cancelling
	// ctx stops it; the partial turn is kept.
	Ask(ctx context.Context, question string, emit func(rag.Event)) error

	Segment(id string) (store.Segment, store.Document, bool)
	Segments(docID string) []store.Segment

	// Add adds paths to the library, reporting progress, and returns a
	// one-line summary.
	Add(ctx context.Context, paths []string, progress func(AddProgress)) (string, error)
	// SwitchLibrary opens library name and starts a new conversation on it.
	SwitchLibrary(ctx context.Context, name string) error

	NewConversation()
	ConversationID() string
	Turns() []Turn    // the conversation so far (to redraw a resumed one)
	Markdown() string // the conversation with Pandoc footnotes
	Save() error      // write the conversation where --resume finds it
}

// PandocExporter is a Backend that can export the conversation with
// Pandoc citations (/export FILE pandoc). It is optional: without it that
// export is refused with a message.
type PandocExporter interface {
	// PandocMarkdown is the conversation as Markdown with Pandoc citations
	// for the cited documents that have a citekey (footnotes for the
	// rest), its metadata naming bibliography, and the cited works as CSL
	// JSON entries for that file. It is called from a command.
	PandocMarkdown(bibliography string) (string, []bib.Entry)
}

// Suggester is a Backend that can suggest questions for the first
// screen: questions it checked its library answers well (rag.Suggest). It
// is optional: without it the first screen offers no examples.
type Suggester interface {
	// Suggestions returns up to n questions, or none when no question
	// passed (an empty library, headings that make no good question). It
	// may take a second on a large library: it is called from a command,
	// never from Update or View, so the first screen never waits for it.
	Suggestions(n int) []string
}

// AddProgress is how far an addition has got (rag.AddProgress's fields).
type AddProgress struct {
	Stage                 string
	File                  string
	FilesDone, FilesTotal int
	Segments              int
	Embedded, ToEmbed     int
	// OCRDone of OCRTotal scanned pages of File read by Tesseract,
	// with Stage library.StageOCR.
	OCRDone, OCRTotal int
}

// Turn is a finished turn of a conversation, enough to redraw it.
type Turn struct {
	Question    string
	Events      []rag.Event
	Sources     []rag.Source
	Interrupted bool
	Error       string
}

// PageFinder is a Backend that can say where the pages of a document
// begin in its text, so that the viewer draws a page's marker at the line
// where it begins inside a passage that spans pages. It is optional:
// without it (or when it does not know) the viewer marks such a passage
// as a whole.
type PageFinder interface {
	// DocumentPages returns the byte offsets in the document's text (in
	// which its segments' Start and End are offsets) where each page
	// begins: page i+1 at starts[i], never decreasing. nil: the document
	// has no pages, or its file is gone or changed since it was added, so
	// where its pages begin is not known. It is called from a command,
	// never from Update or View.
	DocumentPages(docID string) []int
}

// LibraryCounter is a Backend that reads its library's name and size
// together (one library, even across a /library switch) and says when the
// size could not be read. RAG is one; other backends are read with
// LibraryName and LibrarySize.
type LibraryCounter interface {
	LibraryCount() (name string, docs int, err error)
}

// LibrarySyncer is a Backend that keeps its library in step with its
// folders in the background; RAG is one once Watch was called.
type LibrarySyncer interface {
	SyncEvents() <-chan SyncEvent
}

// SyncEvent is what the status line needs of a background sync.
type SyncEvent struct {
	Active   bool // a sync is reading or removing files
	Done, Of int  // files done of files to do
	File     string
	Summary  string // a sync that changed the library ended: what it did
	Held     string // removals held back, and how to make them ("" for none, or unchanged since said)
	Note     string // how the folders are followed, when it is worth saying
	Err      error
	Docs     int // the library's documents after a sync (-1: not known)
}

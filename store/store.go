// Package store is the contract between ibid's library and the places that
// keep it: the types a library is made of (documents, segments, vectors),
// the Store interface every backend implements, filters as data, and Open,
// which picks a backend by location as database/sql picks a driver by name.
//
// Backends live in subpackages and register themselves: store/embedded (the
// default, a folder on disk) and store/postgres (PostgreSQL with pgvector).
// store/storetest holds the conformance suite every backend passes; a
// behaviour that is not in the suite is not part of the contract.
//
// The contract is written for a database: every call takes a context and
// returns an error, a batch of deletes and puts commits all or nothing, and
// both dense and keyword search are answered by the backend, where the data
// lives. The store knows nothing of loading, chunking or answering; it never
// imports rag, ui or cli.
package store

import (
	"context"
	"errors"
	"fmt"
)

// Document is one ingested file.
type Document struct {
	ID       string            `json:"id"`   // derived from the content hash
	Path     string            `json:"path"` // absolute path it was read from
	Hash     string            `json:"hash"` // hex SHA-256 of the file's bytes
	Title    string            `json:"title,omitempty"`
	Author   string            `json:"author,omitempty"`
	URL      string            `json:"url,omitempty"`
	Date     string            `json:"date,omitempty"`
	Format   Format            `json:"format"`
	Pages    int               `json:"pages,omitempty"`
	Segments int               `json:"segments"`
	Added    int64             `json:"added"` // unix seconds
	Meta     map[string]string `json:"meta,omitempty"`
}

// Format is a document's file format. It is stored and written to JSON
// as its plain string ("pdf"), so stored libraries read as before.
type Format string

// The formats ibid reads.
const (
	FormatPDF      Format = "pdf"
	FormatMarkdown Format = "markdown"
	FormatHTML     Format = "html"
	FormatText     Format = "text"
)

func (f Format) String() string { return string(f) }

// Segment is one retrievable passage of a document.
//
// Invariants: ID == DocumentID + ":" + strconv.Itoa(Index), and Index counts
// from 0 in reading order without gaps. Text is always the document's own
// text: it is what is shown, cited and sent to the answering model.
// IndexText, when not empty, is what keyword search indexes (and what the
// library embeds) instead of Text (generated context, summaries or
// questions that steer retrieval); it is never shown or cited.
//
// Index rows and parents: a segment with Parent set is an index row, which
// exists to be found; a hit on it stands for its parent, the segment of the
// same document whose ID is Parent. A segment that some index row of its
// document names is a parent: it is stored and read like any segment
// (Store.Segment, Store.Segments), but Dense and Keyword never return it,
// term statistics (TermCounter) do not count it, and its vector is not
// kept (Store.Vectors gives a row of zeros). An index row may have an empty
// Text when IndexText holds what it is found by (a generated question).
// Parents (and plain segments, named by no index row) are the document's
// passages; rag/ingest puts them first, Index 0..P-1 in reading order, its
// index rows after them, and records P in Document.Meta["passages"]. See
// Parents for what Update refuses.
type Segment struct {
	ID         string    `json:"id"`
	DocumentID string    `json:"document_id"`
	Index      int       `json:"index"`
	Text       string    `json:"text"`
	IndexText  string    `json:"index_text,omitempty"`
	Parent     string    `json:"parent,omitempty"`  // id of the segment this one is a child of, "" if none
	Section    []string  `json:"section,omitempty"` // heading path, outermost first
	PageStart  int       `json:"page_start,omitempty"`
	PageEnd    int       `json:"page_end,omitempty"`
	Start      int       `json:"start"` // byte offsets in the document's text
	End        int       `json:"end"`
	Boxes      []Box     `json:"boxes,omitempty"` // where the text is drawn on its pages (PDFs only)
	Vector     []float32 `json:"-"`               // given to Update; segments read back carry none (see Store.Vectors)
}

// Box is a rectangle on one page of a document where part of a segment's
// text is drawn, so that a viewer can point at the exact place.
//
// Coordinates are PDF points (1/72 inch) from the top-left corner of the
// page, x to the right and y down; X0 <= X1 and Y0 <= Y1. Page is 1-based,
// as Segment.PageStart. A segment's boxes are in reading order, at least
// one on each page it covers when it has any; a backend stores and returns
// them exactly (float32 values compared bit for bit, but for -0, returned
// as 0: see StoredBoxes), and Update refuses boxes that break these rules
// (see CheckBoxes). Only PDFs have boxes: other formats have none.
type Box struct {
	Page int     `json:"page"`
	X0   float32 `json:"x0"`
	Y0   float32 `json:"y0"`
	X1   float32 `json:"x1"`
	Y1   float32 `json:"y1"`
}

// KeywordText is the text keyword search indexes for s: IndexText when set,
// else Text.
func (s *Segment) KeywordText() string {
	if s.IndexText != "" {
		return s.IndexText
	}
	return s.Text
}

// Info says which embedder built a library.
type Info struct {
	Embedder  string `json:"embedder"`
	Dimension int    `json:"dimension"`
}

// Hit is a search result: a segment (without its vector) and its score,
// higher being better. Dense search scores by cosine similarity, keyword
// search by the backend's own relevance (BM25, ts_rank_cd); scores of the
// two kinds are not comparable.
type Hit struct {
	Segment Segment
	Score   float64
}

// Put is one document with its segments (with vectors), for Update.
type Put struct {
	Document Document
	Segments []Segment
}

// Errors every backend returns (wrapped, with context) in the same cases.
var (
	// ErrNotFound: no document or segment with that id.
	ErrNotFound = errors.New("not found")
	// ErrEmbedderMismatch: the library was built with another embedder or
	// dimension than the one it is opened or queried with.
	ErrEmbedderMismatch = errors.New("library was built with a different embedder")
	// ErrBusy: another writer holds the library and this one cannot wait;
	// the message says to retry.
	ErrBusy = errors.New("library is busy with another writer; try again")
	// ErrNoLibrary: the library does not exist and Options.Create was false.
	ErrNoLibrary = errors.New("no such library")
	// ErrClosed: the store was used after Close.
	ErrClosed = errors.New("store is closed")
	// ErrReadOnly: the store was opened read-only (for instance because
	// damage was found that only a repair may touch) and refuses writes.
	ErrReadOnly = errors.New("library is open read-only")
)

// Store is one library's persistence.
//
// Invariants every backend keeps (and store/storetest checks):
//   - Update is atomic: after it returns an error, or after a crash at any
//     moment, the library shows all of the batch or none of it, and never
//     loses a segment of a document the batch did not name.
//   - Segments of a document are whole: Segments(id) lists 0..n-1 for a
//     document of n segments.
//   - A segment whose vector is all zeros is stored but never returned by
//     Dense.
//   - Index rows (Segment.Parent set) name a segment of their own document
//     that is not itself an index row; Update refuses a batch that breaks
//     this (see Parents), changing nothing. Dense and Keyword return index
//     rows (Keyword by their KeywordText), never parents, whatever their
//     text or vector, and TermCounter's statistics leave parents out: after
//     reopening, after a document is replaced, whoever else is deleted.
//   - Filters mean the same on every backend: Filter.Match is the reference.
//   - Another process's committed changes become visible to reads without
//     reopening.
//
// Concurrency: all methods may be called from many goroutines at once.
// Writers (Update) are serialised, within a process and between processes;
// a writer that cannot get the library gets an error wrapping ErrBusy or
// waits, as the backend documents.
type Store interface {
	// Info says which embedder built the library.
	Info() Info
	// Update deletes the documents named in deletes, then stores puts
	// (replacing documents of the same ID), in one atomic batch. Deleting a
	// document that is not there is an error wrapping ErrNotFound, and
	// nothing is changed. A batch with an index row whose parent is not a
	// passage of its own document (see Parents) is refused, and nothing is
	// changed. Vectors are copied.
	Update(ctx context.Context, puts []Put, deletes []string) error
	// Documents lists every document, in no particular order.
	Documents(ctx context.Context) ([]Document, error)
	// Document returns one document, or an error wrapping ErrNotFound.
	Document(ctx context.Context, id string) (Document, error)
	// Segment returns one segment, by its id "{document_id}:{index}", with
	// its document, or an error wrapping ErrNotFound.
	Segment(ctx context.Context, id string) (Segment, Document, error)
	// Segments returns the segments of a document whose Index is in
	// [from, to), in order; the range is clipped to the document, and to < 0
	// means to its end. An unknown document is an error wrapping
	// ErrNotFound.
	Segments(ctx context.Context, docID string, from, to int) ([]Segment, error)
	// Vectors returns a document's vectors, row i for segment i (copies);
	// a parent's row is zeros (its vector is not kept).
	Vectors(ctx context.Context, docID string) ([][]float32, error)
	// Len is the number of segments in the library, parents and index
	// rows included.
	Len(ctx context.Context) (int, error)
	// Dense returns up to k segments the filter admits, most similar
	// (cosine) to vector first, ties broken by segment id. A vector of
	// another dimension is an error wrapping ErrEmbedderMismatch; the zero
	// vector matches nothing.
	Dense(ctx context.Context, vector []float32, k int, f Filter) ([]Hit, error)
	// Keyword returns up to k segments the filter admits that match query's
	// terms, best first, ties broken by segment id.
	Keyword(ctx context.Context, query string, k int, f Filter) ([]Hit, error)
	// Close releases the store; it must not be used afterwards.
	Close() error
}

// Damaged is implemented by stores that open a damaged library read-only
// instead of refusing it (the embedded store does). Damage returns nil for
// an intact library, else an error that names what was found and says
// what to do (run `ibid doctor --repair`); Update then returns an error
// wrapping ErrReadOnly.
type Damaged interface {
	Damage() error
}

// Unembedded is implemented by stores that can keep a document's text
// while its vectors are lost (the embedded store, after `ibid doctor
// --repair` rebuilt a library whose vector file was damaged). Unembedded
// lists those documents: keyword search finds them, dense search does not,
// until an Update puts them again with vectors (rag/library's Reembed).
type Unembedded interface {
	Unembedded(ctx context.Context) ([]string, error)
}

// TermCounter is a Store that can say how many segments hold each of some
// terms, analysed as its keyword search analyses text (store/keyword's
// Tokenize), and how many segments there are: the statistics of BM25's
// idf. The extractive answerer uses them to weigh a question's terms by
// rarity. It is optional; a store without it is judged by unweighted
// term coverage.
type TermCounter interface {
	DocFreq(ctx context.Context, terms []string) (df []int, segments int, err error)
}

// DocumentCounter is a Store that counts its documents without reading
// them: the chat reads the count every few seconds to show another
// process's additions, and Documents would read every document each time
// (a whole table on PostgreSQL). It is optional; CountDocuments falls back
// to Documents. A backend that has it sees the same documents as
// Documents, another process's committed writes included (store/storetest
// checks both).
type DocumentCounter interface {
	DocumentCount(ctx context.Context) (int, error)
}

// CountDocuments is the number of documents in s: its DocumentCount when
// it is a DocumentCounter, else the length of its Documents.
func CountDocuments(ctx context.Context, s Store) (int, error) {
	if c, ok := s.(DocumentCounter); ok {
		return c.DocumentCount(ctx)
	}
	docs, err := s.Documents(ctx)
	return len(docs), err
}

// Passages is the start of a document's segments (in Index order) that is
// read, shown and cited: up to its first index row (Parent set), since
// index rows follow the passages.
func Passages(segs []Segment) []Segment {
	for i := range segs {
		if segs[i].Parent != "" {
			return segs[:i]
		}
	}
	return segs
}

// Parents checks the index rows of one document's segments (given in Index
// order, their IDs already checked) and says which segments are parents:
// parent[i] is true when some index row names segment i as its Parent. It
// refuses an index row whose Parent is not the ID of a segment of the same
// document, or names an index row (itself included): a parent is a passage.
// Backends call it in Update, and derive the parents of stored segments
// with it (ignoring the error, which Update never let through).
func Parents(segs []Segment) (parent []bool, err error) {
	parent = make([]bool, len(segs))
	var byID map[string]int
	for i := range segs {
		p := segs[i].Parent
		if p == "" {
			continue
		}
		if byID == nil {
			byID = make(map[string]int, len(segs))
			for j := range segs {
				byID[segs[j].ID] = j
			}
		}
		j, ok := byID[p]
		switch {
		case !ok:
			if err == nil {
				err = fmt.Errorf("segment %s names parent %q, which is not a segment of document %s", segs[i].ID, p, segs[i].DocumentID)
			}
		case segs[j].Parent != "":
			if err == nil {
				err = fmt.Errorf("segment %s names parent %q, which is itself an index row (its parent is %q); a parent must be a passage", segs[i].ID, p, segs[j].Parent)
			}
		default:
			parent[j] = true
		}
	}
	return parent, err
}

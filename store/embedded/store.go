// Package store persists a library's documents, segments and vectors behind
// one small interface. The embedded default keeps its own files on disk and
// answers dense queries through chromem-go.
//
// The store knows nothing of loading, chunking or retrieval (those live in
// package rag); it never imports rag or ui.
package embedded

import (
	"context"
	"errors"
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
	Format   string            `json:"format"` // "pdf", "markdown", "text", "html"
	Pages    int               `json:"pages,omitempty"`
	Segments int               `json:"segments"`
	Added    int64             `json:"added"` // unix seconds
	Meta     map[string]string `json:"meta,omitempty"`
}

// Segment is one retrievable passage of a document.
//
// Invariant: ID == DocumentID + ":" + strconv.Itoa(Index), and Index counts
// from 0 in reading order without gaps.
type Segment struct {
	ID         string    `json:"id"`
	DocumentID string    `json:"document_id"`
	Index      int       `json:"index"`
	Text       string    `json:"text"`
	Section    []string  `json:"section,omitempty"` // heading path, outermost first
	PageStart  int       `json:"page_start,omitempty"`
	PageEnd    int       `json:"page_end,omitempty"`
	Start      int       `json:"start"` // byte offsets in the document's text
	End        int       `json:"end"`
	Vector     []float32 `json:"-"` // given to PutDocument; segments read back carry none (Chromem.Vector gives a copy)
}

// Info says which embedder built a library.
type Info struct {
	Embedder  string `json:"embedder"`
	Dimension int    `json:"dimension"`
}

// Hit is a dense query result.
type Hit struct {
	Segment    Segment
	Similarity float32
}

// Filter limits a query to some segments; nil admits all.
type Filter func(doc *Document, seg *Segment) bool

// ErrEmbedderMismatch is returned when a library is used with an embedder
// other than the one that built it.
var ErrEmbedderMismatch = errors.New("library was built with a different embedder")

// Store is a library's persistence.
//
// Invariants: PutDocument is atomic (after a crash the store holds either
// all of the document's segments or none of them) and never loses another
// document's segment, at any size.
type Store interface {
	Info() Info
	// PutDocument stores doc and its segments (with vectors), replacing any
	// document of the same ID.
	PutDocument(ctx context.Context, doc Document, segs []Segment) error
	DeleteDocument(ctx context.Context, id string) error
	Documents() []Document
	Document(id string) (Document, bool)
	Segment(id string) (Segment, bool)
	// Segments returns a document's segments in order.
	Segments(docID string) []Segment
	// Each visits every segment (for building the BM25 index).
	Each(fn func(doc *Document, seg *Segment) bool)
	Len() int
	Query(ctx context.Context, vector []float32, k int, filter Filter) ([]Hit, error)
	Close() error
}

// Updater is implemented by stores that can commit several changes at once
// (Chromem does): deletes, then puts, all or nothing. Replacing a changed
// file, whose new content hash gives it a new document ID, is
// Update(ctx, []Put{{newDoc, segs}}, []string{oldID}).
type Updater interface {
	Update(ctx context.Context, puts []Put, deletes []string) error
}

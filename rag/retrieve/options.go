package retrieve

import (
	"path/filepath"
	"strings"

	"github.com/ibid-dev/ibid/store"
)

// Mode chooses the retrievers a search uses.
type Mode uint8

const (
	Hybrid  Mode = iota // dense and BM25, fused by reciprocal rank (the default)
	Dense               // the store's vector similarity only
	Lexical             // BM25 only
)

func (m Mode) String() string {
	switch m {
	case Hybrid:
		return "hybrid"
	case Dense:
		return "dense"
	case Lexical:
		return "bm25"
	}
	return "mode(?)"
}

// Defaults of Options.
const (
	DefaultK          = 8
	DefaultNeighbours = 1
)

// Options shape a search. The zero value asks for DefaultK hybrid passages
// with DefaultNeighbours neighbour on each side, from the whole library.
type Options struct {
	K          int      // passages to return (default 8)
	Neighbours int      // neighbouring segments on each side added as context (default 1; negative: none)
	Documents  []string // limit to these document ids (or id prefixes) or path glob patterns
	Section    string   // limit to segments whose section path contains this (case-insensitive)
	Mode       Mode
}

func (o Options) k() int {
	if o.K <= 0 {
		return DefaultK
	}
	return o.K
}

func (o Options) neighbours() int {
	switch {
	case o.Neighbours < 0:
		return 0
	case o.Neighbours == 0:
		return DefaultNeighbours
	}
	return o.Neighbours
}

// filter returns the predicate the options' Documents and Section make, or
// nil when they admit everything.
func (o Options) filter() store.Filter {
	if len(o.Documents) == 0 && o.Section == "" {
		return nil
	}
	section := strings.ToLower(o.Section)
	docs := o.Documents
	return func(doc *store.Document, seg *store.Segment) bool {
		if len(docs) > 0 && !matchDocument(docs, doc) {
			return false
		}
		return section == "" || strings.Contains(strings.ToLower(strings.Join(seg.Section, " / ")), section)
	}
}

// matchDocument reports whether doc is one of pats: a document id or id
// prefix, or a glob (filepath.Match) over the document's path, or over its
// base name when the pattern has no separator.
func matchDocument(pats []string, doc *store.Document) bool {
	for _, p := range pats {
		if p == "" {
			continue
		}
		if strings.HasPrefix(doc.ID, p) {
			return true
		}
		if ok, _ := filepath.Match(p, doc.Path); ok {
			return true
		}
		if !strings.ContainsRune(p, filepath.Separator) {
			if ok, _ := filepath.Match(p, filepath.Base(doc.Path)); ok {
				return true
			}
		}
	}
	return false
}

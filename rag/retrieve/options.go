package retrieve

import (
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/store"
)

// Mode chooses the retrievers a search uses.
type Mode uint8

const (
	// Default is the retrieval that measurably works best with the
	// embedder: keyword only with the local embedder (its dense half did
	// not help on held-out data, so no query is embedded), Hybrid with
	// any other.
	Default Mode = iota
	Hybrid       // dense and keyword, fused
	Dense        // the store's vector similarity only
	Lexical      // keyword (BM25) only
)

// For is the mode a search with emb runs: m itself, or, for Default, the
// default retrieval for emb.
func (m Mode) For(emb Embedder) Mode {
	if m != Default {
		return m
	}
	if emb == nil || emb.Name() == localDefault.Name() {
		return Lexical
	}
	return Hybrid
}

func (m Mode) String() string {
	switch m {
	case Default:
		return "default"
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
	// DefaultRerankDepth is how many passages a reranker sees when
	// Options.RerankDepth is 0 (at least K). Thirty windows of about three
	// 300-token segments are some 27,000 tokens: one batch for a
	// cross-encoder on a GPU (well under a second) and a few seconds on a
	// CPU, and two windows of the listwise reranker (20, step 10). Most of
	// what a reranker adds comes from the first few dozen candidates: a
	// passage fusion ranks below 30 rarely belongs in the top 8.
	DefaultRerankDepth = 30
)

// Options shape a search. The zero value asks for DefaultK passages of the
// default retrieval (Mode Default)
// with DefaultNeighbours neighbour on each side, from the whole library.
type Options struct {
	K          int      // passages to return (default 8)
	Neighbours int      // neighbouring segments on each side added as context (default 1; negative: none)
	Documents  []string // limit to these document ids (or id prefixes) or path glob patterns
	Section    string   // limit to segments whose section path contains this (case-insensitive)
	PageFrom   int      // limit to segments on pages overlapping [PageFrom, PageTo]; 0 leaves an end open
	PageTo     int
	// References includes the documents' references (sections under a
	// heading of ingest.ReferencesHeadings, numbered or not), which a
	// search otherwise leaves out, from its hits and from its windows; a
	// search limited to a Section includes them too (it names what it
	// wants).
	References bool
	Mode       Mode
	// Rerank, when not nil, reorders the best candidates after fusion,
	// index-row mapping and window merging, judging each on its window's
	// text (WindowText). See Search.
	Rerank Reranker
	// RerankDepth is how many candidate passages Rerank sees: at least K;
	// 0 means DefaultRerankDepth. It is ignored without Rerank.
	RerankDepth int
}

func (o Options) k() int {
	if o.K <= 0 {
		return DefaultK
	}
	return o.K
}

// depth is how many passages a search assembles before cutting to K: the
// rerank depth (at least K) with a reranker, else K.
func (o Options) depth() int {
	if o.Rerank == nil {
		return o.k()
	}
	d := o.RerankDepth
	if d <= 0 {
		d = DefaultRerankDepth
	}
	return max(d, o.k())
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

// Filter is the store filter the options' Documents, Section, page range
// and References make.
func (o Options) Filter() store.Filter {
	f := store.Filter{Documents: o.Documents, Section: o.Section, PageFrom: o.PageFrom, PageTo: o.PageTo}
	if !o.References && o.Section == "" {
		f.SkipHeadings = ingest.ReferencesHeadings
	}
	return f
}

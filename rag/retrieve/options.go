package retrieve

import "github.com/ibid-dev/ibid/store"

// Mode chooses the retrievers a search uses.
type Mode uint8

const (
	Hybrid  Mode = iota // dense and keyword, fused (the default)
	Dense               // the store's vector similarity only
	Lexical             // keyword (BM25) only
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
	PageFrom   int      // limit to segments on pages overlapping [PageFrom, PageTo]; 0 leaves an end open
	PageTo     int
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

// Filter is the store filter the options' Documents, Section and page
// range make; the zero Filter admits everything.
func (o Options) Filter() store.Filter {
	return store.Filter{Documents: o.Documents, Section: o.Section, PageFrom: o.PageFrom, PageTo: o.PageTo}
}

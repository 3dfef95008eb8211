package retrieve

import "context"

// Embedder turns texts into vectors for dense retrieval.
//
// Invariants: Embed returns one vector per text, in order, each of length
// Dimension() and of unit length (or all zeros for a text with nothing to
// embed); the same text always gives the same vector under the same Name.
type Embedder interface {
	// Name identifies the embedder and its settings; it is recorded in the
	// library, which refuses queries from an embedder of another name.
	Name() string
	Dimension() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

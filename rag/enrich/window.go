package enrich

import (
	"context"

	"github.com/ibid-dev/ibid/rag/ingest"
)

// window writes each chunk's summary in reading order, each with the
// previous chunk's summary as context ("" after a failure).
func (r *run) window(ctx context.Context, d *ingest.Loaded, res result) {
	prev := ""
	for i, s := range d.Segments {
		if ctx.Err() != nil {
			return
		}
		sum, err := r.call(ctx, windowMessages(d.Document.Title, prev, s.Text), summaryTokens, nonEmpty)
		r.finish(ctx, d, i, err)
		res.index[i], prev = sum, sum
	}
}

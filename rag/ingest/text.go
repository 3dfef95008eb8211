package ingest

import (
	"context"

	"github.com/ibid-dev/ibid/store"
)

// parseTextFormat decodes and parses a text format's bytes ("markdown",
// "html" or "text"): base64 blobs are dropped first (with a note), then
// the format's parser runs. The parse runs in a goroutine of its own so
// that a cancelled ctx returns at once; the abandoned parse finishes in
// the background, its cost bounded by the file size limit.
func parseTextFormat(ctx context.Context, path string, format store.Format, data []byte) (*parsed, error) {
	text, err := decodeText(path, data)
	if err != nil {
		return nil, err
	}
	text, note := dropBlobs(text)
	type result struct {
		p   *parsed
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		r.p, r.err = loaderOf(format)(path, text)
		done <- r
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-done:
		if r.err == nil && note != "" {
			r.p.notes = append([]string{note}, r.p.notes...)
		}
		return r.p, r.err
	}
}

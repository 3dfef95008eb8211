package enrich

import (
	"fmt"
	"strings"
	"time"
)

// Report says what an enrichment cost and what it could not do.
//
// Calls counts requests answered or failed by the model (cache hits are
// not calls). Token counts are the server's usage; for the EstimatedCalls
// calls whose server sent none, they are estimated with tokens.Count
// (cached input is then unknown and counted 0). Failed counts the chunks
// indexed without enrichment; Failures says why, one line each.
type Report struct {
	Calls, CacheHits                             int
	InputTokens, OutputTokens, CachedInputTokens int
	EstimatedCalls                               int
	Failed                                       int
	Failures                                     []string // "document: chunk N: reason"
	// CacheError is the first error met writing the cache ("" if none):
	// the answers were used, but a rerun will pay for them again.
	CacheError string
	Wall       time.Duration
}

// String is the one-line summary `ibid add` prints, e.g. "enrichment: 412
// calls, 38 cache hits, 1.2M input tokens (0.9M cached), 30k output
// tokens, 2 chunks failed".
func (r Report) String() string {
	var b strings.Builder
	b.WriteString("enrichment: " + plural(r.Calls, "call") + ", " + plural(r.CacheHits, "cache hit"))
	in := count(r.InputTokens) + " input tokens"
	switch {
	case r.EstimatedCalls > 0:
		in += " (estimated)"
	case r.CachedInputTokens > 0:
		in += " (" + count(r.CachedInputTokens) + " cached)"
	}
	b.WriteString(", " + in + ", " + count(r.OutputTokens) + " output tokens")
	if r.Failed > 0 {
		b.WriteString(", " + plural(r.Failed, "chunk") + " failed")
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// count writes n as 950, 30k, 1.2k, 1.2M.
func count(n int) string {
	short := func(v float64, unit string) string {
		s := fmt.Sprintf("%.1f", v)
		if v >= 10 {
			s = fmt.Sprintf("%.0f", v)
		}
		return strings.TrimSuffix(s, ".0") + unit
	}
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 999_500:
		return short(float64(n)/1e3, "k")
	}
	return short(float64(n)/1e6, "M")
}

// Add adds o's counts, failures and wall time to r (the cache error kept
// is the first).
func (r *Report) Add(o Report) {
	r.Calls += o.Calls
	r.CacheHits += o.CacheHits
	r.InputTokens += o.InputTokens
	r.OutputTokens += o.OutputTokens
	r.CachedInputTokens += o.CachedInputTokens
	r.EstimatedCalls += o.EstimatedCalls
	r.Failed += o.Failed
	r.Failures = append(r.Failures, o.Failures...)
	if r.CacheError == "" {
		r.CacheError = o.CacheError
	}
	r.Wall += o.Wall
}

package enrich

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

// contextual writes each chunk's context (see the package comment).
func (r *run) contextual(ctx context.Context, d *ingest.Loaded, res result) {
	segs := d.Segments
	if tokens.Count(d.Text) <= r.opt.LongDocument {
		prefix := documentPrefix(d.Text)
		each(len(segs), func(i int) {
			res.index[i], _ = r.chunkContext(ctx, d, i, prefix, false)
		})
		return
	}
	parts := partition(d, r.opt.LongDocument)
	labels := make([]string, len(parts))
	sums := make([]string, len(parts))
	errs := make([]error, len(parts))
	each(len(parts), func(k int) {
		p := parts[k]
		labels[k] = sectionLabel(segs[p.first].Section)
		text := d.Text[segs[p.first].Start:segs[p.last].End]
		sums[k], errs[k] = r.call(ctx, sectionSummaryMessages(d.Document.Title, labels[k], text), sectionSummaryTokens, nonEmpty)
	})
	var okLabels, okSums []string
	for k := range parts {
		if errs[k] == nil {
			okLabels, okSums = append(okLabels, labels[k]), append(okSums, sums[k])
		}
	}
	var docSum string
	docErr := fmt.Errorf("no section of the document could be summarised")
	if len(okSums) > 0 {
		docSum, docErr = r.call(ctx, documentSummaryMessages(d.Document.Title, okLabels, okSums), documentSummaryToks, nonEmpty)
	}
	each(len(parts), func(k int) {
		p := parts[k]
		err := errs[k]
		if err != nil {
			err = fmt.Errorf("its section could not be summarised: %w", err)
		} else if docErr != nil {
			err = fmt.Errorf("the document could not be summarised: %w", docErr)
		}
		prefix := summaryPrefix(docSum, labels[k], sums[k])
		each(p.last-p.first+1, func(j int) {
			i := p.first + j
			if err != nil {
				r.finish(ctx, d, i, err)
				return
			}
			res.index[i], _ = r.chunkContext(ctx, d, i, prefix, true)
		})
	})
}

// chunkContext asks for chunk i's context after prefix and counts the
// chunk done.
func (r *run) chunkContext(ctx context.Context, d *ingest.Loaded, i int, prefix string, long bool) (string, error) {
	text, err := r.call(ctx, contextMessages(prefix, d.Segments[i].Text, long), contextTokens, nonEmpty)
	r.finish(ctx, d, i, err)
	return text, err
}

// part is a run of chunks first..last (inclusive) of one section, that a
// long document's summaries are written for.
type part struct{ first, last int }

// partition cuts d's chunks into parts: consecutive chunks of one section,
// a section of more than limit tokens cut into runs of at most limit
// tokens (a chunk larger than limit is a part of its own).
func partition(d *ingest.Loaded, limit int) []part {
	var parts []part
	run := 0 // tokens of the last part
	for i, s := range d.Segments {
		n := tokens.Count(s.Text)
		if i > 0 && slices.Equal(s.Section, d.Segments[i-1].Section) && run+n <= limit {
			parts[len(parts)-1].last = i
			run += n
			continue
		}
		parts = append(parts, part{i, i})
		run = n
	}
	return parts
}

// sectionLabel names a section by its heading path.
func sectionLabel(path []string) string {
	if len(path) == 0 {
		return "(before the first heading)"
	}
	return strings.Join(path, " > ")
}

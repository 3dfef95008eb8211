package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/store"
)

// passageArgs are get_passage's arguments.
type passageArgs struct {
	SegmentID  string `json:"segment_id" jsonschema:"the passage's id, as search and ask give it: the document id, a colon and a number, e.g. 3f9a2c71:12"`
	Neighbours int    `json:"neighbours,omitempty" jsonschema:"how many passages to add before and after it, 0 to 5 (default 1)"`
}

// passageResult is get_passage's answer: the passage and its neighbours
// in reading order.
type passageResult struct {
	passage
	Before []neighbour `json:"before" jsonschema:"the passages just before it, in reading order"`
	After  []neighbour `json:"after" jsonschema:"the passages just after it, in reading order"`
}

// neighbour is a passage next to the one asked for.
type neighbour struct {
	SegmentID string `json:"segment_id"`
	Pages     string `json:"pages,omitempty"`
	Section   string `json:"section,omitempty"`
	Text      string `json:"text"`
}

const (
	defaultNeighbours = 1
	maxNeighbours     = 5
)

func (s *server) addGetPassage(srv *sdk.Server) {
	schema := mustSchema[passageArgs]()
	bound(schema, "neighbours", 0, maxNeighbours, defaultNeighbours)
	sdk.AddTool(srv, &sdk.Tool{
		Name: "get_passage",
		Description: "Read one passage of the user's library whole, by its segment_id (from search, or from a footnote of ask), " +
			"with the passages just before and after it: to check what a citation rests on, or to read on. " +
			"Gives the document's title, authors and year where known, the pages and section, and the text.",
		InputSchema: schema,
		Annotations: readOnly("Read a passage"),
	}, s.getPassage)
}

func (s *server) getPassage(ctx context.Context, _ *sdk.CallToolRequest, in passageArgs) (*sdk.CallToolResult, passageResult, error) {
	var out passageResult
	id := strings.TrimSpace(in.SegmentID)
	if in.Neighbours < 0 || in.Neighbours > maxNeighbours {
		return nil, out, fmt.Errorf("neighbours %d: give 0 to %d", in.Neighbours, maxNeighbours)
	}
	seg, doc, err := s.cfg.Library.Segment(ctx, id)
	if errors.Is(err, store.ErrNotFound) || id == "" {
		return nil, out, fmt.Errorf("no passage %q in library %q: a segment_id is a document id, a colon and a number (3f9a2c71:12), as search and ask give it", id, s.cfg.LibraryName)
	}
	if err != nil {
		return nil, out, fmt.Errorf("couldn't read passage %q: %w", id, err)
	}
	out.passage = describePassage(doc, seg, []store.Segment{seg})
	out.Before, out.After = []neighbour{}, []neighbour{}
	if in.Neighbours == 0 {
		return nil, out, nil
	}
	segs, err := s.cfg.Library.Segments(ctx, seg.DocumentID)
	if err != nil {
		return nil, out, fmt.Errorf("couldn't read the passages around %q: %w", id, err)
	}
	segs = store.Passages(segs)
	for _, n := range segs {
		d := n.Index - seg.Index
		if d == 0 || d < -in.Neighbours || d > in.Neighbours {
			continue
		}
		p := describePassage(doc, n, []store.Segment{n})
		nb := neighbour{SegmentID: p.SegmentID, Pages: p.Pages, Section: p.Section, Text: p.Text}
		if d < 0 {
			out.Before = append(out.Before, nb)
		} else {
			out.After = append(out.After, nb)
		}
	}
	return nil, out, nil
}

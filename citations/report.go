package citations

import (
	"fmt"
	"strings"
)

// Report summarises one answer's citations; it travels in the KindDone event.
// The fields up to Truncated are the contract other packages rely on.
type Report struct {
	// Order lists the cited aliases k (of source_k) in display order:
	// Order[i] has display number i+1 (or, with a shared Registry, the
	// numbers listed in Numbers).
	Order []int `json:"order"`
	// Refs counts the reference nodes drawn.
	Refs int `json:"refs"`
	// Unknown lists well-formed ids that were never offered, as first
	// written, once per source (an id written twice is listed once).
	Unknown []string `json:"unknown,omitempty"`
	// Truncated is true when the stream ended inside a structure (JSON
	// modes) and the body so far was kept.
	Truncated bool `json:"truncated,omitempty"`

	// Mode is the output form the answer was read in: inline, json or
	// sections.
	Mode string `json:"mode,omitempty"`
	// Numbers, with a shared Registry only, holds the display number of
	// each alias in Order (Numbers[i] belongs to Order[i]).
	Numbers []int `json:"numbers,omitempty"`
	// UnknownRefs counts the unknown markers drawn (one per unknown id
	// per token or section).
	UnknownRefs int `json:"unknown_refs,omitempty"`
	// NotJSON is true in the JSON modes when the answer did not begin with
	// a JSON object (after white space and an optional code-fence line,
	// within 64 bytes); it was then read as inline text.
	NotJSON bool `json:"not_json,omitempty"`
	// Malformed is true when the JSON had a syntax error; what came after
	// it was ignored and the text before it was kept.
	Malformed bool `json:"malformed,omitempty"`
	// Declared lists the aliases k of the json mode's citedSourceIds, in
	// the order given, without repeats.
	Declared []int `json:"declared,omitempty"`
	// DeclaredNotUsed lists declared aliases the body never cites.
	DeclaredNotUsed []int `json:"declared_not_used,omitempty"`
	// UsedNotDeclared lists aliases the body cites (offered or not, in
	// order of first appearance) that citedSourceIds does not list.
	UsedNotDeclared []int `json:"used_not_declared,omitempty"`
	// OrderDiffers is true when the aliases both declared and used appear
	// in citedSourceIds in another order than in the body. The body is the
	// truth; the numbers follow it.
	OrderDiffers bool `json:"order_differs,omitempty"`
	// BadIDs lists entries of citedSourceIds or source_ids that are not
	// well-formed ids (neither "source_k" nor a number k), as written.
	BadIDs []string `json:"bad_ids,omitempty"`
}

// String renders the report compactly for tests and logs.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode=%s order=%v refs=%d", r.Mode, r.Order, r.Refs)
	if r.Numbers != nil {
		fmt.Fprintf(&b, " numbers=%v", r.Numbers)
	}
	if len(r.Unknown) > 0 || r.UnknownRefs > 0 {
		fmt.Fprintf(&b, " unknown=%q/%d", r.Unknown, r.UnknownRefs)
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{r.Truncated, "truncated"}, {r.NotJSON, "not_json"}, {r.Malformed, "malformed"}, {r.OrderDiffers, "order_differs"}} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	if r.Declared != nil {
		fmt.Fprintf(&b, " declared=%v not_used=%v not_declared=%v", r.Declared, r.DeclaredNotUsed, r.UsedNotDeclared)
	}
	if len(r.BadIDs) > 0 {
		fmt.Fprintf(&b, " bad_ids=%q", r.BadIDs)
	}
	return b.String()
}

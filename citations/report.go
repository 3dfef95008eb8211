package citations

// Report summarises one answer's citations; it travels in the KindDone event.
// (The citation-engine owner extends this; the fields here are the contract
// other packages rely on.)
type Report struct {
	// Order lists the cited aliases k (of source_k) in display order:
	// Order[i] has display number i+1 (or, with a shared Registry, the
	// numbers listed in Numbers).
	Order []int `json:"order"`
	// Refs counts the reference nodes drawn.
	Refs int `json:"refs"`
	// Unknown lists well-formed ids that were never offered, as written.
	Unknown []string `json:"unknown,omitempty"`
	// Truncated is true when the stream ended inside a structure (JSON
	// modes) and the body so far was kept.
	Truncated bool `json:"truncated,omitempty"`
}

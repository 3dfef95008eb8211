package citations

import (
	"encoding/json"
	"fmt"
)

// Registry is a conversation-wide numbering ledger: the first source ever
// cited is number 1, the next new one 2, and a source cited again, in any
// later answer, keeps its number.
//
// Invariant: numbers are 1..Len() without gaps, each held by one alias k.
// The zero value is an empty ledger. A Registry is not safe for concurrent
// use; a conversation answers one question at a time. It marshals to JSON
// as {"order":[k1,k2,...]} (k of number 1 first), so a conversation can be
// saved and resumed.
type Registry struct {
	order []int
	num   map[int]int
}

// NewRegistry returns an empty ledger.
func NewRegistry() *Registry { return &Registry{} }

// Number reports the number source_k holds, if any.
func (r *Registry) Number(k int) (n int, ok bool) {
	n, ok = r.num[k]
	return n, ok
}

// Assign returns the number of source_k, giving it the next one if it has
// none yet (isNew).
func (r *Registry) Assign(k int) (n int, isNew bool) {
	if n, ok := r.num[k]; ok {
		return n, false
	}
	if r.num == nil {
		r.num = make(map[int]int)
	}
	r.order = append(r.order, k)
	n = len(r.order)
	r.num[k] = n
	return n, true
}

// Len is the number of sources numbered so far.
func (r *Registry) Len() int { return len(r.order) }

// Order returns the aliases k in number order (a copy).
func (r *Registry) Order() []int { return append([]int(nil), r.order...) }

// Clone returns an independent copy.
func (r *Registry) Clone() *Registry {
	c := &Registry{}
	for _, k := range r.order {
		c.Assign(k)
	}
	return c
}

type registryJSON struct {
	Order []int `json:"order"`
}

// MarshalJSON writes {"order":[...]}; it has a value receiver so that a
// Registry held by value marshals the same way.
func (r Registry) MarshalJSON() ([]byte, error) {
	o := r.order
	if o == nil {
		o = []int{}
	}
	return json.Marshal(registryJSON{Order: o})
}

// UnmarshalJSON reads {"order":[...]}; a repeated alias is an error.
func (r *Registry) UnmarshalJSON(b []byte) error {
	var w registryJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("couldn't read citation registry: %w", err)
	}
	*r = Registry{}
	for _, k := range w.Order {
		if _, isNew := r.Assign(k); !isNew {
			return fmt.Errorf("couldn't read citation registry: source_%d listed twice", k)
		}
	}
	return nil
}

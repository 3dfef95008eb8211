package keyword

import "encoding/binary"

// A loaded index keeps the postings it read in their saved form: per
// term, the slot deltas and frequencies as varints, about a third of the
// memory of decoded postings, and nothing to decode on open. A search
// decodes the postings of its own terms as it scores them. Postings added
// after the load are kept decoded, after the saved ones (their slots are
// larger), so that every term's postings stay in increasing slot order.

// packed is one term's saved postings: n of them in b.
type packed struct {
	b []byte
	n int
}

// cursor walks one term's postings: the saved ones, then the added ones.
type cursor struct {
	b     []byte
	slot  int32
	limit int32 // the number of slots: a saved posting past it ends the walk
	mem   []posting
}

// postingsOf starts a walk over term id's postings.
func (x *BM25) postingsOf(id int32) cursor {
	c := cursor{mem: x.postings[id], limit: int32(len(x.slots))}
	if int(id) < len(x.packed) {
		c.b = x.packed[id].b
	}
	return c
}

// next returns the next posting; ok is false at the end.
func (c *cursor) next() (p posting, ok bool) {
	if len(c.b) > 0 {
		d, n := binary.Uvarint(c.b)
		tf, m := binary.Uvarint(c.b[max(n, 0):])
		if n <= 0 || m <= 0 || d >= uint64(c.limit-c.slot) {
			c.b = nil // cannot happen: the file's checksum matched
		} else {
			c.b = c.b[n+m:]
			c.slot += int32(d)
			return posting{c.slot, int32(tf)}, true
		}
	}
	if len(c.mem) == 0 {
		return posting{}, false
	}
	p, c.mem = c.mem[0], c.mem[1:]
	return p, true
}

// each calls fn with every saved posting's slot and frequency, in order,
// decoding the one-byte varints (most of them) inline; a slot at or past
// limit ends the walk (it cannot happen: the file's checksum matched).
func (p packed) each(limit int32, fn func(slot, tf int32)) {
	b := p.b
	slot := int32(0)
	for len(b) > 0 {
		var d, tf uint64
		if b[0] < 0x80 {
			d, b = uint64(b[0]), b[1:]
		} else {
			n := 0
			if d, n = binary.Uvarint(b); n <= 0 {
				return
			}
			b = b[n:]
		}
		if len(b) > 0 && b[0] < 0x80 {
			tf, b = uint64(b[0]), b[1:]
		} else {
			n := 0
			if tf, n = binary.Uvarint(b); n <= 0 {
				return
			}
			b = b[n:]
		}
		if d >= uint64(limit-slot) {
			return
		}
		slot += int32(d)
		fn(slot, int32(tf))
	}
}

// count is how many postings term id has, the dead ones included.
func (x *BM25) count(id int32) int {
	n := len(x.postings[id])
	if int(id) < len(x.packed) {
		n += x.packed[id].n
	}
	return n
}

// skipVarints returns the length of the first n varints of b, or -1 when
// b holds fewer.
func skipVarints(b []byte, n int) int {
	i := 0
	for ; n > 0; n-- {
		for {
			if i >= len(b) {
				return -1
			}
			c := b[i]
			i++
			if c < 0x80 {
				break
			}
		}
	}
	return i
}

package keyword

// DocFreq is how many live segments hold each term (terms as Tokenize
// makes them), and how many live segments there are: what BM25's idf is
// made of. Like Search, it may run while other searches do.
func (x *BM25) DocFreq(terms []string) (df []int, n int) {
	df = make([]int, len(terms))
	for i, t := range terms {
		id, ok := x.dict[t]
		if !ok {
			continue
		}
		c := x.postingsOf(id)
		for p, ok := c.next(); ok; p, ok = c.next() {
			if !x.slots[p.slot].dead {
				df[i]++
			}
		}
	}
	return df, x.live
}

package retrieve

// DocFreq is how many live segments hold each term (analysed terms, as
// Tokenize makes them), and how many live segments there are.
func (x *BM25) DocFreq(terms []string) (df []int, n int) {
	df = make([]int, len(terms))
	for i, t := range terms {
		id, ok := x.dict[t]
		if !ok {
			continue
		}
		for _, p := range x.postings[id] {
			if !x.slots[p.slot].dead {
				df[i]++
			}
		}
	}
	return df, x.live
}

// DocFreq is the index's BM25.DocFreq, safe while documents are added.
func (ix *Index) DocFreq(terms []string) (df []int, n int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.bm25.DocFreq(terms)
}

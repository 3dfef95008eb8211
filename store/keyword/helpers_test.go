package keyword

// Build is BuildFunc over texts parallel to ids.
func Build(ids, texts []string) *BM25 {
	return BuildFunc(ids, func(i int) string { return texts[i] })
}

// Reconcile is ReconcileSums over texts parallel to ids.
func (x *BM25) Reconcile(ids, texts []string) bool {
	sums := make([]uint32, len(texts))
	for i, t := range texts {
		sums[i] = textSum(t)
	}
	return x.ReconcileSums(ids, sums, func(i int) string { return texts[i] })
}

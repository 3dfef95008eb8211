package extractive

// canonical maps an analysed term (keyword.Tokenize's stem) to the term it
// is compared as, so that a question and a sentence meet where the
// analyser keeps them apart: the past forms of irregular English verbs
// ("paid" is "pay", "chosen" is "choose"), which stemming cannot reach,
// and the one pair of words that name the same act in every paper
// ("computed" and "calculated"). It is deliberately small: a word that
// means something else elsewhere ("left", "lead") is not in it, and no
// synonym that a field uses in its own sense.
var canonical = func() map[string]string {
	m := map[string]string{}
	add := func(to string, from ...string) {
		for _, f := range from {
			m[f] = to
		}
	}
	// Irregular verbs, as stems (base form first).
	add("pai", "paid", "payment")
	add("choos", "chose", "chosen")
	add("build", "built")
	add("make", "made")
	add("find", "found")
	add("take", "took", "taken")
	add("give", "gave", "given")
	add("write", "wrote", "written")
	add("show", "shown")
	add("run", "ran")
	add("hold", "held")
	add("keep", "kept")
	add("sai", "said")
	add("send", "sent")
	add("meet", "met")
	add("bui", "bought")
	add("bring", "brought")
	add("begin", "began", "begun")
	add("draw", "drew", "drawn")
	add("feel", "felt")
	add("lose", "lost")
	add("mean", "meant")
	add("see", "saw", "seen")
	add("spend", "spent")
	add("teach", "taught")
	add("think", "thought")
	add("tell", "told")
	add("understand", "understood")
	add("win", "won")
	add("grow", "grew", "grown")
	add("know", "knew", "known")
	add("sell", "sold")
	add("seek", "sought")
	add("break", "broke", "broken")
	add("get", "got", "gotten")
	// One act, two words.
	add("comput", "calcul")
	return m
}()

package support

import "strings"

// synonymSets are words that science writing uses for one another: a
// claim's word is found in a sentence that holds another of its set
// ("reduces" in "… lowered …"). Direction words are grouped by direction
// only, so that "increases" is never found in "decreased".
var synonymSets = []string{
	"increase increased increases increasing elevate elevated elevates raise raised raises higher greater enhance enhanced enhances augment augmented upregulate upregulated upregulation boost boosted",
	"decrease decreased decreases decreasing reduce reduced reduces reduction lower lowered lowers diminish diminished attenuate attenuated downregulate downregulated downregulation decline declined lessen lessened",
	"inhibit inhibits inhibited inhibition suppress suppressed suppresses suppression block blocked blocks blocking prevent prevented prevents impair impaired impairs",
	"promote promotes promoted induce induces induced induction trigger triggers triggered stimulate stimulates stimulated activate activates activated activation",
	"associate associated association correlate correlated correlation link linked relate related relation",
	"cause causes caused lead leads led result results resulted",
	"risk risks odds hazard likelihood incidence",
	"effect effects impact impacts influence influences",
	"patient patients people individuals subjects participants persons adults",
	"mouse mice murine",
	"human humans",
	"death deaths mortality died",
	"tumor tumors tumour tumours cancer cancers neoplasm",
	"efficacy effective effectiveness efficacious",
	"required require requires necessary essential needed",
}

// synonyms maps an analysed term to the index of its set.
var synonyms = func() map[string]int {
	m := map[string]int{}
	for i, s := range synonymSets {
		for _, w := range strings.Fields(s) {
			for _, t := range tokenize(w) {
				m[t] = i
			}
		}
	}
	return m
}()

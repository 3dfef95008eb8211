package support

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestAbbreviations(t *testing.T) {
	for _, c := range []struct {
		text string
		want map[string][]string // short → long terms
	}{
		{"We studied brown adipose tissue (BAT) in adults.", map[string][]string{"bat": {"brown", "adipos", "tissu"}}},
		{"AMP-activated protein kinase (AMPK) activation", map[string][]string{"ampk": {"amp", "activ", "protein", "kinas"}}},
		{"induced pluripotent stem cells (iPSCs) were made", map[string][]string{"ipsc": {"induc", "pluripot", "stem", "cell"}}},
		{"tumor necrosis factor-α (TNF-α) rose", nil}, // a short form of two terms is left alone
		{"preterm infants (n = 17) were scanned", nil},
		{"the difference (P < 0.001) was large", nil},
		{"a value (95% CI 1.1-2.0) was found", nil},
		{"cells (see above) grew", nil},
		{"the gene (DGKK) was found", nil}, // no long form spells it
		{"unclosed (ABC", nil},
	} {
		got := map[string][]string{}
		for _, a := range abbreviations(c.text, tokenize) {
			got[a.short] = a.long
		}
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}

func TestCues(t *testing.T) {
	for _, c := range []struct {
		text string
		want uint8
	}{
		{"Mites spread viruses.", 0},
		{"Mites do not spread viruses.", cueNegated},
		{"Mites don’t spread viruses.", cueNegated},
		{"No mites were found in the hives.", cueNegated},
		{"Mites were absent from the hives.", cueNegated},
		{"Notably, mites spread viruses.", 0}, // "not" inside a word is no cue
		{"It spreads viruses.", cueAnaphor},
		{"These mites spread viruses.", cueAnaphor},
		{"To determine whether mites spread viruses, we sampled hives.", cueAim},
		{"OBJECTIVE Mites and viruses in hives.", cueAim},
		{"Methods: hives were sampled.", cueAim},
		{"RESULTS Mites spread viruses.", cueFinding},
		{"We found that mites spread viruses.", cueFinding},
		{"Our results suggest that mites spread viruses.", cueFinding},
		{"Mites were found in hives.", 0}, // "found" with no subject of a finding
	} {
		if got := cues(c.text); got != c.want {
			t.Errorf("cues(%q) = %04b, want %04b", c.text, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Results on ASQA improve.", []string{"asqa"}},
		{"Mites carry DWV and p53 rises in Varroa hosts.", []string{"dwv", "p53", "varroa"}},
		{"Varroa mites spread viruses.", nil}, // a capital that starts the sentence
		{"mRNA levels of PrP fell.", []string{"mrna", "prp"}},
	} {
		if got := names(c.text); !slices.Equal(got, c.want) {
			t.Errorf("names(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestLeadingLabel(t *testing.T) {
	for text, want := range map[string]string{
		"RESULTS Mites spread.":       "results",
		"CONCLUSIONS: mites spread.":  "conclusions",
		"Methods: hives were sampled": "methods",
		"Methods were varied.":        "",
		"DNA was extracted.":          "dna", // a word of capitals; the cue sets decide
		"Is it?":                      "",
		"Mites spread.":               "",
	} {
		if got := leadingLabel(text); got != want {
			t.Errorf("leadingLabel(%q) = %q, want %q", text, got, want)
		}
	}
}

// TestAnalyseSentences: sentences lose list markers and white space, keep
// every other byte, and headings are left out.
func TestAnalyseSentences(t *testing.T) {
	text := "# Notes\n\n- Varroa mites spread deformed wing virus\n  between colonies.\n1. Queens are replaced.\n\n> Drones leave in autumn.  "
	e := Analyse(one(text))
	var got []string
	for _, s := range e.sents {
		got = append(got, text[s.start:s.end])
	}
	want := []string{"Varroa mites spread deformed wing virus\n  between colonies.", "Queens are replaced.", "Drones leave in autumn."}
	if !slices.Equal(got, want) {
		t.Errorf("sentences %q, want %q", got, want)
	}
}

// TestGreekSpelledOut: "TNF-α" and "TNF-alpha" share their terms.
func TestGreekSpelledOut(t *testing.T) {
	if a, b := tokenize("TNF-α levels"), tokenize("TNF-alpha levels"); !slices.Equal(a, b) {
		t.Errorf("%q and %q differ", a, b)
	}
}

// TestCompoundsAndNearTerms: "birth-weight" finds "birthweight", and
// "Dscam" finds "Dscam1" only through names and prefixes of six bytes.
func TestCompoundsAndNearTerms(t *testing.T) {
	e := Analyse(one("Birthweight was recorded. Risk rose with higher birthweight."))
	c, _ := analyseClaim("Risk rose with birth-weight.", e, nil)
	mt := e.match(&c)
	if c.weight(mt.all) != c.total {
		t.Errorf("birth-weight: found %v of %v", c.weight(mt.all), c.total)
	}
	e = Analyse(one("The glutamatergic input rose."))
	c, _ = analyseClaim("Glutamate input rose.", e, nil)
	mt = e.match(&c)
	if c.weight(mt.all) != c.total {
		t.Errorf("glutamate: found %v of %v terms", c.weight(mt.all), c.total)
	}
}

func TestMaxTermsKeepsTheRarest(t *testing.T) {
	var words []string
	for i := range 80 {
		words = append(words, "w"+strings.Repeat("x", i%10)+string(rune('a'+i/10))+string(rune('a'+i%10)))
	}
	claim := strings.Join(words, " ") + " varroa"
	rarity := func(terms []string) []float64 {
		w := make([]float64, len(terms))
		for i, t := range terms {
			w[i] = 1
			if t == "varroa" {
				w[i] = 9
			}
		}
		return w
	}
	e := Analyse(one("Varroa harms larvae."))
	c, ok := analyseClaim(claim, e, rarity)
	if !ok || len(c.terms) != maxTerms || !slices.Contains(c.terms, "varroa") {
		t.Fatalf("%d terms, varroa kept: %v", len(c.terms), slices.Contains(c.terms, "varroa"))
	}
	if r := e.Check(claim, rarity); r.Sentence != "Varroa harms larvae." {
		t.Errorf("focus %q", r.Sentence)
	}
}

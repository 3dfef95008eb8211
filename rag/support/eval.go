package support

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ibid-dev/ibid/store/keyword"
)

// This file reads the labelled sets the checker is tuned and measured on
// (SciFact's rationales, WiCE's claims; docs/support.md) into Cases.

// Label is a case's gold answer to "does the passage support the claim".
type Label string

const (
	LabelSupport    Label = "support"    // SciFact SUPPORT, WiCE supported
	LabelPartial    Label = "partial"    // WiCE partially_supported
	LabelContradict Label = "contradict" // SciFact CONTRADICT: evidence, against the claim
	LabelNone       Label = "none"       // SciFact NEI, WiCE not_supported
)

// Evidential reports whether a case with label l holds evidence about its
// claim (supporting it, in part, or contradicting it).
func (l Label) Evidential() bool { return l != LabelNone }

// Case is one labelled (claim, cited passage) pair.
type Case struct {
	ID      string // the claim's id and the document's
	Group   string // the claim's id: cases of one claim share it
	Claim   string
	Passage Passage
	// Gold are the passage's sentences as the set split them (byte spans
	// into its segments' texts), each marked when it is a rationale: a
	// sentence of some evidence set.
	Gold  []GoldSentence
	Label Label
}

// GoldSentence is one sentence of a case's passage, as the set split it.
type GoldSentence struct {
	Segment    int // index into Passage.Segments
	Start, End int // byte offsets into its Text
	Rationale  bool
}

// Rationales reports whether c marks any rationale sentence.
func (c *Case) Rationales() bool {
	for _, g := range c.Gold {
		if g.Rationale {
			return true
		}
	}
	return false
}

// Set is a labelled set and the document frequencies of its corpus, the
// rarity its claims are weighed by.
type Set struct {
	Name  string
	Cases []Case
	df    map[string]int
	docs  int
}

// Rarity weighs terms by BM25's idf over the set's corpus: what a library
// of its documents would give.
func (s *Set) Rarity(terms []string) []float64 {
	w := make([]float64, len(terms))
	for i, t := range terms {
		w[i] = IDF(s.df[t], s.docs)
	}
	return w
}

// IDF is Lucene's BM25 idf, ln(1 + (n - df + 0.5)/(df + 0.5)), for a term
// in df of n documents.
func IDF(df, n int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// count adds text, one document, to s's document frequencies.
func (s *Set) count(text string) {
	if s.df == nil {
		s.df = map[string]int{}
	}
	seen := map[string]bool{}
	for _, t := range keyword.Tokenize(text) {
		if !seen[t] {
			seen[t] = true
			s.df[t]++
		}
	}
	s.docs++
}

// ReadSciFact reads SciFact's claims with rationales (dir holds
// claims_FILE and corpus.jsonl, as ../shared/data/scifact-rationale
// does): one case per (claim, cited abstract). An abstract becomes one
// segment, its title line (a heading), a blank line and its sentences
// joined by spaces, as a library would hold a short document; a claim
// with no evidence for the abstract is LabelNone. file is the claims
// file's name ("claims_train.jsonl").
func ReadSciFact(dir, file string) (*Set, error) {
	type doc struct {
		ID       int      `json:"doc_id"`
		Title    string   `json:"title"`
		Abstract []string `json:"abstract"`
	}
	docs := map[int]doc{}
	s := &Set{Name: "scifact " + strings.TrimSuffix(file, ".jsonl")}
	err := eachLine(filepath.Join(dir, "corpus.jsonl"), func(b []byte) error {
		var d doc
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
		docs[d.ID] = d
		s.count(d.Title + "\n\n" + strings.Join(d.Abstract, " "))
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachLine(filepath.Join(dir, file), func(b []byte) error {
		var c struct {
			ID       int    `json:"id"`
			Claim    string `json:"claim"`
			Evidence map[string][]struct {
				Sentences []int  `json:"sentences"`
				Label     string `json:"label"`
			} `json:"evidence"`
			Cited []int `json:"cited_doc_ids"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		for _, id := range c.Cited {
			d, ok := docs[id]
			if !ok {
				return fmt.Errorf("claim %d cites document %d, which corpus.jsonl lacks", c.ID, id)
			}
			cs := Case{ID: fmt.Sprintf("%d/%d", c.ID, id), Group: strconv.Itoa(c.ID), Claim: c.Claim, Label: LabelNone}
			rationale := map[int]bool{}
			for _, set := range c.Evidence[strconv.Itoa(id)] {
				cs.Label = LabelSupport
				if set.Label == "CONTRADICT" {
					cs.Label = LabelContradict
				}
				for _, k := range set.Sentences {
					rationale[k] = true
				}
			}
			var b strings.Builder
			b.WriteString(d.Title)
			b.WriteString("\n\n")
			for k, sent := range d.Abstract {
				if k > 0 {
					b.WriteByte(' ')
				}
				cs.Gold = append(cs.Gold, GoldSentence{Start: b.Len(), End: b.Len() + len(sent), Rationale: rationale[k]})
				b.WriteString(sent)
			}
			cs.Passage = Passage{Segments: []Segment{{ID: strconv.Itoa(id) + ":0", Text: b.String()}}, Headings: []string{d.Title}}
			s.Cases = append(s.Cases, cs)
		}
		return nil
	})
	return s, err
}

// ReadWiCE reads WiCE's claim-level file (../shared/data/wice-claim's
// dev.jsonl): one case per claim, its cited page one segment whose
// sentences are paragraphs apart (the page's title line, "(meta data)
// TITLE: …", becomes the passage's heading, not text). The rationales
// are the sentences of every supporting set.
func ReadWiCE(path string) (*Set, error) {
	s := &Set{Name: "wice " + strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	n := 0
	err := eachLine(path, func(b []byte) error {
		var c struct {
			Label      string   `json:"label"`
			Supporting [][]int  `json:"supporting_sentences"`
			Claim      string   `json:"claim"`
			Evidence   []string `json:"evidence"`
			Meta       struct {
				ID string `json:"id"`
			} `json:"meta"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		n++
		cs := Case{ID: c.Meta.ID, Group: c.Meta.ID, Claim: c.Claim}
		if cs.ID == "" {
			cs.ID = strconv.Itoa(n)
			cs.Group = cs.ID
		}
		switch c.Label {
		case "supported":
			cs.Label = LabelSupport
		case "partially_supported":
			cs.Label = LabelPartial
		case "not_supported":
			cs.Label = LabelNone
		default:
			return fmt.Errorf("claim %s: unknown label %q", cs.ID, c.Label)
		}
		rationale := map[int]bool{}
		for _, set := range c.Supporting {
			for _, k := range set {
				rationale[k] = true
			}
		}
		var heads []string
		var text strings.Builder
		for k, sent := range c.Evidence {
			if t, ok := strings.CutPrefix(sent, "(meta data) TITLE:"); ok && k == 0 {
				heads = append(heads, strings.TrimSpace(t))
				continue
			}
			if text.Len() > 0 {
				text.WriteString("\n\n")
			}
			cs.Gold = append(cs.Gold, GoldSentence{Start: text.Len(), End: text.Len() + len(sent), Rationale: rationale[k]})
			text.WriteString(sent)
		}
		s.count(text.String())
		cs.Passage = Passage{Segments: []Segment{{ID: cs.ID + ":0", Text: text.String()}}, Headings: heads}
		s.Cases = append(s.Cases, cs)
		return nil
	})
	return s, err
}

// ReadSets reads the labelled sets at path: a folder of SciFact's
// release (corpus.jsonl and claims_*.jsonl: one set per claims file that
// holds labels, claims_train.jsonl first), a SciFact claims file (its
// corpus.jsonl beside it), a WiCE claim file, or a folder of WiCE files
// (every *.jsonl).
func ReadSets(path string) ([]*Set, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if filepath.Base(path) != "corpus.jsonl" && fileExists(filepath.Join(filepath.Dir(path), "corpus.jsonl")) {
			s, err := ReadSciFact(filepath.Dir(path), filepath.Base(path))
			return []*Set{s}, err
		}
		s, err := ReadWiCE(path)
		return []*Set{s}, err
	}
	files, err := filepath.Glob(filepath.Join(path, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b string) int { // train first, then by name
		return cmp.Or(cmp.Compare(trainLast(b), trainLast(a)), cmp.Compare(a, b))
	})
	var out []*Set
	scifact := fileExists(filepath.Join(path, "corpus.jsonl"))
	for _, f := range files {
		name := filepath.Base(f)
		var s *Set
		switch {
		case scifact && strings.HasPrefix(name, "claims_"):
			s, err = ReadSciFact(path, name)
		case scifact:
			continue
		default:
			s, err = ReadWiCE(f)
		}
		if err != nil {
			return nil, err
		}
		if s.labelled() {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no labelled claims (SciFact's corpus.jsonl and claims_*.jsonl, or WiCE's *.jsonl)", path)
	}
	return out, nil
}

func trainLast(name string) int {
	if strings.Contains(filepath.Base(name), "train") {
		return 1
	}
	return 0
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// labelled reports whether some case of s holds evidence (SciFact's test
// claims have none: they are scored by a leaderboard).
func (s *Set) labelled() bool {
	for i := range s.Cases {
		if s.Cases[i].Label.Evidential() {
			return true
		}
	}
	return false
}

// eachLine calls fn with each non-blank line of the file at path.
func eachLine(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if len(strings.TrimSpace(string(text))) == 0 {
			continue
		}
		if err := fn(text); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
	}
	return sc.Err()
}

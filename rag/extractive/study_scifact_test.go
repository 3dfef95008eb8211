package extractive_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/retrieve"
)

// TestStudySciFact asks SciFact's training claims that have rationale
// sentences of the extractive answerer over the SciFact corpus, and
// counts the answers that quote a rationale sentence (40 characters of
// one in a row), and those that quote the cited abstract at all
// (IBID_ANSWERS_STUDY=store folder; ../shared/data/scifact-rationale).
func TestStudySciFact(t *testing.T) {
	dir := os.Getenv("IBID_ANSWERS_STUDY")
	if dir == "" {
		t.Skip("IBID_ANSWERS_STUDY=/tmp/folder runs the study")
	}
	data := shareddata.Path(t, "scifact-rationale")
	ctx := context.Background()
	type doc struct {
		ID       int      `json:"doc_id"`
		Title    string   `json:"title"`
		Abstract []string `json:"abstract"`
	}
	docs := map[int]doc{}
	f, err := os.Open(filepath.Join(data, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		docs[d.ID] = d
	}
	f.Close()
	lib, err := library.Open(ctx, library.Options{Name: "scifact", Store: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if n, _ := lib.Len(ctx); n == 0 {
		tmp := t.TempDir()
		for id, d := range docs {
			md := "# " + d.Title + "\n\n" + strings.Join(d.Abstract, " ") + "\n"
			if err := os.WriteFile(filepath.Join(tmp, strconv.Itoa(id)+".md"), []byte(md), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := lib.AddWith(ctx, []string{tmp}, library.AddOptions{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	p := rag.NewPipeline(lib, rag.ExtractiveAnswerer(), rag.PipelineOptions{})
	cf, err := os.Open(filepath.Join(data, "claims_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	var n, rationale, abstract, declined int
	sc = bufio.NewScanner(cf)
	for sc.Scan() {
		var c struct {
			Claim    string `json:"claim"`
			Evidence map[string][]struct {
				Sentences []int `json:"sentences"`
			} `json:"evidence"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Evidence) == 0 {
			continue
		}
		var rat, all []string
		for id, sets := range c.Evidence {
			d := docs[atoi(id)]
			all = append(all, d.Abstract...)
			for _, s := range sets {
				for _, i := range s.Sentences {
					rat = append(rat, d.Abstract[i])
				}
			}
		}
		var b strings.Builder
		if err := p.Answer(ctx, rag.NewConversation("study"), c.Claim, func(e rag.Event) {
			if e.Type == rag.EventText {
				b.WriteString(e.Text)
			}
		}); err != nil {
			t.Fatal(err)
		}
		a := b.String()
		n++
		switch {
		case strings.HasPrefix(a, rag.DeclineText):
			declined++
		case (retrieve.LongDocQuestion{Answers: rat}).Quotes(a):
			rationale++
			abstract++
		case (retrieve.LongDocQuestion{Answers: all}).Quotes(a):
			abstract++
		}
	}
	fmt.Printf("SCIFACT train claims with rationales %d: quotes a rationale %.3f (%d), quotes the cited abstract %.3f (%d), declined %d\n",
		n, float64(rationale)/float64(n), rationale, float64(abstract)/float64(n), abstract, declined)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

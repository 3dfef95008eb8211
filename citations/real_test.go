package citations

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// sharedData is a file of recorded answers in the shared data folder
// (shareddata.Path: tests skip when the folder is absent).
func sharedData(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, "llm-answers", name)
}

func readJSONL(t *testing.T, path string, each func(line []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

var numMarker = regexp.MustCompile(`\[(\d+)\]`)

// TestRealAnswers streams the 38 ALCE answers, markers rewritten from [n]
// to [source_n], in the chunks the o200k_base tokenizer makes, inline and
// as a JSON body, and checks them against Render and against numbering
// done here independently on the original markers.
func TestRealAnswers(t *testing.T) {
	t.Parallel()
	path := sharedData(t, "alce-answers.jsonl")
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatalf("couldn't load o200k_base: %v", err)
	}
	n, refs := 0, 0
	readJSONL(t, path, func(line []byte) {
		var rec struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		n++
		text := numMarker.ReplaceAllString(rec.Text, "[source_$1]")
		// The reader's view, numbered here by first appearance.
		seen := map[string]int{}
		want := numMarker.ReplaceAllStringFunc(rec.Text, func(m string) string {
			if _, ok := seen[m]; !ok {
				seen[m] = len(seen) + 1
			}
			refs++
			return "[" + strconv.Itoa(seen[m]) + "]"
		})
		body, _ := json.Marshal(map[string]string{"body": text})
		for _, c := range []struct {
			mode Mode
			text string
		}{{ModeInline, text}, {ModeJSON, string(body)}} {
			var cuts []int
			pos := 0
			for _, tok := range enc.Encode(c.text, nil, nil) {
				pos += len(enc.Decode([]int{tok}))
				cuts = append(cuts, pos)
			}
			if pos != len(c.text) {
				t.Fatalf("%s: tokens cover %d of %d bytes", rec.ID, pos, len(c.text))
			}
			got := stream(t, c.mode, c.text, Options{}, at(cuts...))
			if g, w := show(got), show(Render(c.mode, c.text, Options{})); g != w {
				t.Fatalf("%s %s: stream and Render differ:\n got %s\nwant %s", rec.ID, c.mode, g, w)
			}
			if p := plain(got); p != want {
				t.Errorf("%s %s:\n got %q\nwant %q", rec.ID, c.mode, p, want)
			}
		}
	})
	if n != 38 {
		t.Errorf("read %d answers, want 38", n)
	}
	t.Logf("%d answers, %d markers", n, refs)
}

// TestRealStreams feeds the recorded provider streams, in their real
// chunks, unchanged: they cite as [n], markdown links and annotations, none
// of which is a token, so every byte must come out as it went in.
func TestRealStreams(t *testing.T) {
	t.Parallel()
	path := sharedData(t, "streams.jsonl")
	n := 0
	readJSONL(t, path, func(line []byte) {
		var rec struct {
			ID     string   `json:"id"`
			Chunks []string `json:"chunks"`
			Text   string   `json:"text"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.Chunks) == 0 {
			rec.Chunks = []string{rec.Text}
		}
		n++
		var cuts []int
		pos := 0
		for _, c := range rec.Chunks {
			pos += len(c)
			cuts = append(cuts, pos)
		}
		text := strings.Join(rec.Chunks, "")
		got := stream(t, ModeInline, text, Options{}, at(cuts...))
		if p := plain(got); p != text {
			t.Errorf("%s: text changed:\n got %q\nwant %q", rec.ID, p, text)
		}
	})
	if n == 0 {
		t.Error("no streams read")
	}
}

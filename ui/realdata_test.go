package ui

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag"
)

// realAnswers reads the recorded answers of ../shared/data/llm-answers:
// each as the text chunks it arrived in (one chunk for a non-streamed
// answer). The test skips when the data is absent.
func realAnswers(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(shareddata.Path(t, "llm-answers", "streams.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			ID     string   `json:"id"`
			Chunks []string `json:"chunks"`
			Text   string   `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Chunks) == 0 {
			for s := r.Text; s != ""; { // 5-byte chunks on rune boundaries
				n := min(5, len(s))
				for n < len(s) && !utfStart(s, n) {
					n++
				}
				r.Chunks, s = append(r.Chunks, s[:n]), s[n:]
			}
		}
		out[r.ID] = r.Chunks
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRealAnswersStream streams recorded provider answers (Markdown with
// links, lists, headings, bold) into the transcript as they arrived and
// checks every frame: each line exactly fills the pane (no overflow, no
// word cut), and lines already drawn stay put (at most a few frames, where
// Markdown closed, redraw an earlier line).
func TestRealAnswersStream(t *testing.T) {
	t.Parallel()
	answers := realAnswers(t)
	if len(answers) < 10 {
		t.Fatalf("%d answers", len(answers))
	}
	for id, chunks := range answers {
		for _, w := range []int{80, 160} {
			c := &common{Styles: newStyles(true), Keys: defaultKeyMap()}
			tr := newTranscript(c)
			tr.SetSize(w, 30)
			tr.begin("q", 1)
			moved, frames := 0, 0
			var prev []string
			for _, ch := range chunks {
				tr.apply(rag.Event{Type: rag.EventText, Text: ch})
				tl, _ := tr.tailLines()
				for i, l := range tl {
					if lw := ansi.StringWidth(l); lw != w {
						t.Fatalf("%s at %d: tail line %d is %d wide: %q", id, w, i, lw, ansi.Strip(l))
					}
				}
				cur := make([]string, len(tl))
				for i, l := range tl {
					cur[i] = strings.NewReplacer("`", " ", "\u00a0", " ").Replace(ansi.Strip(l))
				}
				frames++
				for i := 0; i+1 < len(prev) && i+1 < len(cur); i++ {
					if prev[i] != cur[i] {
						moved++
						break
					}
				}
				prev = cur
				_ = tr.View()
			}
			tr.end(nil)
			if moved > max(3, frames/20) {
				t.Errorf("%s at %d: %d of %d frames changed a line drawn before (words jumped)", id, w, moved, frames)
			}
			_ = tr.View()
			for i, l := range tr.stable {
				if lw := ansi.StringWidth(l); lw != w {
					t.Fatalf("%s at %d: finished line %d is %d wide", id, w, i, lw)
				}
			}
		}
	}
}

package ingest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/synthtext"
	"github.com/ibid-dev/ibid/rag/ingest/tokens"
)

var bench16 = flag.Bool("bench16mb", false, "also run the 16 MB sizes of BenchmarkHostile")

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

// loadWork loads text as file and returns the bytes of words looked up
// and handed to the tokenizer, from an empty word cache.
func loadWork(t *testing.T, file, text string) (lookedUp, tokenized int64, ld *Loaded) {
	t.Helper()
	path := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tokens.ClearCache()
	l0, t0 := tokens.Work()
	ld, err := testLoader(t).Load(context.Background(), path)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	l1, t1 := tokens.Work()
	lookedUp, tokenized = l1-l0, t1-t0
	checkLoaded(t, path, ld, DefaultTokenBudget)
	return lookedUp, tokenized, ld
}

// TestHostileWorkIsLinear loads every hostile class at two sizes and
// counts the tokenizer's work: it must grow in proportion to the input
// (the old chunker re-tokenised the whole remainder at every cut, so its
// work grew with the square), and stay within a few passes per byte.
func TestHostileWorkIsLinear(t *testing.T) {
	tokens.Count("warm up")
	const small = 32 << 10
	for _, h := range synthtext.Hostile {
		t.Run(h.Name, func(t *testing.T) {
			s1, s4 := h.Make(small), h.Make(4*small)
			l1, t1, _ := loadWork(t, h.File, s1)
			l4, t4, ld := loadWork(t, h.File, s4)
			if l4 > 8*int64(len(s4)) || t4 > 3*int64(len(s4)) {
				t.Errorf("%d bytes: %d bytes looked up, %d tokenised: more than a few passes per byte", len(s4), l4, t4)
			}
			if l4 > 6*max(l1, 1) || t4 > 6*max(t1, 1) {
				t.Errorf("work grew from %d/%d to %d/%d bytes for 4x the input: not linear", l1, t1, l4, t4)
			}
			if len(ld.Segments) == 0 {
				t.Error("no segments")
			}
		})
	}
}

// TestBase64ImageIsDropped is the 400 KB Markdown file with one base64
// image that once took 75 s and made 958 junk segments.
func TestBase64ImageIsDropped(t *testing.T) {
	payload := synthtext.Base64(400 << 10)
	md := "# Figure\n\nSee the plot below.\n\n![plot](data:image/png;base64," + payload + ")\n\nWrapped:\n\n" +
		wrap(payload[:4096], 76) + "\nThe end.\n"
	_, _, ld := loadWork(t, "fig.md", md)
	if len(ld.Segments) != 1 {
		t.Errorf("%d segments, want 1", len(ld.Segments))
	}
	if strings.Contains(ld.Text, payload[:100]) || strings.Contains(ld.Text, payload[4000:4060]) {
		t.Error("base64 payload kept in the text")
	}
	if !strings.Contains(ld.Text, "See the plot below.") || !strings.Contains(ld.Text, "The end.") {
		t.Errorf("text around the blob lost: %q", ld.Text)
	}
	if len(ld.Notes) != 1 || !strings.Contains(ld.Notes[0], "dropped 2 base64 blob(s)") {
		t.Errorf("notes %q", ld.Notes)
	}
	// Text that merely looks like base64 stays.
	for _, keep := range []string{strings.Repeat("a", 1000), "sha256 " + strings.Repeat("0123456789abcdef", 4), strings.Repeat("ABCD", 100)} {
		if out, note := dropBlobs(keep); out != keep || note != "" {
			t.Errorf("dropBlobs dropped %.40q…", keep)
		}
	}
}

func wrap(s string, n int) string {
	var b strings.Builder
	for len(s) > n {
		b.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return b.String() + s + "\n"
}

// TestDeepNestingIsFlattened: a 2,000-level nested list (and quote) keeps
// at most maxPrefix bytes of nesting per line, outside fences.
func TestDeepNestingIsFlattened(t *testing.T) {
	deep := synthtext.NestedList(1 << 20)
	quote := strings.Repeat("> ", 2000) + "quoted\n"
	fenced := "```\n" + strings.Repeat(" ", 100) + "code keeps its indentation\n```\n"
	for _, in := range []string{deep, quote, fenced} {
		p := parseMarkdown(in)
		fences := FencedBlocks(p.text)
		for ls := 0; ls < len(p.text); {
			le := strings.IndexByte(p.text[ls:], '\n')
			if le < 0 {
				le = len(p.text) - ls
			}
			line := p.text[ls : ls+le]
			if n := prefixEnd(line, func(int) {}); n > maxPrefix && !inside(fences, ls) {
				t.Fatalf("line with %d bytes of nesting kept: %.60q", n, line)
			}
			ls += le + 1
		}
		if in == fenced && p.text != fenced {
			t.Errorf("fenced code changed: %q", p.text)
		}
		if in != fenced && (len(p.notes) != 1 || !strings.Contains(p.notes[0], "flattened")) {
			t.Errorf("notes %q", p.notes)
		}
	}
	if got := parseMarkdown(quote).text; !strings.HasSuffix(got, "> quoted\n") {
		t.Errorf("innermost marker lost: %q", got)
	}
}

// TestDeepHTML: block quotes nested 500 deep once cost the HTML converter
// the square of their depth; elements past maxHTMLDepth are unwrapped.
// Deeper than the HTML parser allows, the page is skipped with a reason.
func TestDeepHTML(t *testing.T) {
	page := "<html><body>" + strings.Repeat("<blockquote><p>quoted text</p>", 500)
	_, _, ld := loadWork(t, "deep.html", page)
	if !strings.Contains(ld.Text, "quoted text") {
		t.Errorf("text lost: %.200q", ld.Text)
	}
	if !slices.ContainsFunc(ld.Notes, func(n string) bool { return strings.Contains(n, "HTML element(s) nested more than 32 deep") }) {
		t.Errorf("notes %q", ld.Notes)
	}
	for line := range strings.Lines(ld.Text) {
		if n := prefixEnd(line, func(int) {}); n > 2*maxHTMLDepth+maxPrefix {
			t.Fatalf("line nested %d bytes deep: %.80q", n, line)
		}
	}
	path := filepath.Join(t.TempDir(), "deeper.html")
	os.WriteFile(path, []byte("<html><body>"+strings.Repeat("<ul><li>item", 300)), 0o644)
	_, err := testLoader(t).Load(context.Background(), path)
	if r := skipReason(t, err); !strings.HasPrefix(r, "HTML nested more than 512 elements deep") {
		t.Errorf("reason %q", r)
	}
}

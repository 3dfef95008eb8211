package extractive

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/library"
)

// TestRelevanceChinese: on the bundled PDFs (ElegantPaper's Chinese
// edition among them), the relevance floor answers Chinese questions that
// the Chinese edition answers and declines Chinese questions on other
// subjects, although a Chinese question's terms are character bigrams,
// many of them straddling the edge of two words and so found nowhere.
// The rates are docs/answers.md's; a question set is one a line in
// testdata, written before any rule for CJK terms was tried.
func TestRelevanceChinese(t *testing.T) {
	dir := shareddata.Path(t, "pdf")
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ibid-rag-test-cache"))
	ctx := context.Background()
	lib, err := library.Open(ctx, library.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	if _, err := lib.Add(ctx, []string{dir}, nil); err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, q := range readQuestions(t, "ontopic-zh.txt") {
		if answerRate(t, lib, []string{q}) == 1 {
			answered++
		} else {
			t.Logf("declined, though ElegantPaper answers it: %s", q)
		}
	}
	// docs/answers.md: 7 of 8 answered ("如何插入图片？" asks in other
	// words than the document's "插图").
	if answered != 7 {
		t.Errorf("%d of the Chinese questions on ElegantPaper answered, docs/answers.md says 7 of 8", answered)
	}
	for _, q := range readQuestions(t, "offtopic-zh.txt") {
		if answerRate(t, lib, []string{q}) != 0 {
			t.Errorf("answered, though no bundled PDF is about it: %s", q)
		}
	}
}

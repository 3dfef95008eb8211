package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/internal/shareddata"
	"github.com/ibid-dev/ibid/rag/ingest/pdf"
	"github.com/ibid-dev/ibid/store"
)

func sharedPDF(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, "pdf", name)
}

// sharedLoads are real documents loaded once per test binary (a load of
// the ALCE paper takes seconds under -race), by path.
var sharedLoads struct {
	mu sync.Mutex
	m  map[string]*sharedLoad
}

type sharedLoad struct {
	once sync.Once
	ld   *Loaded
	err  error
}

// loadShared is load of the real PDF name, loaded once and shared by
// every test that calls it: the tests must only read it. A test that
// changes a Loaded (a strategy applied to it) loads its own with load.
func loadShared(t *testing.T, name string) *Loaded {
	t.Helper()
	path := sharedPDF(t, name)
	s := sharedLoadOf(t, path)
	if s.err != nil {
		t.Fatalf("Load(%s): %v", path, s.err)
	}
	checkLoaded(t, path, s.ld, DefaultTokenBudget)
	return s.ld
}

// sharedLoadOf is the load of the file at path shared by the test
// binary (loadShared, loadOrSkip), loaded by the first to ask.
func sharedLoadOf(t *testing.T, path string) *sharedLoad {
	t.Helper()
	sharedLoads.mu.Lock()
	if sharedLoads.m == nil {
		sharedLoads.m = map[string]*sharedLoad{}
	}
	s := sharedLoads.m[path]
	if s == nil {
		s = &sharedLoad{}
		sharedLoads.m[path] = s
	}
	sharedLoads.mu.Unlock()
	s.once.Do(func() { s.ld, s.err = testLoader(t).Load(context.Background(), path) })
	return s
}

// segmentWith returns the first segment whose text contains s.
func segmentWith(t *testing.T, ld *Loaded, s string) int {
	t.Helper()
	for i, seg := range ld.Segments {
		if strings.Contains(seg.Text, s) {
			return i
		}
	}
	t.Fatalf("no segment contains %q", s)
	return -1
}

func TestRealPDFs(t *testing.T) {
	tests := []struct {
		file     string
		title    string
		pages    int
		contains []string
		// headings and the page each must be found on
		headings map[string]int
	}{
		{
			file:  "alce-gao2023-citations.pdf",
			title: "Enabling Large Language Models to Generate Text with Citations", pages: 23,
			// "fi"/"fl" ligatures come out as letters; hyphenated line
			// ends are joined ("hal-lucination").
			contains: []string{"first", "find", "fluency", "prone to hallucination", "verifiability"},
			headings: map[string]int{"1 Introduction": 1, "2 Task Setup and Datasets": 2, "3.3 Citation Quality": 4, "7 Related Work": 10, "8 Conclusion": 10, "A Generating Claims for ELI5": 14, "H Examples": 16, "Abstract": 1, "Acknowledgments": 11, "References": 11},
		},
		{
			file:  "elegantpaper-cn.pdf",
			title: "ElegantPaper: 一个优美的 LATEX 工作论文模板", pages: 5,
			contains: []string{"本文为 ElegantPaper 的说明文档（中文）。", "摘 要"},
			headings: map[string]int{"1 模板介绍": 1, "1.1 全局选项": 1, "1.4 列表环境": 2, "2 常见问题 FAQ": 4, "3 示例": 5, "摘 要": 1, "参考文献": 5},
		},
		{
			file:  "elegantpaper-en.pdf",
			title: "ElegantPaper: An Elegant LATEX Template for Working Papers", pages: 5,
			contains: []string{"Abstract"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := sharedPDF(t, tt.file)
			ld := load(t, path)
			d := ld.Document
			if d.Title != tt.title || d.Pages != tt.pages || d.Format != store.FormatPDF {
				t.Errorf("title %q pages %d format %s; want %q %d pdf", d.Title, d.Pages, d.Format, tt.title, tt.pages)
			}
			for _, c := range tt.contains {
				if !strings.Contains(ld.Text, c) {
					t.Errorf("text lacks %q", c)
				}
			}
			if strings.ContainsAny(ld.Text, "\ufb00\ufb01\ufb02\ufb03\ufb04\x02\r") {
				t.Errorf("text has ligature code points or control characters")
			}
			p, err := testLoader(t).loadPDF(context.Background(), path, mustRead(path))
			if err != nil {
				t.Fatal(err)
			}
			checkSections(t, ld.Segments, p.sections)
			for h, page := range tt.headings {
				i := slices.IndexFunc(ld.Segments, func(s store.Segment) bool {
					return strings.HasPrefix(s.Text, h+"\n") || len(s.Section) == 1 && s.Section[0] == h && abstractHeadings[strings.ToLower(h)]
				})
				if i < 0 {
					t.Errorf("no segment starts with heading %q", h)
					continue
				}
				s := ld.Segments[i]
				if !strings.HasPrefix(s.Text, h) && !abstractHeadings[strings.ToLower(h)] || s.Section[len(s.Section)-1] != h {
					t.Errorf("heading %q: segment starts %q, section %q", h, s.Text[:min(30, len(s.Text))], s.Section)
				}
				if s.PageStart != page {
					t.Errorf("heading %q on page %d, want %d", h, s.PageStart, page)
				}
			}
			for i, s := range ld.Segments {
				if s.PageEnd-s.PageStart > 1 {
					t.Errorf("segment %d spans pages %d-%d", i, s.PageStart, s.PageEnd)
				}
			}
		})
	}
}

// The page a segment names is the page its text is on (phrases on known
// pages of the ALCE paper).
func TestPDFPageNumbers(t *testing.T) {
	ld := loadShared(t, "alce-gao2023-citations.pdf")
	for phrase, page := range map[string]int{
		"Enabling Large Language Models":    1,
		"Our task is formalized as follows": 2,
		"Table 7 compares different":        8,
	} {
		s := ld.Segments[segmentWith(t, ld, phrase)]
		off := s.Start + strings.Index(s.Text, phrase)
		if got := pageAt(ld.PageStarts, off); got != page || s.PageStart > page || s.PageEnd < page {
			t.Errorf("%q: page %d (segment %d-%d), want %d", phrase, got, s.PageStart, s.PageEnd, page)
		}
	}
}

func TestVerticalJapaneseIsNoText(t *testing.T) {
	path := sharedPDF(t, "jo-miyazawa-ja-vertical.pdf")
	_, err := testLoader(t).Load(context.Background(), path)
	var se *SkipError
	if !errors.As(err, &se) || !strings.HasPrefix(se.Reason, "no extractable text in this PDF") {
		t.Fatalf("Load = %v; want a no-extractable-text SkipError", err)
	}
}

func TestPDFConcurrent(t *testing.T) {
	files := []string{filepath.Join("testdata", "tiny.pdf"), filepath.Join("testdata", "encrypted.pdf"), filepath.Join("testdata", "notes.md")}
	if _, err := os.Stat(filepath.Join(sharedPDFDir, "elegantpaper-en.pdf")); err == nil {
		files = append(files, filepath.Join(sharedPDFDir, "elegantpaper-en.pdf"), filepath.Join(sharedPDFDir, "elegantpaper-cn.pdf"))
	}
	want := map[string]string{}
	for _, f := range files {
		if ld, err := testLoader(t).Load(context.Background(), f); err == nil {
			want[f] = ld.Text
		} else {
			want[f] = err.Error()
		}
	}
	var wg sync.WaitGroup
	for range 3 {
		for _, f := range files {
			wg.Go(func() {
				ld, err := testLoader(t).Load(context.Background(), f)
				got := ""
				if err == nil {
					got = ld.Text
				} else {
					got = err.Error()
				}
				if got != want[f] {
					t.Errorf("%s: concurrent load differs", f)
				}
			})
		}
	}
	wg.Wait()
}

func TestLoaderClose(t *testing.T) {
	l := NewLoader("")
	// Text files need no engine; Close before any PDF is cheap.
	if _, err := l.Load(context.Background(), filepath.Join("testdata", "plain.txt")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	_, err := l.Load(context.Background(), filepath.Join("testdata", "tiny.pdf"))
	var se *SkipError
	if err == nil || errors.As(err, &se) || !errors.Is(err, pdf.ErrUnavailable) {
		t.Errorf("Load after Close = %v; want an engine error, not a skip", err)
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range []string{"tiny.pdf", "notes.md"} {
		if _, err := testLoader(t).Load(ctx, filepath.Join("testdata", f)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Load with a cancelled context = %v", f, err)
		}
	}
}

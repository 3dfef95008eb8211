package main

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rooms of docs/design.md and the arrows between them, checked on the
// imports of every package's non-test files: arrows point down the list
// main → cli → cli/*, ui, headless/mcp → headless, ui/* → rag → rag/* → store/*
// (the backends, the analyser, the conformance suite) → store (the
// contract); packages of one room (rag/*, store/*, ui/*) may use each other;
// everyone may use citations and internal/*; citations uses the standard
// library only, internal/* and rag/ingest/tokens (the tokenizer, under
// rag/ingest) nothing of ibid's but internal/*; and the test helpers are
// imported by tests (and other test helpers) only.

const module = "github.com/ibid-dev/ibid"

// level is how far down the list a package is (rel is its path in the
// module, "" for main); shared packages (citations, internal/*) have none.
func level(rel string) (n int, room string, shared bool) {
	switch {
	case rel == "citations" || strings.HasPrefix(rel, "internal/"):
		return 0, "", true
	case rel == "":
		return 0, "", false
	case rel == "cli":
		return 1, "", false
	case rel == "ui" || rel == "headless/mcp":
		return 2, "", false
	case strings.HasPrefix(rel, "cli/"):
		return 2, "cli", false
	case rel == "headless":
		return 3, "", false
	case strings.HasPrefix(rel, "ui/"):
		return 3, "ui", false
	case rel == "rag":
		return 4, "", false
	case strings.HasPrefix(rel, "rag/"):
		return 5, "rag", false
	case strings.HasPrefix(rel, "store/"):
		return 6, "store", false
	case rel == "store":
		return 7, "", false
	}
	return -1, "", false
}

// testHelpers are imported by tests only.
var testHelpers = []string{
	"rag/llmtest", "rag/ragtest", "rag/bib/zoterotest", "rag/ingest/pdf/pdftest",
	"ui/termimage/termimagetest", "store/storetest",
	"internal/shareddata", "internal/figures", "internal/unprivileged", "internal/argstub", "internal/fifotest",
	"internal/testmain",
}

func TestRoomsArrowsPointDown(t *testing.T) {
	pkgs := modulePackages(t)
	if len(pkgs) < 30 || pkgs["cli"] == nil {
		t.Fatalf("found %d packages; the walk is wrong", len(pkgs))
	}
	for rel, imports := range pkgs {
		for _, p := range arrows(rel, imports) {
			t.Error(p)
		}
	}
}

// The check itself catches each kind of wrong arrow.
func TestRoomsArrowsCatch(t *testing.T) {
	for _, c := range []struct {
		rel, imp string
		bad      bool
	}{
		{"cli", "ui", false},
		{"cli", "cli/eval", false},
		{"cli/eval", "rag/library", false},
		{"cli/eval", "cli", true},
		{"cli/eval", "ui", true},
		{"ui", "headless", false},
		{"rag/library", "rag/ingest", false},
		{"rag/ingest", "rag/ingest/tokens", false},
		{"rag/enrich", "rag/ingest/tokens", false},
		{"rag/ingest/tokens", "rag/ingest", true},
		{"rag/ingest/tokens", "store/keyword", true},
		{"ui/viewer", "ui/render", false},
		{"store/embedded", "internal/xdg", false},
		{"store/embedded", "store", false},
		{"rag/extractive", "store/keyword", false},
		{"rag", "citations", false},
		{"store/embedded/storebench", "internal/synthtext", false},
		{"store", "rag", true},
		{"store", "store/embedded", true},
		{"store/embedded", "rag/ingest", true},
		{"rag/extractive", "rag", true},
		{"ui/render", "ui", true},
		{"headless", "headless/mcp", true},
		{"headless", "ui", true},
		{"rag", "cli", true},
		{"citations", "store", true},
		{"citations", "github.com/rivo/uniseg", true},
		{"internal/xdg", "store", true},
		{"rag", "rag/llmtest", true},
		{"store/storetest", "internal/figures", false},
		{"store/embedded", "internal/figures", true},
		{"newroom", "store", true},
	} {
		imp := c.imp
		if !strings.Contains(imp, ".") {
			imp = module + "/" + imp
		}
		if got := len(arrows(c.rel, []string{imp})) > 0; got != c.bad {
			t.Errorf("%s → %s: wrong %v, want %v", c.rel, c.imp, got, c.bad)
		}
	}
}

// arrows returns what is wrong with the imports of package rel.
func arrows(rel string, imports []string) []string {
	from, fromRoom, fromShared := level(rel)
	if from < 0 {
		return []string{"package " + rel + " has no room in docs/design.md: give it one there and in rooms_test.go"}
	}
	var bad []string
	for _, imp := range imports {
		if !strings.HasPrefix(imp, module+"/") {
			if rel == "citations" && strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
				bad = append(bad, "citations imports "+imp+": it uses the standard library only")
			}
			continue
		}
		to := strings.TrimPrefix(imp, module+"/")
		if slices.Contains(testHelpers, to) && !slices.Contains(testHelpers, rel) {
			bad = append(bad, rel+" imports the test helper "+to)
		}
		n, room, shared := level(to)
		switch {
		case rel == "citations":
			bad = append(bad, "citations imports "+to+": it uses the standard library only")
		case fromShared && !strings.HasPrefix(to, "internal/"):
			bad = append(bad, rel+" imports "+to+": internal packages belong to no room and use none")
		case rel == "rag/ingest/tokens" && !shared:
			bad = append(bad, "rag/ingest/tokens imports "+to+": the tokenizer uses nothing of ibid's but internal/*")
		case shared, n > from, n == from && room != "" && room == fromRoom:
		default:
			bad = append(bad, rel+" imports "+to+": an arrow pointing up (or across rooms)")
		}
	}
	return bad
}

// modulePackages maps each package of the module (by its path inside it)
// to the imports of its non-test files.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		p, err := build.Default.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = ""
		}
		pkgs[rel] = p.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// Every package with tests ends its test binary through internal/testmain
// (a TestMain calling testmain.Main, or testmain.Run and testmain.Exit),
// so that none waits the race detector's second at exit.
func TestEveryTestBinaryEndsThroughTestmain(t *testing.T) {
	n := 0
	for rel := range modulePackages(t) {
		dir := rel
		if dir == "" {
			dir = "."
		}
		tests, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(tests) == 0 {
			continue
		}
		n++
		ends := false
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if s := string(b); strings.Contains(s, "func TestMain(") &&
				(strings.Contains(s, "testmain.Main(m)") || strings.Contains(s, "testmain.Exit(")) {
				ends = true
			}
		}
		if !ends && rel != "internal/testmain" {
			t.Errorf("%s: no TestMain through testmain (add main_test.go: func TestMain(m *testing.M) { testmain.Main(m) })", dir)
		}
	}
	if n < 30 {
		t.Fatalf("found %d packages with tests; the walk is wrong", n)
	}
}

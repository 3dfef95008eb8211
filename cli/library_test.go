package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestCmdLibraryFlow(t *testing.T) {
	docs := cmdEnv(t)

	code, out, errs := runCmd(t, "ls")
	if code != 0 || !strings.Contains(out, "is empty") || !strings.Contains(out, "ibid add") {
		t.Fatalf("ls on nothing: %d %q %q", code, out, errs)
	}

	code, out, errs = runCmd(t, "add", docs)
	if code != 0 {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"2 added", "0 unchanged", "0 replaced", "1 skipped", "binary.dat"} {
		if !strings.Contains(out, want) {
			t.Errorf("add output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "[3/3]") || !strings.Contains(errs, "tides.md: new, 1 segment") {
		t.Errorf("add progress (not a terminal) lacks plain lines:\n%s", errs)
	}

	code, out, errs = runCmd(t, "add", docs)
	if code != 0 || !strings.Contains(out, "0 added, 2 unchanged") || !strings.Contains(errs, "tides.md: unchanged, 1 segment") {
		t.Errorf("re-add: %d\n%s\n%s", code, out, errs)
	}

	code, out, _ = runCmd(t, "ls")
	if code != 0 || !strings.Contains(out, "Tides") || !strings.Contains(out, "bread") || !strings.Contains(out, "markdown") {
		t.Fatalf("ls: %d\n%s", code, out)
	}
	id := regexp.MustCompile(`(?m)^([0-9a-f]{12}) +Tides`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("ls shows no id for Tides:\n%s", out)
	}

	code, out, _ = runCmd(t, "search", "-k", "1", "why does sourdough rise")
	if code != 0 || !strings.Contains(out, "Sourdough bread rises") || !strings.Contains(out, "1. ") {
		t.Fatalf("search: %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "search", "moon", "tides", "-k", "2") // flags after the query
	if code != 0 || !strings.Contains(out, "spring tides") {
		t.Fatalf("search with flags last: %d\n%s", code, out)
	}

	code, out, _ = runCmd(t, "rm", id[1][:8])
	if code != 0 || !strings.Contains(out, "removed "+id[1]) || !strings.Contains(out, "1 documents") {
		t.Fatalf("rm: %d\n%s", code, out)
	}
	code, _, errs = runCmd(t, "rm", "nonexistent")
	if code == 0 || !strings.Contains(errs, "ibid ls") {
		t.Fatalf("rm of nothing: %d %q", code, errs)
	}

	code, out, _ = runCmd(t, "rm", "--all")
	if code != 0 || !strings.Contains(out, `removed library "default"`) {
		t.Fatalf("rm --all: %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "ls")
	if code != 0 || !strings.Contains(out, "is empty") {
		t.Fatalf("ls after rm --all: %d\n%s", code, out)
	}
}

func TestCmdAddNothing(t *testing.T) {
	docs := cmdEnv(t)
	code, _, errs := runCmd(t, "add", filepath.Join(docs, "no-such-file.pdf"))
	if code == 0 || !strings.Contains(errs, "nothing could be added") {
		t.Fatalf("add of a missing path: %d %q", code, errs)
	}
	code, _, errs = runCmd(t, "add")
	if code == 0 || !strings.Contains(errs, "give the files or folders to add") {
		t.Fatalf("add with no paths: %d %q", code, errs)
	}
}

func TestCmdLibraryNamed(t *testing.T) {
	docs := cmdEnv(t)
	code, out, errs := runCmd(t, "add", "--library", "thesis", filepath.Join(docs, "tides.md"))
	if code != 0 || !strings.Contains(out, `library "thesis": 1 added`) {
		t.Fatalf("add --library: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "ibid", "libraries", "thesis")); err != nil {
		t.Fatalf("library folder: %v", err)
	}
	_, out, _ = runCmd(t, "ls", "--library", "thesis")
	if !strings.Contains(out, "Tides") {
		t.Fatalf("ls --library thesis:\n%s", out)
	}
	_, out, _ = runCmd(t, "ls")
	if !strings.Contains(out, "is empty") {
		t.Fatalf("default library not empty:\n%s", out)
	}
	code, _, errs = runCmd(t, "ls", "--library", "../escape")
	if code == 0 || !strings.Contains(errs, "not a plain name") {
		t.Fatalf("bad library name: %d %q", code, errs)
	}
}

func TestCmdLibraryHelp(t *testing.T) {
	cmdEnv(t)
	for _, c := range []string{"add", "ls", "rm", "search"} {
		for _, h := range []string{"-h", "--help"} {
			code, out, errs := runCmd(t, c, h)
			if code != 0 || !strings.Contains(out, "ibid "+c) || !strings.Contains(strings.ToLower(out), "example") ||
				!strings.Contains(out, "--library") || !strings.Contains(out, "--store") || errs != "" {
				t.Errorf("%s %s: %d\n%s\n%s", c, h, code, out, errs)
			}
		}
	}
	// Flags a command ignores are not listed for it.
	for _, c := range []string{"ls", "rm"} {
		_, out, _ := runCmd(t, c, "--help")
		if _, flags, _ := strings.Cut(out, "FLAGS"); strings.Contains(flags, "--embed-model") || strings.Contains(flags, "--base-url") {
			t.Errorf("%s --help lists embedder flags it ignores:\n%s", c, out)
		}
	}
}

// TestFlagsAfterArguments: flags may follow the arguments, and "--" ends
// the flags.
func TestFlagsAfterArguments(t *testing.T) {
	docs := cmdEnv(t)
	code, out, errs := runCmd(t, "add", filepath.Join(docs, "tides.md"), "--library", "x", filepath.Join(docs, "bread.txt"))
	if code != 0 || !strings.Contains(out, `library "x": 2 added`) {
		t.Fatalf("add PATH --library x PATH: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCmd(t, "search", "sourdough", "--library=x", "-k", "1")
	if code != 0 || !strings.Contains(out, "Sourdough") || strings.Contains(out, "2. ") {
		t.Fatalf("search QUERY --library=x -k 1: %d\n%s", code, out)
	}
	code, out, errs = runCmd(t, "search", "--library", "x", "--", "-k")
	if code != 0 || strings.Contains(errs, "flag") {
		t.Fatalf("search -- -k (a query, not a flag): %d\n%s\n%s", code, out, errs)
	}
	// A flag given before the command's name reaches it too.
	code, out, _ = runCmd(t, "--library", "x", "ls")
	if code != 0 || !strings.Contains(out, `library "x": 2 documents`) {
		t.Fatalf("--library x ls: %d\n%s", code, out)
	}
}

func TestCmdRemoteEmbedder(t *testing.T) {
	docs := cmdEnv(t)
	srv, calls := fakeEmbeddings(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")

	code, out, errs := runCmd(t, "add", "--embed-model", "fake-embed", docs)
	if code != 0 || !strings.Contains(out, "2 added") || calls.Load() == 0 {
		t.Fatalf("add with --embed-model: %d, %d requests\n%s\n%s", code, calls.Load(), out, errs)
	}
	_, out, _ = runCmd(t, "ls")
	if !strings.Contains(out, "built with openai:fake-embed") {
		t.Fatalf("ls does not say which embedder built the library:\n%s", out)
	}
	code, out, _ = runCmd(t, "search", "--embed-model", "fake-embed", "sourdough yeast")
	if code != 0 || !strings.Contains(out, "Sourdough") {
		t.Fatalf("search with the embedder: %d\n%s", code, out)
	}

	// Without it: refused, saying how to run it or rebuild.
	code, _, errs = runCmd(t, "search", "sourdough")
	for _, want := range []string{"openai:fake-embed", "--embed-model fake-embed", "ibid rm --library default --all"} {
		if code == 0 || !strings.Contains(errs, want) {
			t.Errorf("search without the embedder: %d, message lacks %q: %s", code, want, errs)
		}
	}
	code, _, errs = runCmd(t, "add", docs)
	if code == 0 || !strings.Contains(errs, "--embed-model fake-embed") {
		t.Errorf("add without the embedder: %d %s", code, errs)
	}
	// Listing needs no embedder, and ignores another one.
	code, out, _ = runCmd(t, "ls", "--embed-model", "other-model")
	if code != 0 || !strings.Contains(out, "2 documents") {
		t.Errorf("ls with another --embed-model: %d\n%s", code, out)
	}

	// Rebuild with the local embedder.
	if code, out, _ = runCmd(t, "rm", "--all"); code != 0 {
		t.Fatalf("rm --all: %d\n%s", code, out)
	}
	before := calls.Load()
	code, out, _ = runCmd(t, "add", docs)
	if code != 0 || !strings.Contains(out, "2 added") || calls.Load() != before {
		t.Fatalf("rebuilt with the local embedder: %d, %d more requests\n%s", code, calls.Load()-before, out)
	}
	_, out, _ = runCmd(t, "ls")
	if strings.Contains(out, "openai:") {
		t.Fatalf("rebuilt library still names the remote embedder:\n%s", out)
	}
}

func TestCmdEmbedderDown(t *testing.T) {
	docs := cmdEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"model \"m\" not found, try pulling it first","type":"api_error"}}`)
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	code, _, errs := runCmd(t, "add", "--embed-model", "m", docs)
	if code == 0 || !strings.Contains(errs, "couldn't reach the embedder openai:m") || !strings.Contains(errs, "not found") {
		t.Fatalf("add with the embedder down: %d %s", code, errs)
	}
}

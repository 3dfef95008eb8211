package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag"
	"github.com/spf13/pflag"
)

func TestRootHelp(t *testing.T) {
	cmdEnv(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, errs := runCmd(t, args...)
		if code != exitOK || errs != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
		}
		// fang's layout: sections with their titles, every command listed.
		for _, want := range []string{"USAGE", "EXAMPLES", "COMMANDS", "FLAGS", "ibid [command] [PATH...]",
			"add", "ask", "chat with your own documents", "completion", "eval", "ls", "rm", "search", "serve", "--version"} {
			if !strings.Contains(strings.ToLower(out), strings.ToLower(want)) {
				t.Errorf("%q lacks %q:\n%s", args, want, out)
			}
		}
	}
}

func TestAskHelp(t *testing.T) {
	cmdEnv(t)
	code, out, _ := runCmd(t, "ask", "--help")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"ibid ask QUESTION", "--format", "--cite-format", "--model", "--base-url",
		"--first-byte-timeout", "--idle-timeout", "--library", "--store", "ndjson"} {
		if !strings.Contains(out, want) {
			t.Errorf("ask --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--numbering") || strings.Contains(out, "--addr") {
		t.Errorf("ask --help lists other commands' flags:\n%s", out)
	}
}

// TestBadFlag: an unknown flag or a bad value fails with status 1 and a
// message that names the flag; on a terminal fang styles it, plain it is
// one line that says where the flags are listed.
func TestBadFlag(t *testing.T) {
	cmdEnv(t)
	for _, args := range [][]string{{"ls", "--nope"}, {"search", "-k", "many", "q"}, {"--nope"}} {
		code, out, errs := runCmd(t, args...)
		if code != exitError || out != "" || !strings.HasPrefix(errs, "ibid: ") || !strings.Contains(errs, "--help lists the flags") ||
			strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	// A long flag with one dash, as Go's flag package took it.
	if code, _, errs := runCmd(t, "ls", "-library", "x"); code != exitError || !strings.Contains(errs, "write --library, with two dashes") {
		t.Errorf("-library: exit %d, stderr %q", code, errs)
	}
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"ls", "--nope"},
		Env{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: os.Getenv, styleErrors: true})
	errs := errb.String()
	if code != exitError || !strings.Contains(errs, "ERROR") || !strings.Contains(errs, "Unknown flag: --nope") ||
		!strings.Contains(errs, "Try --help for usage") {
		t.Errorf("styled: exit %d, stderr %q", code, errs)
	}
}

func TestCompletion(t *testing.T) {
	cmdEnv(t)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, out, errs := runCmd(t, "completion", shell)
		if code != exitOK || !strings.Contains(out, "ibid") || len(out) < 500 {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, code, len(out), errs)
		}
	}
	// The shell asks ibid itself for values: the libraries in the store,
	// and the fixed choices.
	docs := cmdEnv(t)
	if code, out, errs := runCmd(t, "add", "--library", "thesis", filepath.Join(docs, "tides.md")); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	_, out, _ := runCmd(t, "__complete", "search", "--library", "")
	if !strings.Contains(out, "thesis\n") {
		t.Errorf("library names not completed:\n%s", out)
	}
	_, out, _ = runCmd(t, "__complete", "ask", "--cite-format", "")
	if !strings.Contains(out, "inline\njson\nsections\n") {
		t.Errorf("cite formats not completed:\n%s", out)
	}
}

func TestVersion(t *testing.T) {
	for _, flag := range []string{"--version", "-v"} {
		code, out, errs := runCmd(t, flag)
		if code != exitOK || !strings.HasPrefix(out, "ibid version ") || errs != "" {
			t.Errorf("%s: exit %d, %q, %q", flag, code, out, errs)
		}
	}
}

func TestCancelledExitStatus(t *testing.T) {
	docs := cmdEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := Run(ctx, []string{"add", docs}, Env{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: os.Getenv})
	if code != exitCancelled || !strings.Contains(errb.String(), "ibid: cancelled") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestConfigFromEnv: the environment Run is given is the one read (not the
// process's), once, into the flags' defaults, which flags then overwrite.
func TestConfigFromEnv(t *testing.T) {
	docs := cmdEnv(t)
	store := t.TempDir()
	env := map[string]string{"IBID_LIBRARY": "from-env", "IBID_STORE": store, "XDG_DATA_HOME": "/nonexistent"}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), args, Env{In: strings.NewReader(""), Out: &out, Err: &errb,
			Getenv: func(k string) string { return env[k] }})
		return code, out.String(), errb.String()
	}
	if code, out, errs := run("add", filepath.Join(docs, "tides.md")); code != 0 || !strings.Contains(out, `library "from-env": 1 added`) {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(store, "from-env", "manifest.json")); err != nil {
		t.Errorf("library not in IBID_STORE: %v", err)
	}
	// A library named that does not exist is reported with the ones there
	// are and how to create it, not opened empty.
	if code, _, errs := run("ls", "--library", "other"); code == 0 || !strings.Contains(errs, `no such library "other"`) ||
		!strings.Contains(errs, "from-env") || !strings.Contains(errs, "ibid add --library other") {
		t.Errorf("--library over IBID_LIBRARY: %d %q", code, errs)
	}
	// The process's own environment (cmdEnv's XDG_DATA_HOME) saw nothing.
	if code, _, errs := runCmd(t, "ls", "--library", "from-env"); code == 0 || !strings.Contains(errs, "there are no libraries yet") {
		t.Errorf("the process's data folder has the library: %d %s", code, errs)
	}

	c := loadConfig(func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://h/v1", "OPENAI_API_KEY": "k", "IBID_MODEL": "m",
			"IBID_CITE_FORMAT": "json", "IBID_NO_OLLAMA": "1", "IBID_NUMBERING": "conversation", "IBID_TOKEN": "t",
			"IBID_EMBED_MODEL": "e", "XDG_DATA_HOME": "/d", "XDG_CACHE_HOME": "relative"}[k]
	})
	if c.BaseURL != "http://h/v1" || c.APIKey != "k" || c.Model != "m" || c.CiteFormat != citations.ModeJSON || !c.NoOllama ||
		c.Numbering != rag.NumberingConversation || c.Token != "t" || c.EmbedModel != "e" || c.Library != "default" {
		t.Errorf("loadConfig: %+v", c)
	}

	// A cite format or numbering the environment misspells is an error
	// that names the variable, unless a flag sets it again.
	bad := loadConfig(func(k string) string {
		return map[string]string{"IBID_CITE_FORMAT": "footnotes", "IBID_NUMBERING": "chapter"}[k]
	})
	if err := bad.check(); err == nil || !strings.Contains(err.Error(), `IBID_CITE_FORMAT: unknown citation format "footnotes"`) {
		t.Errorf("check with a bad IBID_CITE_FORMAT: %v", err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	bad.modelFlags(fs)
	bad.numberingFlag(fs)
	if err := fs.Parse([]string{"--cite-format", "sections", "--numbering", "conversation"}); err != nil {
		t.Fatal(err)
	}
	if err := bad.check(); err != nil || bad.CiteFormat != citations.ModeSections || bad.Numbering != rag.NumberingConversation {
		t.Errorf("flags over a bad environment: %v, %v, %v", err, bad.CiteFormat, bad.Numbering)
	}
	if err := fs.Parse([]string{"--cite-format", "footnote"}); err == nil || !strings.Contains(err.Error(), "use inline, json or sections") {
		t.Errorf("--cite-format footnote: %v", err)
	}
}

func TestStoreLocation(t *testing.T) {
	docs := cmdEnv(t)
	dir := filepath.Join(t.TempDir(), "libs")
	code, out, errs := runCmd(t, "add", "--store", dir, "--library", "a", filepath.Join(docs, "bread.txt"))
	if code != 0 || !strings.Contains(out, "1 added") {
		t.Fatalf("add --store: %d %q %q", code, out, errs)
	}
	if _, out, _ := runCmd(t, "ls", "--store", dir, "--library", "a"); !strings.Contains(out, "bread") {
		t.Errorf("ls --store:\n%s", out)
	}
	if code, out, _ := runCmd(t, "rm", "--store", dir, "--library", "a", "--all"); code != 0 || !strings.Contains(out, `removed library "a"`) {
		t.Errorf("rm --store --all: %d %q", code, out)
	}
	code, _, errs = runCmd(t, "ls", "--store", "nosuch://somewhere/ibid")
	if code != exitError || !strings.Contains(errs, "nosuch") {
		t.Errorf("a store of an unknown kind: %d %q", code, errs)
	}
}

// TestEmbedderBaseURL: --base-url reaches the embedder, not only the model.
func TestEmbedderBaseURL(t *testing.T) {
	docs := cmdEnv(t)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // nothing listens there
	srv, calls := fakeEmbeddings(t)
	code, out, errs := runCmd(t, "add", "--embed-model", "fake-embed", "--base-url", srv.URL+"/v1", docs)
	if code != 0 || calls.Load() == 0 || !strings.Contains(out, "2 added") {
		t.Fatalf("add --base-url: %d, %d requests\n%s\n%s", code, calls.Load(), out, errs)
	}
	before := calls.Load()
	code, out, _ = runCmd(t, "search", "--embed-model", "fake-embed", "--base-url", srv.URL+"/v1", "sourdough")
	if code != 0 || calls.Load() == before || !strings.Contains(out, "Sourdough") {
		t.Errorf("search --base-url: %d, %d requests\n%s", code, calls.Load()-before, out)
	}
}

func TestSearchBoundsK(t *testing.T) {
	cmdEnv(t)
	for _, k := range []string{"0", "-1", "1001", "1000000000"} {
		code, _, errs := runCmd(t, "search", "-k", k, "tides")
		if code != exitError || !strings.Contains(errs, "from 1 to 1000") {
			t.Errorf("-k %s: %d %q", k, code, errs)
		}
	}
	if code, out, errs := runCmd(t, "search", "-k", "1000", "tides"); code != 0 || !strings.Contains(out, "is empty") {
		t.Errorf("-k 1000: %d %q %q", code, out, errs)
	}
}

func TestMaxFileSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1048576", 1 << 20}, {"200MB", 200e6}, {"200mb", 200e6}, {"1.5GB", 1.5e9},
		{"2GiB", 2 << 30}, {"512KiB", 512 << 10}, {"10k", 10e3}, {" 3 MB ", 3e6}, {"12B", 12},
	} {
		got, err := parseByteSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "MB", "-1MB", "lots", "NaN", "inf", "1e30GB", "2TB"} {
		if n, err := parseByteSize(bad); err == nil {
			t.Errorf("parseByteSize(%q) = %d, want an error", bad, n)
		}
	}
	docs := cmdEnv(t)
	code, _, errs := runCmd(t, "add", "--max-file-size", "huge", docs)
	if code != exitError || !strings.Contains(errs, "200MB") {
		t.Errorf("bad --max-file-size: %d %q", code, errs)
	}
	if code, _, errs := runCmd(t, "add", "--max-file-size", "50MB", docs); code != 0 {
		t.Errorf("--max-file-size 50MB: %d %q", code, errs)
	}
}

func TestTimeoutFlags(t *testing.T) {
	var out, errb bytes.Buffer
	cfg := loadConfig(func(string) string { return "" })
	root := newRoot(cfg)
	root.SetArgs([]string{"ask", "--first-byte-timeout", "90s", "--idle-timeout=5s", "--help"})
	root.SetOut(&out)
	root.SetErr(&errb)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if cfg.FirstByteTimeout != 90*time.Second || cfg.IdleTimeout != 5*time.Second {
		t.Errorf("timeouts %v, %v", cfg.FirstByteTimeout, cfg.IdleTimeout)
	}
	if d := loadConfig(func(string) string { return "" }); d.FirstByteTimeout != defaultFirstByteTimeout || d.IdleTimeout != defaultIdleTimeout {
		t.Errorf("defaults %v, %v", d.FirstByteTimeout, d.IdleTimeout)
	}
	askEnv(t)
	for _, f := range []string{"--first-byte-timeout=-1s", "--idle-timeout=-1s"} {
		code, _, errs := runCmd(t, "ask", f, "tides?")
		if code != exitError || !strings.Contains(errs, "or 0 to wait for ever") {
			t.Errorf("%s: %d %q", f, code, errs)
		}
	}
}

// TestManPage: fang's hidden man command prints a roff page (to the
// process's stdout, which the test borrows).
func TestManPage(t *testing.T) {
	cmdEnv(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "ibid.1"))
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = f
	code, _, errs := runCmd(t, "man")
	os.Stdout = stdout
	f.Close()
	page, _ := os.ReadFile(f.Name())
	if code != exitOK || !bytes.HasPrefix(page, []byte(".TH IBID 1")) || !bytes.Contains(page, []byte("--first-byte-timeout")) ||
		!bytes.Contains(page, []byte("search")) {
		t.Errorf("man: exit %d, stderr %q, page:\n%.600s", code, errs, page)
	}
}

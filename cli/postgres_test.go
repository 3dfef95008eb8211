package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommandsOnPostgres runs add, ls --libraries, search, ask and rm
// --all against a PostgreSQL library (IBID_TEST_POSTGRES; skipped
// without it): every command works on the shared store unchanged.
func TestCommandsOnPostgres(t *testing.T) {
	url := os.Getenv("IBID_TEST_POSTGRES")
	if url == "" {
		t.Skip("IBID_TEST_POSTGRES not set (docs/postgres.md says how to start a test server)")
	}
	docs := cmdEnv(t)
	lib := fmt.Sprintf("cli-test-%d", time.Now().UnixNano())
	run := func(args ...string) (string, string) {
		t.Helper()
		code, out, errs := runCmd(t, append(args, "--store", url, "--library", lib)...)
		if code != 0 {
			t.Fatalf("ibid %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errs)
		}
		return out, errs
	}
	defer runCmd(t, "rm", "--all", "--store", url, "--library", lib)
	if out, _ := run("add", filepath.Join(docs, "tides.md"), filepath.Join(docs, "bread.txt")); !strings.Contains(out, "2 added") {
		t.Fatalf("add: %s", out)
	}
	if out, _ := run("add", filepath.Join(docs, "tides.md")); !strings.Contains(out, "1 unchanged") {
		t.Errorf("adding an unchanged file again: %s", out)
	}
	if code, out, _ := runCmd(t, "ls", "--libraries", "--store", url); code != 0 || !strings.Contains(out, lib) {
		t.Errorf("ls --libraries: %d %s", code, out)
	}
	if out, _ := run("search", "sourdough yeast"); !strings.Contains(out, "Sourdough") {
		t.Errorf("search: %s", out)
	}
	if out, _ := run("ask", "Why does sourdough bread rise?"); !strings.Contains(out, "wild yeast") || !strings.Contains(out, "[1]") {
		t.Errorf("ask: %s", out)
	}
	if out, _ := run("rm", "--all"); !strings.Contains(out, "removed library") {
		t.Errorf("rm --all: %s", out)
	}
}

// TestEvalOnPostgres: ibid eval --store postgres://… gives the same
// figures as in memory (on a corpus small enough for exact dense search),
// and drops its temporary library.
func TestEvalOnPostgres(t *testing.T) {
	url := os.Getenv("IBID_TEST_POSTGRES")
	if url == "" {
		t.Skip("IBID_TEST_POSTGRES not set (docs/postgres.md says how to start a test server)")
	}
	cmdEnv(t)
	dir := filepath.Join("..", "rag", "retrieve", "testdata", "tinybeir")
	code, mem, errs := runCmd(t, "eval", dir)
	if code != 0 {
		t.Fatalf("eval in memory: %d %s", code, errs)
	}
	code, pg, errs := runCmd(t, "eval", "--store", url, dir)
	if code != 0 || pg != mem {
		t.Fatalf("eval --store postgres: %d\n%s\nwant\n%s\n%s", code, pg, mem, errs)
	}
	if _, out, _ := runCmd(t, "ls", "--libraries", "--store", url); strings.Contains(out, "ibid-eval-") {
		t.Errorf("eval left its library behind:\n%s", out)
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncCommand: ibid add follows the folder; ibid sync adds a new
// file, replaces a changed one and removes a deleted one, in one summary
// line; --list shows the folder; a deleted folder is held with how to
// prune and the exit status says so; --prune removes; --forget stops
// following; ibid rm of a followed folder forgets it.
func TestSyncCommand(t *testing.T) {
	docs := cmdEnv(t)
	if code, _, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s", code, errs)
	}
	code, out, errs := runCmd(t, "sync")
	if code != 0 || !strings.Contains(out, `library "default": 0 added, 0 removed, 2 unchanged, 1 skipped (1 followed path)`) {
		t.Fatalf("sync of an unchanged folder: %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out, "binary.dat") {
		t.Fatalf("a file skipped before is listed again: %s", out)
	}

	os.WriteFile(filepath.Join(docs, "moon.md"), []byte("# Moon\n\nThe Moon is receding from the Earth by about 3.8 cm a year.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "bread.txt"), []byte("Rye bread needs a sour starter; it is denser than wheat bread.\n"), 0o644)
	os.Remove(filepath.Join(docs, "tides.md"))
	code, out, errs = runCmd(t, "sync")
	if code != 0 || strings.Count(out, "\n") != 2 ||
		!strings.HasPrefix(out, `library "default": 1 added, 1 replaced, 1 removed, 0 unchanged, 1 skipped (1 followed path) in `) ||
		!strings.Contains(out, "removed  "+filepath.Join(docs, "tides.md")) {
		t.Fatalf("sync after changes: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := runCmd(t, "search", "receding"); !strings.Contains(out, "moon.md") {
		t.Fatalf("the new file is not found: %s", out)
	}

	code, out, _ = runCmd(t, "sync", "--list")
	if code != 0 || !strings.Contains(out, "  "+docs+" (folder, recursive, since ") {
		t.Fatalf("sync --list: %d %s", code, out)
	}

	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmd(t, "sync")
	if code == 0 || !strings.Contains(errs, docs+" is gone: 2 documents kept (ibid sync --prune removes them") {
		t.Fatalf("sync of a deleted folder: %d\n%s%s", code, out, errs)
	}
	if _, out, _ := runCmd(t, "ls"); !strings.Contains(out, "2 documents") {
		t.Fatalf("the documents of a deleted folder were removed without --prune: %s", out)
	}
	code, out, errs = runCmd(t, "sync", "--prune")
	if code != 0 || !strings.Contains(out, "2 removed") {
		t.Fatalf("sync --prune: %d\n%s%s", code, out, errs)
	}

	code, out, errs = runCmd(t, "sync", "--forget", docs)
	if code != 0 || !strings.Contains(out, "no longer following "+docs) {
		t.Fatalf("sync --forget: %d\n%s%s", code, out, errs)
	}
	if code, out, _ = runCmd(t, "sync"); code != 0 || !strings.Contains(out, "follows no folders yet") {
		t.Fatalf("sync with nothing followed: %d %s", code, out)
	}
	if code, _, errs = runCmd(t, "sync", "--forget", docs); code == 0 || !strings.Contains(errs, "follows none of") {
		t.Fatalf("forgetting what is not followed: %d %s", code, errs)
	}

	// ibid rm of a followed folder forgets it; --no-follow adds without following.
	other := filepath.Join(filepath.Dir(docs), "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "a.md"), []byte("# A\n\nAbout herons.\n"), 0o644)
	runCmd(t, "add", other)
	if code, out, errs = runCmd(t, "rm", other); code != 0 || !strings.Contains(out, "no longer following "+other) {
		t.Fatalf("rm of a followed folder: %d\n%s%s", code, out, errs)
	}
	runCmd(t, "add", "--no-follow", other)
	if _, out, _ = runCmd(t, "sync", "--list"); !strings.Contains(out, "follows no folders yet") {
		t.Fatalf("add --no-follow followed: %s", out)
	}
}

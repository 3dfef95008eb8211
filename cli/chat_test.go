package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestChatFlags(t *testing.T) {
	cmdEnv(t)
	for _, c := range []struct {
		args []string
		want string // in the error, or in the output for --help
	}{
		{[]string{"-h"}, "--resume"},
		{[]string{"--library", "x", "--help"}, "--numbering"},
		{[]string{"--numbering", "page"}, "use answer or conversation"},
		{[]string{"--cite-format", "xml"}, "use inline, json or sections"},
		{[]string{"--idle-timeout", "-5s"}, "--idle-timeout"},
		{[]string{"--first-byte-timeout", "soon"}, "invalid argument"},
		{[]string{}, "needs a terminal"},
		{[]string{"docs/", "--library", "x"}, "needs a terminal"}, // PATHs, then flags
		{[]string{"serach", "tides"}, `did you mean ibid search?`},
		// A word that is no command and no file is not added as a path.
		{[]string{"tidal"}, `"tidal" is neither a command nor a file or folder here; the commands are add, ask,`},
		{[]string{"mcpx", "--library", "x"}, `unknown command "mcpx": did you mean ibid mcp?`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCmd(t, c.args...)
			if len(c.args) > 0 && (c.args[len(c.args)-1] == "-h" || c.args[len(c.args)-1] == "--help") {
				if code != 0 || !strings.Contains(out, c.want) {
					t.Errorf("help: exit %d, lacks %q:\n%s", code, c.want, out)
				}
				return
			}
			if code != exitError || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errs, c.want)
			}
		})
	}
}

// TestResumeTakesOptionalID: --resume alone is the latest conversation and
// leaves the next argument a PATH; an id is written --resume=ID, and an id
// written as a separate argument is refused: with how to write it when
// there is such a conversation, saying there is none otherwise (never
// added as a path while the latest conversation is reopened).
func TestResumeTakesOptionalID(t *testing.T) {
	cmdEnv(t)
	convs := filepath.Join(os.Getenv("XDG_DATA_HOME"), "ibid", "conversations")
	os.MkdirAll(convs, 0o755)
	if err := os.WriteFile(filepath.Join(convs, "e96d6a868b2e2bd1.json"), []byte(`{"id":"e96d6a868b2e2bd1","library":"default"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--resume=e96d6a868b2e2bd1"}, "needs a terminal"},
		{[]string{"--resume", "docs/"}, "needs a terminal"},
		{[]string{"docs/", "--resume"}, "needs a terminal"},
		{[]string{"--resume", "e96d6a868b2e2bd1"}, "write --resume=e96d6a868b2e2bd1"},
		{[]string{"--resume", "nosuchid"}, `no saved conversation "nosuchid"`},
		{[]string{"--resume", "0123456789abcdef"}, `no saved conversation "0123456789abcdef"`},
	} {
		code, _, errs := runCmd(t, c.args...)
		if code != exitError || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	if _, out, _ := runCmd(t, "--help"); !strings.Contains(out, "--resume=ID") {
		t.Errorf("help does not show how to give an id:\n%s", out)
	}
}

// TestChatWithoutTerminal: with standard input a character device that is
// no terminal (/dev/null), the chat says it needs a terminal instead of
// failing inside its terminal library.
func TestChatWithoutTerminal(t *testing.T) {
	cmdEnv(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	var out, errb bytes.Buffer
	code := Run(context.Background(), nil, Env{In: null, Out: &out, Err: &errb, Getenv: os.Getenv})
	if code != exitError || !strings.Contains(errb.String(), "the chat needs a terminal") || strings.Contains(errb.String(), "bubbletea") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

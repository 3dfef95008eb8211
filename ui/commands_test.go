package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	b := newFakeBackend(sampleAnswer)
	d := newDrive(t, b, 100, 30)
	say := func(s string) string {
		d.typeText(s)
		d.send(press("enter"))
		return d.screen()
	}
	say("does it hold?")
	out := filepath.Join(t.TempDir(), "conv.md")
	if scr := say("/export " + out); !strings.Contains(scr, "exported to "+out) {
		t.Errorf("/export: status not shown:\n%s", scr)
	}
	if data, err := os.ReadFile(out); err != nil || string(data) != b.Markdown() {
		t.Errorf("/export wrote %q, %v", data, err)
	}
	// a folder that cannot be made: the error names the file asked for
	// and the cause, not a temporary file's name
	bad := filepath.Join(out, "sub", "conv.md")
	if scr := say("/export " + bad); !strings.Contains(strings.Join(strings.Fields(scr), " "), "couldn't export to "+bad+": not a directory") {
		t.Errorf("/export into a file: status:\n%s", scr)
	}
	if scr := say("/add /papers/new.pdf"); !strings.Contains(scr, "added 1") {
		t.Errorf("/add: summary not shown:\n%s", scr)
	}
	if scr := say("/library thesis"); !strings.Contains(scr, "thesis · 3 docs") || strings.Contains(scr, "does it hold?") {
		t.Errorf("/library: screen:\n%s", scr)
	}
	say("again?")
	if scr := say("/new"); strings.Contains(scr, "again?") || !strings.Contains(scr, "new conversation") {
		t.Errorf("/new: screen:\n%s", scr)
	}
	if scr := say("/frobnicate"); !strings.Contains(scr, "unknown command /frobnicate") {
		t.Errorf("unknown command: screen:\n%s", scr)
	}
	if scr := say("/help"); !strings.Contains(scr, "Slash commands") {
		t.Errorf("/help: screen:\n%s", scr)
	}
	if b.saved < 2 {
		t.Errorf("conversation saved %d times, want one per answer", b.saved)
	}
}

func TestHistory(t *testing.T) {
	t.Parallel()
	d := newDrive(t, newFakeBackend("ok"), 100, 30)
	for _, q := range []string{"one", "two"} {
		d.typeText(q)
		d.send(press("enter"))
	}
	d.typeText("dra")
	d.send(press("up"))
	if v := d.m.in.ta.Value(); v != "two" {
		t.Errorf("up: %q", v)
	}
	d.send(press("up"))
	d.send(press("up"))
	if v := d.m.in.ta.Value(); v != "one" {
		t.Errorf("up up up: %q", v)
	}
	d.send(press("down"))
	d.send(press("down"))
	if v := d.m.in.ta.Value(); v != "dra" {
		t.Errorf("back to the draft: %q", v)
	}
}

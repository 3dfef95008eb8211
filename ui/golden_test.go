package ui

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// updating reports the -update flag (registered by teatest, which this
// package's tests import): rewrite the golden files under testdata/.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func typeName(v any) string { return reflect.TypeOf(v).String() }

// golden compares got (ANSI already stripped) with testdata/TestName/name.golden.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", t.Name(), name+".golden")
	// trailing spaces are terminal padding, not content
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	got = strings.Join(lines, "\n") + "\n"
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui/ -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

func TestGoldenViews(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		d := newDrive(t, newFakeBackend(sampleAnswer), w, h)
		d.typeText("does the effect hold?")
		d.send(press("enter"))
		golden(t, fmt.Sprintf("answer_%dx%d", w, h), d.screen())
		d.send(press("tab"))
		d.send(press("]"))
		d.send(press("]"))
		golden(t, fmt.Sprintf("selected_%dx%d", w, h), d.screen())
		d.send(press("enter"))
		golden(t, fmt.Sprintf("viewer_%dx%d", w, h), d.screen())
		d.send(press("esc"))
		d.send(press("tab"))
		golden(t, fmt.Sprintf("sources_%dx%d", w, h), d.screen())
		d.send(press("?"))
		golden(t, fmt.Sprintf("help_%dx%d", w, h), d.screen())
		d.send(press("esc"))
		d.send(press("tab")) // input
		d.send(statusMsg{err: errors.New("couldn't add /home/me/papers/thesis draft.docx: not a PDF, Markdown, HTML or text file; convert it, or remove it from the folder and add again")})
		golden(t, fmt.Sprintf("error_%dx%d", w, h), d.screen())
	}
}

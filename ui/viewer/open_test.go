package viewer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ibid-dev/ibid/internal/argstub"
	"github.com/ibid-dev/ibid/store"
)

// hostilePDF is a PDF whose path has spaces and a shell command after a
// ";": it must reach the viewer as one argument and run nothing.
func hostilePDF(t *testing.T) (path, canary string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "my papers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	canary = filepath.Join(dir, "pwned")
	path = filepath.Join(dir, "a b; touch pwned; .pdf") // run in dir, a shell would make canary
	if err := os.WriteFile(path, []byte("%PDF-1.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, canary
}

// runArgv runs argv in the folder of canary.
func runArgv(t *testing.T, argv []string, canary string) {
	t.Helper()
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir = filepath.Dir(canary)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%q: %v\n%s", argv, err, out)
	}
}

// TestOpenPDFTemplate: the PDF viewer template's {file} and {page} are
// replaced inside words, the path stays one argument and runs nothing.
func TestOpenPDFTemplate(t *testing.T) {
	_, script, record := argstub.Script(t, "viewer")
	path, canary := hostilePDF(t)
	argv, err := openArgv(store.Document{Path: path, Format: "pdf"}, openPlace{seg: store.Segment{PageStart: 10, PageEnd: 11}},
		osOpenEnv(OpenSettings{PDFViewer: script + " --page={page} {file}"}))
	if err != nil {
		t.Fatal(err)
	}
	runArgv(t, argv, canary)
	if got, want := argstub.Args(t, record), []string{"--page=10", path}; !reflect.DeepEqual(got, want) {
		t.Errorf("viewer got %q, want %q", got, want)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("the path's ; ran a command")
	}
	// the page in view, when it is known, wins over the passage's first
	argv, err = openArgv(store.Document{Path: path, Format: "pdf"}, openPlace{seg: store.Segment{PageStart: 10, PageEnd: 11}, page: 11},
		osOpenEnv(OpenSettings{PDFViewer: "v --page={page} {file}"}))
	if want := []string{"v", "--page=11", path}; err != nil || !reflect.DeepEqual(argv, want) {
		t.Errorf("at p. 11: %q, %v; want %q", argv, err, want)
	}
}

// TestOpenPDFOnPath: without a PDF viewer template the first known viewer on
// PATH is used with its own page flag; without any, the system opener,
// without a page; with neither, an error that says what to set.
func TestOpenPDFOnPath(t *testing.T) {
	dir, _, record := argstub.Script(t, "okular")
	path, canary := hostilePDF(t)
	t.Setenv("IBID_PDF_VIEWER", "zathura {file}") // read by cli's Config, never here
	t.Setenv("PATH", dir)
	doc, seg := store.Document{Path: path, Format: "pdf"}, openPlace{seg: store.Segment{PageStart: 7}}
	argv, err := openArgv(doc, seg, osOpenEnv(OpenSettings{}))
	if err != nil {
		t.Fatal(err)
	}
	runArgv(t, argv, canary)
	if got, want := argstub.Args(t, record), []string{"-p", "7", path}; !reflect.DeepEqual(got, want) {
		t.Errorf("okular got %q, want %q", got, want)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("the path's ; ran a command")
	}

	only := func(names ...string) openEnv {
		e := osOpenEnv(OpenSettings{})
		e.lookPath = func(n string) (string, error) {
			for _, x := range names {
				if x == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", errors.New("not found")
		}
		return e
	}
	for _, c := range []struct {
		have []string
		want []string
	}{
		{[]string{"sioyek", "mupdf"}, []string{"mupdf", path, "7"}},
		{[]string{"sioyek"}, []string{"sioyek", "--page", "7", path}},
		{[]string{"evince"}, []string{"evince", "-i", "7", path}},
		{[]string{"zathura", "evince"}, []string{"zathura", "--page=7", path}},
		{[]string{"xdg-open"}, []string{"xdg-open", path}},
	} {
		if got, err := openArgv(doc, seg, only(c.have...)); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("with %v: %q, %v; want %q", c.have, got, err, c.want)
		}
	}
	if _, err := openArgv(doc, seg, only()); err == nil || !strings.Contains(err.Error(), "IBID_PDF_VIEWER") {
		t.Errorf("no viewer at all: %v, want an error naming IBID_PDF_VIEWER", err)
	}
}

// TestOpenMarkdownInEditor: Markdown goes to the editor +N, N the passage's
// line in the file (front matter included), never to a PDF viewer.
func TestOpenMarkdownInEditor(t *testing.T) {
	_, script, record := argstub.Script(t, "editor")
	dir := filepath.Join(t.TempDir(), "notes; rm -rf x")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a b.md")
	front := "---\ntitle: Notes\n---\n"
	text := "# Notes\n\nFirst paragraph.\n\n## Results\n\nThe effect holds\nacross sites.\n"
	if err := os.WriteFile(path, []byte(front+text), 0o644); err != nil {
		t.Fatal(err)
	}
	start := strings.Index(text, "The effect")
	seg := store.Segment{Text: "The effect holds\nacross sites.", Start: start, End: len(text)}
	argv, err := openArgv(store.Document{Path: path, Format: "markdown"}, openPlace{seg: seg},
		osOpenEnv(OpenSettings{Editor: script, PDFViewer: script + " {file}"}))
	if err != nil {
		t.Fatal(err)
	}
	runArgv(t, argv, path)
	// "The effect holds" is the file's 10th line: 3 of front matter, 7 of text
	if got, want := argstub.Args(t, record), []string{"+10", path}; !reflect.DeepEqual(got, want) {
		t.Errorf("editor got %q, want %q", got, want)
	}

	// an editor with arguments keeps them; without $EDITOR, less at the line
	env := osOpenEnv(OpenSettings{Editor: "code --wait"})
	if got, _ := openArgv(store.Document{Path: path, Format: "markdown"}, openPlace{seg: seg}, env); !reflect.DeepEqual(got, []string{"code", "--wait", "+10", path}) {
		t.Errorf("EDITOR with arguments: %q", got)
	}
	env.Editor = ""
	env.lookPath = func(n string) (string, error) { return "/usr/bin/" + n, nil }
	if got, _ := openArgv(store.Document{Path: path, Format: "markdown"}, openPlace{seg: seg}, env); !reflect.DeepEqual(got, []string{"less", "+10g", path}) {
		t.Errorf("no EDITOR: %q, want less at the line", got)
	}
}

// TestFileLine: the line of an offset inside a passage is the passage's
// line in the file (front matter and all) plus the passage's line breaks
// before the offset; offsets before the first word or past the end stay
// inside the passage.
func TestFileLine(t *testing.T) {
	front := "---\ntitle: x\n---\n"
	text := "# Title\n\n\nFirst para\ngoes on.\n\nSecond para.\n"
	data := []byte(front + text)
	seg := store.Segment{Text: text[8:], Start: 8} // "\n\nFirst para…": it begins with blank lines
	for _, c := range []struct{ off, want int }{
		{0, 7}, {2, 7}, {strings.Index(seg.Text, "goes"), 8}, {strings.Index(seg.Text, "Second"), 10}, {len(seg.Text), 11}, {999, 11},
	} {
		if got := fileLine(data, seg, c.off); got != c.want {
			t.Errorf("offset %d (%q): line %d, want %d", c.off, seg.Text[min(c.off, len(seg.Text)):], got, c.want)
		}
	}
}

// TestPassageLine: the line comes from the text when found (nearest the
// offset, for a repeated line), else from the offset.
func TestPassageLine(t *testing.T) {
	data := []byte("same\nx\nsame\ny\nsame\n")
	for _, c := range []struct {
		seg  store.Segment
		want int
	}{
		{store.Segment{Text: "same", Start: 0}, 1},
		{store.Segment{Text: "same", Start: 8}, 3},
		{store.Segment{Text: "same", Start: 13}, 5},
		{store.Segment{Text: "absent", Start: 7}, 3},
		{store.Segment{Text: "absent", Start: 999}, 6},
	} {
		if got := passageLine(data, c.seg); got != c.want {
			t.Errorf("%+v: line %d, want %d", c.seg, got, c.want)
		}
	}
}

// TestOpenRefusesBinary: a "text" file that is binary is never handed to
// an editor or a pager.
func TestOpenRefusesBinary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(path, []byte("abc\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	if argv, err := openArgv(store.Document{Path: path, Format: "text"}, openPlace{}, osOpenEnv(OpenSettings{Editor: "vi"})); err == nil {
		t.Errorf("binary file opened with %q", argv)
	}
}

// TestViewerOpenKey: o in the viewer produces the exec message of
// tea.ExecProcess for the passage it is on, with the programs the viewer
// was given: the command runs the stub viewer of its OpenSettings at the
// passage's page, never the one $IBID_PDF_VIEWER names (the environment
// is cli's to read).
func TestViewerOpenKey(t *testing.T) {
	_, script, record := argstub.Script(t, "viewer")
	_, envScript, envRecord := argstub.Script(t, "envviewer")
	t.Setenv("IBID_PDF_VIEWER", envScript+" {file} {page}")
	t.Setenv("EDITOR", envScript)
	path, canary := hostilePDF(t)
	v := New(testKeys(), testStyles(), Settings{Open: OpenSettings{PDFViewer: script + " {file} {page}"}})
	v.SetSize(80, 24)
	v.Load(paperContent(store.Document{ID: "doc2", Path: path, Format: "pdf", Title: "Paper 2"}, "doc2:3"))
	if !v.IsOpen() {
		t.Fatal("viewer not open")
	}
	v.View()
	cmd := v.key(press("o"))
	if cmd == nil {
		t.Fatal("o gave no command")
	}
	if msg := cmd(); !strings.Contains(reflect.TypeOf(msg).String(), "exec") {
		t.Errorf("o gave %T, want tea.ExecProcess's message", msg)
	}
	// the command o execs is openCmd's: openArgv with the viewer's
	// programs, at the page where the view is
	p, _, _ := v.where()
	argv, err := openArgv(v.doc, openPlace{seg: v.segs[p.top], page: p.pStart, off: p.off}, osOpenEnv(v.settings.Open))
	if err != nil {
		t.Fatal(err)
	}
	runArgv(t, argv, canary)
	if got, want := argstub.Args(t, record), []string{path, strconv.Itoa(p.pStart)}; !reflect.DeepEqual(got, want) {
		t.Errorf("the viewer of OpenSettings got %q, want %q", got, want)
	}
	if _, err := os.Stat(envRecord); err == nil {
		t.Errorf("o ran $IBID_PDF_VIEWER's program: the viewer read the environment")
	}
}

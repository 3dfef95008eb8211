package viewer

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/internal/regular"
	"github.com/ibid-dev/ibid/store"
)

// OpenSettings say which programs o (open the viewer's document at the
// passage) runs. Neither the chat nor the viewer reads the environment
// for them: the command line's Config does, once ($IBID_PDF_VIEWER and
// $EDITOR), and passes them in the chat's Options.
type OpenSettings struct {
	// PDFViewer is a command template for PDFs, with {file} and {page}
	// ($IBID_PDF_VIEWER); "": the first of pdfViewers on PATH.
	PDFViewer string
	// Editor opens Markdown and text at a line, as "Editor +N file"
	// ($EDITOR; it may hold arguments); "": less.
	Editor string
}

// pdfViewers are the PDF viewers tried, in order, when no PDFViewer is
// set: the first found on PATH opens the file at the page. Each is a
// command template like PDFViewer's.
var pdfViewers = []string{
	"zathura --page={page} {file}",
	"okular -p {page} {file}",
	"evince -i {page} {file}",
	"mupdf {file} {page}",
	"sioyek --page {page} {file}",
}

// openEnv is what openArgv knows of the world: the settings, and how to
// look for programs and read files, so tests can give their own.
type openEnv struct {
	OpenSettings
	lookPath func(string) (string, error)
	readFile func(string) ([]byte, error)
	goos     string
}

// osOpenEnv is the machine's: programs on PATH, files on disk.
func osOpenEnv(s OpenSettings) openEnv {
	return openEnv{OpenSettings: s, lookPath: exec.LookPath, readFile: readDocument, goos: runtime.GOOS}
}

// readDocument reads a document's file to find a line in it, as the
// loaders open documents: a named pipe or a device where the file was is
// refused at once, and no more than a text file's limit is read.
func readDocument(path string) ([]byte, error) { return regular.ReadFile(path, 256<<20) }

// openPlace is where o opens a document: in the passage seg, at page (a
// PDF's page of the first line in view; 0: the passage's first page) and
// at byte off of seg's text (the first line in view, for a text file's
// line).
type openPlace struct {
	seg       store.Segment
	page, off int
}

// openArgv is the command that opens doc at at, as an argument vector
// (never a shell string: a path with spaces or ";" stays one argument and
// runs nothing):
//   - a PDF: the PDFViewer template ({file} and {page} replaced inside
//     each word; the file is appended when there is no {file}), else the
//     first of pdfViewers on PATH, at at's page; else the system opener
//     (xdg-open, open on macOS) without a page;
//   - anything else: Editor +N file, N the line in the file of at's
//     offset (fileLine); without an Editor, less +Ng file. A file that
//     looks binary is refused, so no pager or editor is ever given a
//     PDF's bytes.
func openArgv(doc store.Document, at openPlace, env openEnv) ([]string, error) {
	if doc.Path == "" {
		return nil, errors.New("this source has no file to open")
	}
	if doc.Format == store.FormatPDF {
		page := at.page
		if page < 1 {
			page = max(at.seg.PageStart, 1)
		}
		return pdfArgv(doc.Path, page, env)
	}
	data, err := env.readFile(doc.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s to open it: %w (was it moved? add it again)", doc.Path, err)
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return nil, fmt.Errorf("%s looks binary; open it with its own program", doc.Path)
	}
	line := strconv.Itoa(fileLine(data, at.seg, at.off))
	if ed := strings.Fields(env.Editor); len(ed) > 0 {
		return append(ed, "+"+line, doc.Path), nil
	}
	if _, err := env.lookPath("less"); err == nil {
		return []string{"less", "+" + line + "g", doc.Path}, nil
	}
	return nil, fmt.Errorf("no editor to open %s: set $EDITOR (e.g. export EDITOR=vi)", doc.Path)
}

// pdfArgv opens a PDF at page (see openArgv).
func pdfArgv(path string, page int, env openEnv) ([]string, error) {
	if t := env.PDFViewer; strings.TrimSpace(t) != "" {
		return fillTemplate(t, path, page), nil
	}
	for _, t := range pdfViewers {
		if _, err := env.lookPath(strings.Fields(t)[0]); err == nil {
			return fillTemplate(t, path, page), nil
		}
	}
	if argv, err := systemOpener(path, env); err == nil {
		return argv, nil
	}
	return nil, fmt.Errorf("no PDF viewer found to open %s: set IBID_PDF_VIEWER, e.g. 'zathura --page={page} {file}'", path)
}

// systemOpener opens path with the system's program for its kind of file:
// xdg-open, or open on macOS, when it is on PATH.
func systemOpener(path string, env openEnv) ([]string, error) {
	opener := "xdg-open"
	if env.goos == "darwin" {
		opener = "open"
	}
	if _, err := env.lookPath(opener); err != nil {
		return nil, fmt.Errorf("no %s to open it with", opener)
	}
	return []string{opener, path}, nil
}

// fillTemplate splits a command template at white space and replaces
// {file} and {page} inside each word; the file is appended when the
// template has no {file}. The path is substituted after splitting, so it
// is always exactly one argument.
func fillTemplate(t, path string, page int) []string {
	var argv []string
	hasFile := false
	for _, w := range strings.Fields(t) {
		hasFile = hasFile || strings.Contains(w, "{file}")
		argv = append(argv, strings.NewReplacer("{file}", path, "{page}", strconv.Itoa(page)).Replace(w))
	}
	if !hasFile {
		argv = append(argv, path)
	}
	return argv
}

// fileLine is the 1-based line of data that holds byte off of seg's
// text: the line where the passage begins (passageLine) plus the line
// breaks of seg's text from its first word to off. The passage's text is
// its document's text from Start on, so its line breaks are the file's.
func fileLine(data []byte, seg store.Segment, off int) int {
	lead := leadingSpace(seg.Text)
	off = min(max(off, lead), len(seg.Text))
	return passageLine(data, seg) + strings.Count(seg.Text[lead:off], "\n")
}

// leadingSpace is the length of the white space s starts with.
func leadingSpace(s string) int {
	return len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
}

// passageLine is the 1-based line of data where seg's first word is.
// Start is a byte offset into the document's extracted text, which for
// Markdown is the file less any front matter; so the passage's first line
// is looked for in the file, nearest the offset, and the offset itself is
// used only when the text is not found.
func passageLine(data []byte, seg store.Segment) int {
	at := min(max(seg.Start+leadingSpace(seg.Text), 0), len(data))
	first, _, _ := strings.Cut(strings.TrimSpace(seg.Text), "\n")
	if first = strings.TrimSpace(first); first != "" {
		best := -1
		for i := 0; ; {
			j := bytes.Index(data[i:], []byte(first))
			if j < 0 {
				break
			}
			if best < 0 || abs(i+j-at) < abs(best-at) {
				best = i + j
			}
			i += j + 1
		}
		if best >= 0 {
			at = best
		}
	}
	return bytes.Count(data[:at], []byte("\n")) + 1
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// openCmd opens the viewer's document at at with the programs s names,
// through tea.ExecProcess: the chat suspends while the program runs and
// comes back when it exits (StatusMsg).
func openCmd(doc store.Document, at openPlace, s OpenSettings) tea.Cmd {
	argv, err := openArgv(doc, at, osOpenEnv(s))
	if err != nil {
		return func() tea.Msg { return StatusMsg{Err: err} }
	}
	c := exec.Command(argv[0], argv[1:]...)
	return tea.ExecProcess(c, func(err error) tea.Msg {
		if err != nil {
			err = fmt.Errorf("couldn't open the document: %s: %w (set IBID_PDF_VIEWER for PDFs, $EDITOR for text)", argv[0], err)
		}
		return StatusMsg{Err: err}
	})
}

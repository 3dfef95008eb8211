package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/internal/atomicfile"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/bib"
	"github.com/ibid-dev/ibid/ui/backend"
)

// Messages of the slash commands' work, done in commands.
type (
	addProgressMsg struct {
		p    backend.AddProgress
		next tea.Cmd
	}
	addDoneMsg struct {
		summary string
		err     error
		lib     libInfo
	}
	savedMsg    struct{ err error }
	exportedMsg struct {
		path         string
		bibliography string // the CSL JSON written beside it ("" for none)
		note         string // why there is none, for the Pandoc style
		err          error
	}
	switchedMsg struct {
		name  string
		err   error
		lib   libInfo
		turns []backend.Turn
	}
	newConvMsg struct{ turns []backend.Turn }
)

// submit handles what the input sent: a slash command or a question.
func (m *Model) submit(text string) tea.Cmd {
	if !strings.HasPrefix(text, "/") {
		return m.ask(text)
	}
	fields, err := splitArgs(text)
	if err != nil {
		m.in.SetValue(text)
		m.status.set(statusMsg{err: err})
		return nil
	}
	cmd, args := fields[0], fields[1:]
	busy := func() tea.Cmd {
		if m.stream != nil {
			return m.hold(text, cmd+" waits for the answer to end: it is kept in the input; press enter then, or ctrl+c to cancel the answer")
		}
		return m.hold(text, cmd+" waits for the addition to finish: it is kept in the input; press enter then")
	}
	switch cmd {
	case "/help":
		m.showHelp = true
	case "/add":
		if len(args) == 0 {
			m.status.set(statusMsg{err: errors.New("/add needs a path, e.g. /add ~/papers")})
			return nil
		}
		if m.stream != nil || m.adding {
			return busy()
		}
		return tea.Batch(m.startAdd(args), m.tick())
	case "/new":
		if m.stream != nil {
			return busy()
		}
		b := m.b
		return func() tea.Msg { b.NewConversation(); return newConvMsg{b.Turns()} }
	case "/export":
		if m.stream != nil {
			return busy()
		}
		path, style, err := exportArgs(args)
		if err != nil {
			m.status.set(statusMsg{err: err})
			return nil
		}
		return exportCmd(m.b, path, style)
	case "/library":
		if len(args) != 1 {
			m.status.set(statusMsg{err: errors.New("/library needs one name, e.g. /library thesis")})
			return nil
		}
		if m.stream != nil || m.adding {
			return busy()
		}
		b, name := m.b, args[0]
		m.status.set(statusMsg{text: "opening library " + name + "…"})
		return func() tea.Msg {
			err := b.SwitchLibrary(context.Background(), name)
			return switchedMsg{name, err, readLibInfo(b), b.Turns()}
		}
	default:
		m.status.set(statusMsg{err: fmt.Errorf("unknown command %s: try /help", cmd)})
	}
	return nil
}

// onCommandDone shows the outcome of a slash command's work.
func (m *Model) onCommandDone(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case savedMsg:
		if msg.err != nil {
			m.status.set(statusMsg{err: fmt.Errorf("couldn't save the conversation: %w", msg.err)})
		}
	case exportedMsg:
		if msg.err != nil {
			m.status.set(statusMsg{err: fmt.Errorf("couldn't export to %s: %w", msg.path, pathCause(msg.err))})
		} else {
			text := "exported to " + msg.path
			if msg.bibliography != "" {
				text += " with its bibliography " + msg.bibliography + " (pandoc --citeproc " + filepath.Base(msg.path) + ")"
			}
			if msg.note != "" {
				text += " (" + msg.note + ")"
			}
			m.status.set(statusMsg{text: text})
		}
	case switchedMsg:
		if msg.err != nil {
			m.status.set(statusMsg{err: fmt.Errorf("couldn't open library %s: %w", msg.name, msg.err)})
			return nil
		}
		m.lib = msg.lib
		m.loadTurns(msg.turns)
		m.status.set(statusMsg{text: "library " + msg.name + ", new conversation"})
	case newConvMsg:
		m.loadTurns(msg.turns)
		m.status.set(statusMsg{text: "new conversation"})
	}
	return nil
}

func saveCmd(b backend.Backend) tea.Cmd {
	return func() tea.Msg { return savedMsg{b.Save()} }
}

// exportArgs reads /export's arguments: an optional FILE and the
// citation style, "pandoc" (or --cite pandoc, --cite=pandoc), in any
// order.
func exportArgs(args []string) (path string, style rag.CiteStyle, err error) {
	style = rag.CiteFootnotes
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--cite" && i+1 < len(args):
			i++
			if style, err = rag.ParseCiteStyle(args[i]); err != nil {
				return "", "", err
			}
		case strings.HasPrefix(a, "--cite="):
			if style, err = rag.ParseCiteStyle(strings.TrimPrefix(a, "--cite=")); err != nil {
				return "", "", err
			}
		case a == "pandoc" || a == "footnotes":
			style = rag.CiteStyle(a)
		case path == "" && !strings.HasPrefix(a, "-"):
			path = a
		default:
			return "", "", fmt.Errorf("/export [FILE] [pandoc]: unexpected %q", a)
		}
	}
	return path, style, nil
}

// exportCmd writes the conversation as Markdown to path (default
// ibid-ID.md in the working directory), atomically. With the Pandoc
// style it writes Pandoc citations and, beside the file, the cited works
// as CSL JSON (FILE's name with .json; added to, when it exists), which
// the Markdown names as its bibliography; when no cited work has a
// citekey there is no bibliography, and its sources are footnotes.
func exportCmd(b backend.Backend, path string, style rag.CiteStyle) tea.Cmd {
	return func() tea.Msg {
		if path == "" {
			path = "ibid-" + b.ConversationID() + ".md"
		}
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, path[2:])
			}
		}
		if style != rag.CitePandoc {
			return exportedMsg{path: path, err: exportFile(path, []byte(b.Markdown()))}
		}
		pe, ok := b.(backend.PandocExporter)
		if !ok {
			return exportedMsg{path: path, err: errors.New("this chat cannot export Pandoc citations")}
		}
		bibPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".json"
		if bibPath == path {
			bibPath = path + ".json"
		}
		md, works := pe.PandocMarkdown(filepath.Base(bibPath))
		if len(works) == 0 { // an empty bibliography would only be clutter
			md, _ = pe.PandocMarkdown("")
			return exportedMsg{path: path, note: "no cited work has a citekey: its sources are footnotes, no bibliography", err: exportFile(path, []byte(md))}
		}
		if _, err := bib.AddToCSLFile(bibPath, works); err != nil {
			if errors.Is(err, bib.ErrNotCSL) {
				err = fmt.Errorf("%w; export to another name", err)
			}
			return exportedMsg{path: path, err: err}
		}
		return exportedMsg{path: path, bibliography: bibPath, err: exportFile(path, []byte(md))}
	}
}

// pathCause is err without the path of the file it failed on (a
// temporary file's, for an atomic write), for a message that names the
// file itself: "no such file or directory", "permission denied".
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// exportFile writes an export to path atomically (a reader never sees half
// a file), creating its folder.
func exportFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// startAdd adds paths in a goroutine; progress arrives as messages.
func (m *Model) startAdd(paths []string) tea.Cmd {
	m.adding = true
	m.addProgress = backend.AddProgress{Stage: "finding files"}
	b := m.b
	prog := make(chan backend.AddProgress, 1)
	done := make(chan addDoneMsg, 1)
	go func() {
		summary, err := b.Add(context.Background(), paths, func(p backend.AddProgress) {
			select { // keep only the latest
			case <-prog:
			default:
			}
			prog <- p
		})
		if err != nil {
			err = fmt.Errorf("couldn't add %s: %w", strings.Join(paths, " "), err)
		}
		done <- addDoneMsg{summary, err, readLibInfo(b)}
	}()
	var next tea.Cmd
	next = func() tea.Msg {
		select {
		case d := <-done:
			return d
		case p := <-prog:
			return addProgressMsg{p, next}
		}
	}
	return next
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui"
)

const chatUsage = `
Usage: ibid [--library NAME] [--model M] [--base-url U] [--cite-format F]
            [--numbering answer|conversation] [--resume [ID]] [PATH...]

Opens the chat on the library. PATHs (files, folders, globs) are added to
the library first, with progress on the status line. Every claim of an
answer carries a footnote [n]; tab to the transcript, ] and [ or a digit
select one, enter opens the cited passage. ? shows every key, /help the
slash commands. Keys and screens: docs/tui.md.

  --numbering conversation   one footnote ledger for the whole conversation
                             (default: numbers restart with each answer)
  --resume [ID]              reopen a saved conversation (the most recent
                             without ID), with the same numbers and sources
`

func runChat(ctx context.Context, s *stdio, args []string) error {
	fs := flag.NewFlagSet("ibid", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = usageFunc(fs, chatUsage)
	var lf libraryFlags
	lf.register(fs)
	var mf modelFlags
	mf.register(fs)
	numbering := fs.String("numbering", envOr("IBID_NUMBERING", "answer"), "footnote numbering: answer or conversation")
	var resume resumeFlag
	fs.Var(&resume, "resume", "reopen a saved conversation `ID` (the most recent without one)")
	paths, err := parseMixed(fs, resume.fix(args))
	if err != nil {
		return err
	}
	if *numbering != "answer" && *numbering != "conversation" {
		return fmt.Errorf("--numbering %q: use answer or conversation", *numbering)
	}
	mode, err := citations.ParseMode(mf.CiteFormat)
	if err != nil {
		return fmt.Errorf("--cite-format: %w (use inline, json or sections)", err)
	}
	if f, ok := s.in.(*os.File); !ok || !isTTY(f) {
		return errors.New("the chat needs a terminal; for pipes and scripts use ibid ask")
	}
	var conv *rag.Conversation
	if resume.set {
		if conv, err = ui.LoadConversation(resume.id); err != nil {
			return err
		}
		lf.Library = conv.Library
	}
	lib, err := lf.open(ctx, false)
	if err != nil {
		return err
	}
	model, err := rag.ConnectModel(ctx, modelConfig(&mf))
	if err != nil {
		lib.Close()
		return err
	}
	open := func(ctx context.Context, name string) (*rag.Library, error) {
		f := lf
		f.Library = name
		return f.open(ctx, false)
	}
	b := ui.NewRAGBackend(lib, model, rag.PipelineOptions{CiteFormat: mode, Numbering: *numbering}, conv, open)
	defer b.Close()
	opt := ui.Options{AddFirst: paths}
	if len(paths) == 0 && lib.Len() == 0 && conv == nil {
		opt.Notice = fmt.Sprintf("the library %q is empty: type /add PATH (files, folders, globs)", lf.Library)
	}
	p := tea.NewProgram(ui.New(b, opt), tea.WithContext(ctx), tea.WithInput(s.in), tea.WithOutput(s.out))
	_, err = p.Run()
	// The chat saves after every answer in the background; save once more
	// so that quitting right after an answer cannot lose it (bounded: an
	// answer still winding down holds the conversation).
	saved := make(chan error, 1)
	go func() { saved <- b.Save() }()
	select {
	case serr := <-saved:
		if serr != nil {
			fmt.Fprintf(s.err, "ibid: couldn't save the conversation: %v\n", serr)
		}
	case <-time.After(2 * time.Second):
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}

// resumeFlag is --resume with an optional value: "--resume" alone means
// the most recent conversation, "--resume ID" a given one.
type resumeFlag struct {
	set bool
	id  string
}

func (r *resumeFlag) String() string { return r.id }
func (r *resumeFlag) Set(v string) error {
	r.set = true
	if v != "true" {
		r.id = v
	}
	return nil
}
func (r *resumeFlag) IsBoolFlag() bool { return true }

// fix rewrites "--resume ID" as "--resume=ID" when ID looks like a saved
// conversation's id (hex, not a path), so the flag takes an optional value.
func (r *resumeFlag) fix(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--resume" || a == "-resume") && i+1 < len(args) && isConvID(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func isConvID(s string) bool {
	if len(s) < 4 || strings.ContainsAny(s, "/.") {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	if _, err := os.Stat(s); err == nil {
		return false // a file of that name: a path to add
	}
	return true
}

func isTTY(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

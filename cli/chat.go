package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/ui"
	"github.com/ibid-dev/ibid/ui/backend"
	"github.com/ibid-dev/ibid/ui/viewer"
	"github.com/spf13/cobra"
)

// resumeLatest is --resume's value when it is given without one.
const resumeLatest = "latest"

// chatCommand is the root command: the chat, after adding any PATHs.
func chatCommand(cfg *Config) *cobra.Command {
	var resume string
	c := &cobra.Command{
		Use:   "ibid [PATH...]",
		Short: "Chat with your own documents; every claim carries a footnote",
		Long: prose(`Chat with your own documents; every claim carries a footnote.

Opens the chat on the library. PATHs (files, folders, globs) are added to
the library first, with progress on the status line. While the chat runs,
the library keeps in step with the folders it follows (ibid sync), in the
background: a paper saved into one is in the library a few seconds later. Every claim of an
answer carries a footnote [n]; tab to the transcript, ] and [ or a digit
select one, enter opens the cited passage. ? shows every key, /help the
slash commands. Keys and screens: docs/tui.md.

With nothing configured ibid uses a local embedder and, when no model
answers, an extractive answerer. Point it at a model with OPENAI_BASE_URL
(and OPENAI_API_KEY) or --base-url and --model; a local Ollama is found by
itself. Documentation: docs/ (start with docs/README.md).`),
		Example: `# Add ibid's own documentation, then chat with it:
ibid --library ibid-docs docs/

# Chat with the library "thesis", one footnote ledger for the whole conversation:
ibid --library thesis --numbering conversation

# Reopen the latest conversation, or a given one:
ibid --resume
ibid --resume=e96d6a868b2e2bd1`,
		Args:                       cobra.ArbitraryArgs,
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if cmd.Flags().Changed("resume") && resume == "" {
				resume = resumeLatest
			}
			return runChat(cmd, cfg, paths, resume)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	cfg.modelFlags(fs)
	cfg.numberingFlag(fs)
	cfg.watchFlag(fs)
	fs.StringVar(&cfg.Theme, "theme", cfg.Theme, "colours: light or dark; empty asks the terminal, then COLORFGBG (env IBID_THEME)")
	_ = c.RegisterFlagCompletionFunc("theme", cobra.FixedCompletions([]string{"light", "dark"}, cobra.ShellCompDirectiveNoFileComp))
	fs.StringVar(&resume, "resume", "",
		"reopen a saved conversation: --resume the latest, --resume=ID a given one, with the same numbers and sources")
	fs.Lookup("resume").NoOptDefVal = resumeLatest
	_ = c.RegisterFlagCompletionFunc("numbering", cobra.FixedCompletions([]string{"answer", "conversation"}, cobra.ShellCompDirectiveNoFileComp))
	completeCommon(c, cfg)
	return c
}

func runChat(cmd *cobra.Command, cfg *Config, paths []string, resume string) error {
	ctx := cmd.Context()
	if err := resumeIDAsPath(resume, paths); err != nil {
		return err
	}
	if err := unknownCommand(cmd, paths); err != nil {
		return err
	}
	if err := cfg.check(); err != nil {
		return err
	}
	if f, ok := cmd.InOrStdin().(*os.File); !ok || !isTTY(f) {
		return errors.New("the chat needs a terminal; for pipes and scripts use ibid ask")
	}
	conv, _, err := resumeConversation(resume)
	if err != nil {
		return err
	}
	if conv != nil {
		cfg.Library = conv.Library
	}
	opener := openExisting // a library named with --library must exist...
	if len(paths) > 0 {
		opener = openLibrary // ...unless the chat starts by adding to it
	}
	lib, err := opener(ctx, cfg, cfg.Library, writable)
	if err != nil {
		return err
	}
	model, err := llm.Connect(ctx, modelConfig(cfg))
	if err != nil {
		lib.Close()
		return err
	}
	open := func(ctx context.Context, name string) (*library.Library, error) {
		return openLibrary(ctx, cfg, name, writable)
	}
	rr, err := newReranker(ctx, cfg)
	if err != nil {
		lib.Close()
		return err
	}
	judge, err := verifyJudge(ctx, cfg)
	if err != nil {
		lib.Close()
		return err
	}
	b := backend.NewRAG(lib, rag.NewAnswerer(model), rag.PipelineOptions{CiteFormat: cfg.CiteFormat, Numbering: cfg.Numbering, Rerank: rr, References: cfg.References, Verify: judge}, conv, open)
	defer b.Close()
	if model != nil { // /add into a library whose strategy needs a model uses the chat's
		b.SetEnricher(func(s ingest.Strategy) library.Enricher { return chatEnricher(model, s) })
	}
	if !cfg.NoWatch { // the folders the library follows, synced in the background
		b.Watch(library.WatchOptions{})
	}
	switch cfg.Theme {
	case "", "light", "dark":
	default:
		return fmt.Errorf("--theme %q: use light or dark (or leave it empty to ask the terminal)", cfg.Theme)
	}
	// the viewer's i draws pages with a PDF engine of its own, started at
	// the first page it draws
	pages := ingest.NewLoader(filepath.Join(xdg.CacheDir(), "wazero"))
	defer pages.Close()
	opt := ui.Options{AddFirst: paths, Theme: cfg.Theme, Open: openSettings(cfg),
		Terminal: cfg.terminal, CacheDir: xdg.CacheDir(), RenderPage: pages.RenderPage,
		Getenv: func(name string) string { // the ui reads the environment only through Config
			if name == "COLORFGBG" {
				return cfg.colorFGBG
			}
			return ""
		}}
	if _, segs, err := libraryContents(ctx, lib); err == nil && len(paths) == 0 && segs == 0 && conv == nil {
		opt.Notice = fmt.Sprintf("the library %q is empty: type /add PATH (files, folders, globs)", cfg.Library)
	}
	p := tea.NewProgram(ui.New(b, opt), tea.WithContext(ctx), tea.WithInput(cmd.InOrStdin()), tea.WithOutput(cmd.OutOrStdout()))
	_, err = p.Run()
	// The chat saves after every answer in the background; save once more
	// so that quitting right after an answer cannot lose it (bounded: an
	// answer still winding down holds the conversation).
	saved := make(chan error, 1)
	go func() { saved <- b.Save() }()
	select {
	case serr := <-saved:
		if serr != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "ibid: couldn't save the conversation: %v\n", serr)
		}
	case <-time.After(2 * time.Second):
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}

// openSettings are the programs the viewer's o runs, from the Config
// (the chat reads no environment of its own).
func openSettings(cfg *Config) viewer.OpenSettings {
	return viewer.OpenSettings{PDFViewer: cfg.PDFViewer, Editor: cfg.Editor}
}

// unknownCommand catches a word that is no command: a first argument
// that is no file, no folder and no glob, and reads as a word (no path
// separator, no dot). Close to a command's name, it was mistyped (ibid
// serach …); otherwise ibid says it is neither, and lists the commands.
// Anything else is a path to add.
func unknownCommand(cmd *cobra.Command, paths []string) error {
	if len(paths) == 0 || strings.ContainsAny(paths[0], `*?[/\.`) || paths[0] == "" {
		return nil
	}
	if _, err := os.Lstat(paths[0]); err == nil {
		return nil
	}
	if s := cmd.SuggestionsFor(paths[0]); len(s) > 0 {
		return fmt.Errorf("unknown command %q: did you mean ibid %s? (to add a file of that name, write ./%s)", paths[0], s[0], paths[0])
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			names = append(names, c.Name())
		}
	}
	return fmt.Errorf("%q is neither a command nor a file or folder here; the commands are %s (ibid --help says what each does; "+
		"ibid PATH… adds files and opens the chat)", paths[0], strings.Join(names, ", "))
}

// resumeIDAsPath catches "--resume ID": with --resume given without a
// value, a first PATH that does not exist but reads like a conversation's
// id was meant as one. ibid then says how to write it when there is such
// a conversation, and that there is none otherwise.
func resumeIDAsPath(resume string, paths []string) error {
	if resume != resumeLatest || len(paths) == 0 || !conversationID.MatchString(paths[0]) {
		return nil
	}
	if _, err := os.Lstat(paths[0]); err == nil {
		return nil
	}
	dir, err := rag.ConversationsDir()
	if err != nil {
		return err
	}
	if _, err := rag.LoadConversation(dir, paths[0]); err != nil {
		return fmt.Errorf("%w; to add a file of that name, write ./%s", err, paths[0])
	}
	return fmt.Errorf("no file or folder %q to add: to reopen the conversation of that id, write --resume=%s", paths[0], paths[0])
}

// conversationID is what a conversation's id may look like.
var conversationID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

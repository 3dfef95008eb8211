package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/support"
)

// verifyCommand is ibid verify: saved answers checked again against the
// library as it is now (docs/support.md).
func verifyCommand(cfg *Config) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "verify ANSWER...|DRAFT.md...",
		Short: "Check saved answers' footnotes, or a manuscript's citations, against the library",
		Long: prose(`Checks every footnote of saved answers again, against the library as it is
now: a document deleted or changed since, a passage that moved (the
document was indexed again), a passage whose verdict flipped, or one that
does not support the sentence that cites it. Each is reported with its
footnote number; the exit status is 1 when any is found, 2 when an
ANSWER cannot be read, 0 when every footnote holds.

ANSWER is a file written by ibid ask --format ndjson, or the id of a saved
conversation (the chat's, or ask --resume's); "latest" is the most recent.
The library is --library, or the conversation's own.

DRAFT.md is a manuscript in Markdown (.md, .markdown, .qmd, .Rmd, .txt)
with Pandoc citations, [@key] or [@key, p. 5]: the sentence that cites is
checked against the passages of the document whose citekey it names (ibid
add refs.bib gives documents theirs), on the cited page or, without one,
anywhere in the work. Each citation is reported as supported, partial,
unsupported, wrong page (with the page that supports it) or unknown key;
the exit status is 1 when any is unsupported, on a wrong page or unknown.`),
		Example: `ibid ask --format ndjson "how do mites harm bees?" > answer.ndjson
ibid verify answer.ndjson
ibid verify latest --format ndjson
ibid verify draft.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &exitStatusError{code: exitBadInput, err: errors.New(`verify: give a saved answer, e.g. ibid verify answer.ndjson (written by ibid ask --format ndjson), a conversation id, or a manuscript with Pandoc citations (ibid verify draft.md)`)}
			}
			if format != "text" && format != "ndjson" {
				return &exitStatusError{code: exitBadInput, err: fmt.Errorf("verify: unknown format %q: use text or ndjson", format)}
			}
			return runVerify(cmd, cfg, format, args)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.verifyModelFlag(fs)
	cfg.baseURLFlag(fs)
	fs.StringVar(&format, "format", "text", "output: text (a line per footnote or citation) or ndjson (a JSON object per footnote or citation)")
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "ndjson"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// exitBadInput is verify's exit status for an input it cannot read.
const exitBadInput = 2

// verifyInput is one kind of thing ibid verify checks. read returns ok
// false when arg is not of its kind, so that the next kind is tried;
// verifyInputs lists them in the order they are tried. A kind reads its
// argument and checks it against the library it names (lib opens one by
// name, "" for --library, each once per run).
type verifyInput struct {
	name string
	read func(ctx context.Context, arg string, env *verifyEnv) (fs []rag.Finding, ok bool, err error)
}

// verifyInputs are the kinds of input, tried in order: an answer file
// from ask, a manuscript with Pandoc citations (verify_draft.go), then a
// saved conversation's id.
var verifyInputs = []verifyInput{
	{"answer", verifyAnswerFile},
	{"draft", verifyDraft},
	{"conversation", verifyConversation},
}

// verifyEnv is what every kind of input is checked with.
type verifyEnv struct {
	cfg  *Config
	opt  rag.VerifyOptions
	libs map[string]*library.Library
}

// lib opens the library called name ("": --library), once per run.
func (v *verifyEnv) lib(ctx context.Context, name string) (*library.Library, error) {
	if name == "" {
		name = v.cfg.Library
	}
	if l, ok := v.libs[name]; ok {
		return l, nil
	}
	l, err := openExisting(ctx, v.cfg, name, searchable)
	if err != nil {
		return nil, err
	}
	v.libs[name] = l
	return l, nil
}

func (v *verifyEnv) close() {
	for _, l := range v.libs {
		l.Close()
	}
}

func runVerify(cmd *cobra.Command, cfg *Config, format string, args []string) error {
	ctx := cmd.Context()
	env := &verifyEnv{cfg: cfg, libs: map[string]*library.Library{}}
	defer env.close()
	judge, err := verifyJudge(ctx, cfg)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if judge != nil {
		env.opt.Pass = judge.Pass()
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	total, bad, cites := 0, 0, 0
	for _, arg := range args {
		var fs []rag.Finding
		read := false
		for _, in := range verifyInputs {
			var ok bool
			fs, ok, err = in.read(ctx, arg, env)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return &exitStatusError{code: exitBadInput, err: fmt.Errorf("verify: %s: %w", arg, err)}
			}
			if ok {
				read = true
				break
			}
		}
		if !read {
			if _, err := os.Stat(arg); errors.Is(err, os.ErrNotExist) && strings.ContainsAny(arg, `/\.`) {
				return &exitStatusError{code: exitBadInput, err: fmt.Errorf("verify: %s: no such file", arg)}
			}
			return &exitStatusError{code: exitBadInput, err: fmt.Errorf("verify: %s is neither a file ibid ask --format ndjson wrote, a manuscript (.md, .txt) nor a saved conversation's id", arg)}
		}
		for _, f := range fs {
			total++
			if f.Citekey != "" {
				cites++
			}
			if f.Kind != rag.FindingOK {
				bad++
			}
			if err := writeFinding(out, format, arg, f); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if bad > 0 {
		noun := "footnotes"
		switch cites {
		case 0:
		case total:
			noun = "citations"
		default:
			noun = "footnotes and citations"
		}
		return fmt.Errorf("verify: %d of %d %s need a look", bad, total, noun)
	}
	return nil
}

// writeFinding writes one finding: a line of text, or its JSON with the
// input it came from.
func writeFinding(w io.Writer, format, input string, f rag.Finding) error {
	if format == "ndjson" {
		b, err := json.Marshal(struct {
			Input string `json:"input"`
			rag.Finding
		}{input, f})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	if f.Citekey != "" {
		return writeDraftLine(w, input, f)
	}
	line := fmt.Sprintf("%s, %s [%d] %s: %s", input, f.Answer, f.Number, f.Kind, f.Message)
	if f.Title != "" {
		line += " (" + f.Title + ")"
	}
	_, err := fmt.Fprintln(w, headless.TerminalSafe(line))
	return err
}

// verifyAnswerFile checks a file written by ibid ask --format ndjson
// against --library.
func verifyAnswerFile(ctx context.Context, arg string, env *verifyEnv) ([]rag.Finding, bool, error) {
	f, err := os.Open(arg)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(512)
	if !strings.HasPrefix(strings.TrimSpace(string(head)), `{"type":`) {
		return nil, false, nil // not an answer: another kind may read it
	}
	answers, err := rag.ReadAnswers(br)
	if err != nil {
		return nil, true, err
	}
	lib, err := env.lib(ctx, "")
	if err != nil {
		return nil, true, err
	}
	fs, err := rag.Verify(ctx, lib, answers, env.opt)
	return fs, true, err
}

// verifyConversation checks a saved conversation, by id ("latest": the
// most recent), against its own library.
func verifyConversation(ctx context.Context, arg string, env *verifyEnv) ([]rag.Finding, bool, error) {
	if strings.ContainsAny(arg, `/\.`) {
		return nil, false, nil // a path, not an id
	}
	conv, _, err := resumeConversation(cmp.Or(arg, resumeLatest)) // "" and "latest": the most recent
	if err != nil {
		return nil, true, err
	}
	lib, err := env.lib(ctx, conv.Library)
	if err != nil {
		return nil, true, err
	}
	fs, err := rag.Verify(ctx, lib, rag.ConversationAnswers(conv), env.opt)
	return fs, true, err
}

// verifyJudge connects --verify-model, or returns nil when none is set.
func verifyJudge(ctx context.Context, cfg *Config) (*support.Judge, error) {
	if cfg.VerifyModel == "" {
		return nil, nil
	}
	mc := modelConfig(cfg)
	mc.Model = cfg.VerifyModel
	m, err := llm.Connect(ctx, mc)
	switch {
	case err != nil:
		return nil, fmt.Errorf("--verify-model %s: %w", cfg.VerifyModel, err)
	case m == nil:
		return nil, fmt.Errorf("--verify-model %s: no model server is configured or running: %s", cfg.VerifyModel, needsModelAdvice)
	}
	return support.NewJudge(m, support.JudgeOptions{CacheDir: filepath.Join(xdg.CacheDir(), "verify")}), nil
}

package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ibid-dev/ibid/citations"
	"github.com/ibid-dev/ibid/internal/xdg"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/ui/termimage"
	"github.com/spf13/pflag"
)

// Config is everything ibid's commands read from the environment and the
// command line.
//
// Invariants: the environment is read once, by loadConfig, into the
// defaults of the flags; a flag given on the command line then overwrites
// its field. Nothing else in the package reads the environment, and no
// command changes a Config after its flags are parsed except the chat,
// which takes a resumed conversation's library name.
type Config struct {
	// Store is where the libraries live: "" the data folder
	// (DataDir/libraries), or a folder holding one folder per library
	// (--store, IBID_STORE).
	Store string
	// Library names the library (--library, IBID_LIBRARY; "default").
	Library string
	// EmbedModel is an OpenAI-compatible embedding model; "" uses the local
	// embedder (--embed-model, IBID_EMBED_MODEL).
	EmbedModel string
	// MaxFileSize is the largest file add reads, in bytes; 0 leaves it to
	// the library (--max-file-size).
	MaxFileSize int64
	// Strategy is how add indexes files (--strategy); "" keeps the
	// library's (recursive for a new one).
	Strategy string
	// Reindex lets add index a library again with another strategy
	// (--reindex).
	Reindex bool
	// NoFollow adds without remembering the paths for ibid sync and the
	// watchers (add --no-follow).
	NoFollow bool
	// NoWatch keeps the chat and serve from following the library's
	// folders while they run (--no-watch).
	NoWatch bool
	// Bib are bibliographies whose metadata add attaches to documents
	// already in the library, adding no file (--bib).
	Bib []string
	// Attachments is a folder where add looks for the files of a
	// bibliography's entries that name none (CSL JSON), and Zotero's
	// linked attachment base folder (--attachments).
	Attachments string
	// ZoteroURL is Zotero's local API (--zotero-url, IBID_ZOTERO_URL;
	// "" for http://127.0.0.1:23119/api/).
	ZoteroURL string
	// OCRLang is Tesseract's language list for scanned PDF pages
	// (--ocr-lang: "eng", "deu+eng"); "" is English.
	OCRLang string
	// EnrichModel is the chat model the strategies that need one use; ""
	// uses Model (--enrich-model, IBID_ENRICH_MODEL).
	EnrichModel string
	// Rerank reranks retrieval's candidates: a rerank model at the
	// --base-url endpoint, "llm" for the chat model itself, "" for none
	// (--rerank, IBID_RERANK_MODEL).
	Rerank string
	// VerifyModel is the chat model that judges the citations the lexical
	// check finds uncertain (a MiniCheck-style model such as
	// bespoke-minicheck, or any chat model); "" judges lexically only
	// (--verify-model, IBID_VERIFY_MODEL).
	VerifyModel string
	// References includes the documents' references sections in
	// retrieval, which leaves them out by default (--references).
	References bool

	// BaseURL is the OpenAI-compatible API, for the chat model and the
	// embedder alike (--base-url, OPENAI_BASE_URL); "" tries a local
	// Ollama for answers.
	BaseURL string
	APIKey  string // OPENAI_API_KEY; never a flag, so it stays out of ps
	// Model is the chat model (--model, IBID_MODEL); "" picks the server's
	// first model.
	Model string
	// CiteFormat is how the model writes citations: inline, json or
	// sections (--cite-format, IBID_CITE_FORMAT).
	CiteFormat citations.Mode
	// NoOllama stops the look for a local Ollama (IBID_NO_OLLAMA set).
	NoOllama bool
	// FirstByteTimeout and IdleTimeout bound the wait for a model's first
	// byte and between two of its chunks; 0 waits for ever
	// (--first-byte-timeout, --idle-timeout).
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration

	// Numbering is the footnote numbering: answer or conversation
	// (the chat's --numbering, IBID_NUMBERING).
	Numbering rag.Numbering
	// badEnv holds, by variable, the environment's settings that could not
	// be read (check reports them); a flag that sets the same field again
	// takes its variable out.
	badEnv map[string]error
	// Token is the bearer token serve's clients send (--token, IBID_TOKEN).
	Token string
	// envBaseURL is OPENAI_BASE_URL as read, to tell in advice whether the
	// base URL came from it or from --base-url.
	envBaseURL string
	// warn is where warnings go (standard error); nil: nowhere.
	warn io.Writer
	// Theme is the chat's colours: light, dark, or "" to ask the terminal
	// (--theme, IBID_THEME).
	Theme string
	// colorFGBG is COLORFGBG as read: the terminal's colours, the chat's
	// guess of a light or dark background until the terminal answers.
	colorFGBG string
	// PDFViewer is the command template the chat's viewer opens a PDF
	// with, {file} and {page} replaced (IBID_PDF_VIEWER); "" looks for a
	// known viewer.
	PDFViewer string
	// Editor opens Markdown and text at a line from the viewer (EDITOR;
	// "" uses less).
	Editor string
	// terminal is what the environment says of the terminal (TERM,
	// TERM_PROGRAM, LC_TERMINAL, and TMUX or STY for a multiplexer), for
	// the viewer's page shown inline; the terminal's answers decide.
	terminal termimage.Env
}

// Default timeouts of a model's answer.
const (
	defaultFirstByteTimeout = 3 * time.Minute // a local model may load first
	defaultIdleTimeout      = time.Minute
)

// loadConfig reads the environment through getenv into a Config: the
// defaults that flags then overwrite.
func loadConfig(getenv func(string) string) *Config {
	or := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	c := &Config{
		Store:            getenv("IBID_STORE"),
		Library:          or("IBID_LIBRARY", "default"),
		EmbedModel:       getenv("IBID_EMBED_MODEL"),
		EnrichModel:      getenv("IBID_ENRICH_MODEL"),
		ZoteroURL:        getenv("IBID_ZOTERO_URL"),
		Rerank:           getenv("IBID_RERANK_MODEL"),
		VerifyModel:      getenv("IBID_VERIFY_MODEL"),
		BaseURL:          getenv("OPENAI_BASE_URL"),
		APIKey:           getenv("OPENAI_API_KEY"),
		Model:            getenv("IBID_MODEL"),
		NoOllama:         getenv("IBID_NO_OLLAMA") != "",
		FirstByteTimeout: defaultFirstByteTimeout,
		IdleTimeout:      defaultIdleTimeout,
		Theme:            getenv("IBID_THEME"),
		colorFGBG:        getenv("COLORFGBG"),
		envBaseURL:       getenv("OPENAI_BASE_URL"),
		Token:            getenv("IBID_TOKEN"),
		PDFViewer:        getenv("IBID_PDF_VIEWER"),
		Editor:           getenv("EDITOR"),
		badEnv:           map[string]error{},
		terminal: termimage.Env{Term: getenv("TERM"), TermProgram: getenv("TERM_PROGRAM"), LCTerminal: getenv("LC_TERMINAL"),
			Multiplexer: getenv("TMUX") != "" || getenv("STY") != ""},
	}
	parseEnv(c, "IBID_CITE_FORMAT", getenv, &c.CiteFormat, citations.ParseMode)
	parseEnv(c, "IBID_NUMBERING", getenv, &c.Numbering, rag.ParseNumbering)
	return c
}

// parseEnv reads the environment variable name into *p with parse, when
// it is set; a value parse refuses leaves *p as it is and goes into
// c.badEnv.
func parseEnv[T any](c *Config, name string, getenv func(string) string, p *T, parse func(string) (T, error)) {
	v := getenv(name)
	if v == "" {
		return
	}
	t, err := parse(v)
	if err != nil {
		c.badEnv[name] = err
		return
	}
	*p = t
}

// choice is a flag whose value is one of a few names, read into a typed
// field (a cite format, a numbering) by parse, so that a typo cannot pass;
// setting it takes env out of the Config's badEnv.
type choice[T fmt.Stringer] struct {
	p     *T
	parse func(string) (T, error)
	c     *Config
	env   string
}

func (f choice[T]) String() string { return (*f.p).String() }
func (f choice[T]) Type() string   { return "string" }
func (f choice[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	*f.p = v
	delete(f.c.badEnv, f.env)
	return nil
}

// numberingFlag declares --numbering.
func (c *Config) numberingFlag(fs *pflag.FlagSet) {
	fs.Var(choice[rag.Numbering]{&c.Numbering, rag.ParseNumbering, c, "IBID_NUMBERING"}, "numbering",
		"footnote numbering: answer (numbers restart with each answer) or conversation (one ledger) (env IBID_NUMBERING)")
}

// The flags below are declared by each command that takes them, bound to
// the one Config, with the environment's values as defaults.

// libraryFlags declares --library and --store.
func (c *Config) libraryFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Library, "library", c.Library, "library name (env IBID_LIBRARY)")
	fs.StringVar(&c.Store, "store", c.Store,
		"where libraries live: a folder holding one folder per library, or postgres://… (env IBID_STORE); empty: "+defaultStore())
}

// embedderFlags declares --embed-model and --base-url, which the embedder
// uses too.
func (c *Config) embedderFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.EmbedModel, "embed-model", c.EmbedModel,
		"embedding model at the --base-url endpoint (env IBID_EMBED_MODEL); empty uses the local embedder")
	c.baseURLFlag(fs)
}

func (c *Config) baseURLFlag(fs *pflag.FlagSet) {
	if fs.Lookup("base-url") != nil {
		return
	}
	fs.StringVar(&c.BaseURL, "base-url", c.BaseURL,
		"base URL of an OpenAI-compatible API, for the model and the embedder (env OPENAI_BASE_URL); empty tries a local Ollama, then the extractive answerer")
}

// modelFlags declares the flags of every face that asks a model.
func (c *Config) modelFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Model, "model", c.Model, "chat model name (env IBID_MODEL); empty picks the server's first model")
	c.baseURLFlag(fs)
	fs.Var(choice[citations.Mode]{&c.CiteFormat, citations.ParseMode, c, "IBID_CITE_FORMAT"}, "cite-format",
		"how the model writes citations: inline, json or sections (env IBID_CITE_FORMAT)")
	fs.DurationVar(&c.FirstByteTimeout, "first-byte-timeout", c.FirstByteTimeout,
		"give up on an answer whose first byte takes longer than this duration (0: wait for ever)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", c.IdleTimeout,
		"give up on an answer that stalls longer than this duration between two chunks (0: wait for ever)")
	c.rerankFlag(fs)
	c.referencesFlag(fs)
	c.verifyModelFlag(fs)
}

// watchFlag declares --no-watch, for the faces that follow the library's
// folders while they run.
func (c *Config) watchFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&c.NoWatch, "no-watch", false,
		"don't keep the library in step with the folders it follows while running (ibid sync does it by hand)")
}

// verifyModelFlag declares --verify-model, for every command that checks
// citations.
func (c *Config) verifyModelFlag(fs *pflag.FlagSet) {
	if fs.Lookup("verify-model") != nil {
		return
	}
	fs.StringVar(&c.VerifyModel, "verify-model", c.VerifyModel,
		"chat model at the --base-url endpoint that judges the citations the lexical check finds uncertain, e.g. bespoke-minicheck (env IBID_VERIFY_MODEL); empty: lexical check only")
}

// referencesFlag declares --references, for every command that retrieves.
func (c *Config) referencesFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&c.References, "references", c.References,
		"also search the documents' references (sections headed References, Bibliography, 参考文献, ...), left out by default")
}

// rerankFlag declares --rerank, for every command that retrieves.
func (c *Config) rerankFlag(fs *pflag.FlagSet) {
	fs.StringVar(&c.Rerank, "rerank", c.Rerank,
		"rerank retrieval's candidates with this rerank model at the --base-url endpoint (Cohere, Jina, TEI, Infinity, llama.cpp or vLLM format), or \"llm\" to let the chat model rank them (env IBID_RERANK_MODEL)")
}

// ignoredEmbedderFlag accepts --embed-model on a command that needs no
// embedder (ls, rm), so that scripts written when those listed it keep
// working, and leaves it out of the help.
func (c *Config) ignoredEmbedderFlag(fs *pflag.FlagSet) {
	var ignored string
	fs.StringVar(&ignored, "embed-model", "", "ignored: listing and removing need no embedder")
	_ = fs.MarkHidden("embed-model")
}

// check reports a setting that cannot work, saying what to write instead.
func (c *Config) check() error {
	for _, name := range []string{"IBID_CITE_FORMAT", "IBID_NUMBERING"} {
		if err := c.badEnv[name]; err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if c.FirstByteTimeout < 0 {
		return fmt.Errorf("--first-byte-timeout %v: give a duration such as 90s, or 0 to wait for ever", c.FirstByteTimeout)
	}
	if c.IdleTimeout < 0 {
		return fmt.Errorf("--idle-timeout %v: give a duration such as 30s, or 0 to wait for ever", c.IdleTimeout)
	}
	return nil
}

// byteSize is a flag value of bytes, written as 1048576, 500KB, 200MB,
// 1.5GB or 2GiB (KB, MB, GB are powers of 1000; KiB, MiB, GiB of 1024).
type byteSize struct{ n *int64 }

func (b byteSize) Type() string { return "size" }

func (b byteSize) String() string {
	if b.n == nil || *b.n == 0 {
		return "0"
	}
	return strconv.FormatInt(*b.n, 10)
}

func (b byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b.n = n
	return nil
}

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	// Longest first, so that "MiB" is not read as "B".
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"b", 1},
}

// parseByteSize reads a size as byteSize describes it.
func parseByteSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0 && v*mult <= 1<<62) { // NaN fails too
		return 0, fmt.Errorf("%q is not a size: write bytes, or a number with KB, MB or GB (e.g. 200MB)", s)
	}
	return int64(v * mult), nil
}

// defaultStore says where libraries live without --store.
func defaultStore() string {
	data, err := xdg.DataDir()
	if err != nil {
		return "the XDG data folder"
	}
	return filepath.Join(data, "libraries")
}

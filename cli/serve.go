package cli

import (
	"context"
	"fmt"
	"net"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/spf13/cobra"
)

// serveCommand is ibid serve: cited answers over HTTP as server-sent
// events, and as an OpenAI-compatible chat model.
func serveCommand(cfg *Config) *cobra.Command {
	var addr string
	chatSources := true
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve cited answers over HTTP (server-sent events)",
		Long: prose(`Serves cited answers over HTTP (docs/answers.md, docs/openai.md):
  POST /v1/answers           {"question", "cite_format", "conversation_id"} → server-sent events
  GET  /v1/segments/{id}     a passage with its page and neighbours
  POST /v1/chat/completions  OpenAI-compatible: the library answers as the model
                             "ibid/LIBRARY" (Open WebUI, LibreChat, openai clients)
  GET  /v1/models

It listens on loopback by default. A non-loopback address needs --token
(or IBID_TOKEN); clients then send "Authorization: Bearer <token>".

While it runs, the library keeps in step with the folders it follows
(ibid sync), in the background; what changed is logged to stderr.`),
		Example: `ibid serve --library thesis
IBID_TOKEN=s3cret ibid serve --addr 0.0.0.0:8484`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, rest []string) error {
			return runServe(cmd, cfg, serveFlags{addr, chatSources}, rest)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	cfg.modelFlags(fs)
	fs.StringVar(&addr, "addr", "127.0.0.1:8484", "listen address (host:port)")
	fs.StringVar(&cfg.Token, "token", cfg.Token, "bearer token clients must send (env IBID_TOKEN); required off loopback")
	fs.BoolVar(&chatSources, "chat-sources", true, "end /v1/chat/completions answers with their sources in the text (false: as data only, e.g. for Open WebUI, which lists them itself)")
	cfg.watchFlag(fs)
	completeCommon(c, cfg)
	return c
}

// serveFlags are serve's own flags.
type serveFlags struct {
	addr        string
	chatSources bool
}

func runServe(cmd *cobra.Command, cfg *Config, f serveFlags, rest []string) error {
	addr := f.addr
	if len(rest) > 0 {
		return fmt.Errorf("serve: unexpected argument %q (ibid serve --help lists the flags)", rest[0])
	}
	if !loopback(addr) && cfg.Token == "" {
		return fmt.Errorf("serve: %s is not a loopback address: set --token (clients then send it as a bearer token), or listen on 127.0.0.1", addr)
	}
	ctx := cmd.Context()
	lib, a, err := openAnswerer(ctx, cfg, false)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer lib.Close()
	rr, err := newReranker(ctx, cfg)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	judge, err := verifyJudge(ctx, cfg)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln, err := headless.Listen(addr, headless.HTTPOptions{})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := headless.NewHTTPServer(headless.NewServer(headless.ServerConfig{
		Library: lib, LibraryName: cfg.Library, Answerer: a,
		Options: rag.PipelineOptions{CiteFormat: cfg.CiteFormat, Rerank: rr, References: cfg.References, Verify: judge}, Token: cfg.Token,
		NoSourcesBlock: !f.chatSources,
	}), headless.HTTPOptions{})
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	// Where it serves is the first line (scripts and tests read it), then
	// what the watcher says.
	fmt.Fprintf(cmd.ErrOrStderr(), "ibid: serving library %q on http://%s (model: %s); OpenAI-compatible clients: base URL http://%s/v1, model %s\n",
		cfg.Library, ln.Addr(), a.Label(), ln.Addr(), headless.ModelID(cfg.Library))
	if !cfg.NoWatch { // the folders the library follows, synced in the background
		w := lib.Watch(ctx, library.WatchOptions{Report: syncLogger(cmd.ErrOrStderr(), lib.Name())})
		defer w.Stop()
	}
	if err := headless.Serve(ctx, srv, ln); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// loopback reports whether addr (host:port) listens on loopback only.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

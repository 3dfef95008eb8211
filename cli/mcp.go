package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/headless/mcp"
	"github.com/ibid-dev/ibid/rag"
)

// mcpCommand is ibid mcp: the library as a Model Context Protocol server,
// for assistants (Claude Desktop, Cursor, VS Code, …).
func mcpCommand(cfg *Config) *cobra.Command {
	var addr string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the library to AI assistants over the Model Context Protocol",
		Long: prose(`Serves the library to an assistant over the Model Context Protocol
(docs/mcp.md), with four tools: search (passages, with filters), ask (an
answer with numbered footnotes, each with the passage's words), get_passage
(a passage with its neighbours) and list_documents; each document is also a
resource, ibid://library/ID.

By default it speaks on standard input and output, as desktop assistants
launch it. With --addr it serves MCP's streamable HTTP instead, at
http://ADDR/mcp; a non-loopback address needs --token (or IBID_TOKEN), which
clients send as "Authorization: Bearer <token>".`),
		Example: `ibid mcp --library thesis
ibid mcp --addr 127.0.0.1:8485`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, rest []string) error {
			return runMCP(cmd, cfg, addr, rest)
		},
	}
	fs := c.Flags()
	cfg.libraryFlags(fs)
	cfg.embedderFlags(fs)
	cfg.modelFlags(fs)
	fs.StringVar(&addr, "addr", "", "serve streamable HTTP on this address (host:port) instead of standard input and output")
	fs.StringVar(&cfg.Token, "token", cfg.Token, "with --addr: bearer token clients must send (env IBID_TOKEN); required off loopback")
	completeCommon(c, cfg)
	return c
}

func runMCP(cmd *cobra.Command, cfg *Config, addr string, rest []string) error {
	if len(rest) > 0 {
		return fmt.Errorf("mcp: unexpected argument %q (ibid mcp --help lists the flags)", rest[0])
	}
	if addr != "" && !loopback(addr) && cfg.Token == "" {
		return fmt.Errorf("mcp: %s is not a loopback address: set --token (clients then send it as a bearer token), or listen on 127.0.0.1", addr)
	}
	ctx := cmd.Context()
	lib, a, err := openAnswerer(ctx, cfg, true)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	defer lib.Close()
	rr, err := newReranker(ctx, cfg)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	version, _ := buildVersion()
	srv := mcp.New(mcp.Config{
		Library: lib, LibraryName: cfg.Library, Answerer: a, Version: version,
		Options: rag.PipelineOptions{CiteFormat: cfg.CiteFormat, Numbering: cfg.Numbering, Rerank: rr, References: cfg.References},
	})
	stderr := cmd.ErrOrStderr()
	if addr == "" {
		fmt.Fprintf(stderr, "ibid: MCP server for library %q on standard input and output (model: %s)\n", cfg.Library, a.Label())
		err := srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}})
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	}
	ln, err := headless.Listen(addr, headless.HTTPOptions{})
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	hs := headless.NewHTTPServer(mcp.Handler(srv, cfg.Token), headless.HTTPOptions{})
	hs.BaseContext = func(net.Listener) context.Context { return ctx }
	fmt.Fprintf(stderr, "ibid: MCP server for library %q on http://%s/mcp (model: %s)\n", cfg.Library, ln.Addr(), a.Label())
	if err := headless.Serve(ctx, hs, ln); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// nopWriteCloser is a writer whose Close does nothing: the MCP transport
// closes its writer, and standard output is not its to close.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

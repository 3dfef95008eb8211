package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
)

const serveUsage = `
Usage: ibid serve [--addr 127.0.0.1:8484] [--library NAME] [--token T] [--model M] [--base-url U]

Serves cited answers over HTTP (docs/answers.md):
  POST /v1/answers        {"question", "cite_format", "conversation_id"} → server-sent events
  GET  /v1/segments/{id}  a passage with its page and neighbours

It listens on loopback by default. A non-loopback address needs --token
(or IBID_TOKEN); clients then send "Authorization: Bearer <token>".
`

func runServe(ctx context.Context, s *stdio, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(s.err)
	fs.Usage = usageFunc(fs, serveUsage)
	var lf libraryFlags
	lf.register(fs)
	var mf modelFlags
	mf.register(fs)
	addr := fs.String("addr", "127.0.0.1:8484", "listen `address`")
	token := fs.String("token", envOr("IBID_TOKEN", ""), "bearer `token` clients must send (env IBID_TOKEN); required off loopback")
	rest, err := parseMixed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		fs.Usage()
		return fmt.Errorf("serve: unexpected argument %q", rest[0])
	}
	if !loopback(*addr) && *token == "" {
		return fmt.Errorf("serve: %s is not a loopback address: set --token (clients then send it as a bearer token), or listen on 127.0.0.1", *addr)
	}
	lib, m, mode, err := openAnswerer(ctx, &lf, &mf)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer lib.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{
		Handler: headless.NewServer(headless.ServerConfig{
			Library: lib, LibraryName: lf.Library, Model: m,
			Options: rag.PipelineOptions{CiteFormat: mode}, Token: *token,
		}),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	fmt.Fprintf(s.err, "ibid: serving library %q on http://%s (model: %s)\n", lf.Library, ln.Addr(), modelName(m))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	}
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

func modelName(m *rag.Model) string {
	if m == nil {
		return rag.ExtractiveName
	}
	return m.Name()
}

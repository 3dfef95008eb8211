package headless

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// HTTPOptions bound what clients can hold of `ibid serve`: how long a
// connection may take to send its headers, how long it may sit idle, and
// how many connections are open at once. Zero fields take the defaults.
// (How long a request body may take is ServerConfig.BodyTimeout: the
// handler sets it, because an answer's response streams for longer than
// any read timeout would allow.)
type HTTPOptions struct {
	// ReadHeaderTimeout: the request line and headers must arrive within
	// it. Default 10 s.
	ReadHeaderTimeout time.Duration
	// IdleTimeout: a keep-alive connection is closed after this long
	// without a request. Default 60 s.
	IdleTimeout time.Duration
	// MaxConns: connections served at once; further ones wait to be
	// accepted until one closes. Default 256.
	MaxConns int
	// MaxHeaderBytes bounds the request headers. Default 16 KiB.
	MaxHeaderBytes int
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 60 * time.Second
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 256
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 16 << 10
	}
	return o
}

// NewHTTPServer returns the http.Server of `ibid serve` for h (usually a
// *Server) with opt's timeouts. It sets no ReadTimeout or WriteTimeout:
// an answer streams for as long as the model writes, and the handler
// bounds the request body itself.
func NewHTTPServer(h http.Handler, opt HTTPOptions) *http.Server {
	opt = opt.withDefaults()
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: opt.ReadHeaderTimeout,
		IdleTimeout:       opt.IdleTimeout,
		MaxHeaderBytes:    opt.MaxHeaderBytes,
	}
}

// Listen listens on addr ("host:port") and accepts at most opt.MaxConns
// connections at once.
func Listen(addr string, opt HTTPOptions) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("couldn't listen on %s: %w", addr, err)
	}
	return netutil.LimitListener(ln, opt.withDefaults().MaxConns), nil
}

// Serve serves srv on ln until ctx ends, then shuts down, giving open
// answers up to 5 seconds to finish. It returns nil after a shutdown.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("couldn't serve: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("couldn't serve: %w", err)
		}
		return nil
	}
}

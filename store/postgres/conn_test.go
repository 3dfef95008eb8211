package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/ibid-dev/ibid/store"
)

// proxy forwards TCP connections to the test server, and can cut them all
// and refuse new ones, as a network or a server restart would.
type proxy struct {
	t      *testing.T
	target string
	mu     sync.Mutex
	ln     net.Listener
	addr   string
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.listen("127.0.0.1:0")
	t.Cleanup(func() { p.down() })
	return p
}

func (p *proxy) listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
}

// down cuts every connection and stops listening.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestConnectionLoss cuts the connection under a store: while the server is
// unreachable calls fail with ErrConnection and a sentence saying what to
// do; once it is back, the next call works without reopening.
func TestConnectionLoss(t *testing.T) {
	s := openTest(t, 2)
	ctx := context.Background()
	u, err := url.Parse(testLocation(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	u.Host = p.addr
	ps, err := Open(ctx, u.String(), store.Options{Library: s.name})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	if _, err := ps.Len(ctx); err != nil {
		t.Fatal(err)
	}

	p.down()
	_, err = ps.Len(ctx)
	if !errors.Is(err, ErrConnection) || !strings.Contains(err.Error(), "check that the server is running") {
		t.Fatalf("call with the server gone: %v", err)
	}
	err = ps.Update(ctx, []store.Put{{Document: store.Document{ID: "x"}}}, nil)
	if !errors.Is(err, ErrConnection) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("update with the server gone: %v", err)
	}

	p.listen(p.addr)
	if _, err := ps.Len(ctx); err != nil {
		t.Fatalf("call after the server came back: %v", err)
	}
	// A connection cut while idle in the pool is replaced by the next call.
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	if _, err := ps.Documents(ctx); err != nil {
		t.Fatalf("call after the pool's connections were cut: %v", err)
	}
}

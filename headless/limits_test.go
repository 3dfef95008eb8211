package headless

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// startServe serves cfg on a loopback port through NewHTTPServer, Listen
// and Serve, as `ibid serve` does, and counts closed connections.
func startServe(t *testing.T, cfg ServerConfig, opt HTTPOptions) (addr string, closed *atomic.Int64) {
	t.Helper()
	if cfg.Library == nil {
		cfg.Library = newFakeLibrary()
	}
	ln, err := Listen("127.0.0.1:0", opt)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(NewServer(cfg), opt)
	closed = new(atomic.Int64)
	srv.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed || st == http.StateHijacked {
			closed.Add(1)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String(), closed
}

// slowRequest opens a connection and sends a POST's headers and the first
// bytes of a body that never comes whole.
func slowRequest(t *testing.T, addr, token string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /v1/answers HTTP/1.1\r\nHost: ibid\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"question\": \"be", token)
	return c
}

// readAll reads what the server sends until it closes the connection;
// it fails if that takes longer than limit (the server held it open).
func readAll(t *testing.T, c net.Conn, limit time.Duration) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(limit))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Errorf("the server kept the connection open for %s: %v (read %q)", limit, err, b)
	}
	return string(b)
}

// TestWrongTokenSlowBodiesAreClosed opens many connections with a wrong
// token that trickle their body: each is answered 401 and closed by the
// server at once, without waiting for the body.
func TestWrongTokenSlowBodiesAreClosed(t *testing.T) {
	t.Parallel()
	const n = 40
	addr, closed := startServe(t, ServerConfig{Token: "s3cret", BodyTimeout: time.Hour}, HTTPOptions{ReadHeaderTimeout: time.Hour})
	conns := make([]net.Conn, n)
	for i := range conns {
		conns[i] = slowRequest(t, addr, "wrong")
		defer conns[i].Close()
	}
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			if got := readAll(t, c, 10*time.Second); !strings.HasPrefix(got, "HTTP/1.1 401 ") || !strings.Contains(got, "bearer token is required") {
				t.Errorf("response %q, want a 401", got)
			}
		})
	}
	wg.Wait()
	for i := 0; closed.Load() < n && i < 500; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if got := closed.Load(); got < n {
		t.Errorf("the server closed %d of %d connections", got, n)
	}
}

// TestSlowBodyTimesOut: with the right token, a body that does not arrive
// within BodyTimeout is answered 408 and the connection closed.
func TestSlowBodyTimesOut(t *testing.T) {
	t.Parallel()
	addr, _ := startServe(t, ServerConfig{Token: "s3cret", BodyTimeout: 100 * time.Millisecond}, HTTPOptions{})
	c := slowRequest(t, addr, "s3cret")
	defer c.Close()
	if got := readAll(t, c, 10*time.Second); !strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, "did not arrive within 100ms") {
		t.Errorf("response %q, want a 408", got)
	}
}

// TestSlowHeadersAreClosed: a connection that never finishes its headers
// is closed after ReadHeaderTimeout.
func TestSlowHeadersAreClosed(t *testing.T) {
	t.Parallel()
	addr, _ := startServe(t, ServerConfig{}, HTTPOptions{ReadHeaderTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /v1/segments/d1:0 HTTP/1.1\r\nHost: ib")
	readAll(t, c, 10*time.Second)
}

// TestMaxConns: with MaxConns connections open, another waits until one
// of them closes, then is served.
func TestMaxConns(t *testing.T) {
	t.Parallel()
	addr, _ := startServe(t, ServerConfig{}, HTTPOptions{MaxConns: 2, ReadHeaderTimeout: time.Hour})
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	got := make(chan int, 1)
	go func() {
		client := &http.Client{Timeout: 20 * time.Second}
		resp, err := client.Get("http://" + addr + "/v1/segments/d1:0")
		if err != nil {
			got <- -1
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	select {
	case code := <-got:
		t.Fatalf("a third connection was served (%d) while two were open, MaxConns 2", code)
	case <-time.After(300 * time.Millisecond):
	}
	held[0].Close()
	select {
	case code := <-got:
		if code != http.StatusOK {
			t.Errorf("status %d once a connection was free", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the waiting connection was never served after one closed")
	}
}

// TestConversationKeepsAWindowOfTurns: a conversation reused many times
// keeps its last MaxTurns turns in memory, and the model is sent no
// older ones.
func TestConversationKeepsAWindowOfTurns(t *testing.T) {
	t.Parallel()
	model := llmtest.New(llmtest.Reply{Chunks: []string{"Bees [source_1]."}})
	defer model.Close()
	s := NewServer(ServerConfig{Library: newFakeLibrary(), LibraryName: "t", Answerer: rag.ModelAnswerer(connect(t, model)), MaxTurns: 3})
	h := http.Handler(s)
	for i := 1; i <= 6; i++ {
		req, _ := http.NewRequest("POST", "/v1/answers", strings.NewReader(fmt.Sprintf(`{"question": "question %d", "conversation_id": "c"}`, i)))
		rec := newRecorder()
		h.ServeHTTP(rec, req)
		if rec.code != http.StatusOK {
			t.Fatalf("answer %d: status %d", i, rec.code)
		}
	}
	conv, ok := s.Conversation("c")
	if !ok {
		t.Fatal("conversation c was forgotten")
	}
	var qs []string
	for _, turn := range conv.Turns {
		qs = append(qs, turn.Question)
	}
	if strings.Join(qs, ",") != "question 4,question 5,question 6" {
		t.Errorf("turns kept %q, want the last 3", qs)
	}
	reqs := model.Requests()
	var last string
	for _, m := range reqs[len(reqs)-1].Messages {
		last += string(m) + "\n"
	}
	if strings.Contains(last, "question 2") || !strings.Contains(last, "question 3") {
		t.Errorf("the 6th request should carry the 3 kept turns (3, 4, 5) and no older:\n%s", last)
	}
}

// recorder is a minimal http.ResponseWriter that keeps the status.
type recorder struct {
	h    http.Header
	code int
	body strings.Builder
}

func newRecorder() *recorder { return &recorder{h: http.Header{}} }

func (r *recorder) Header() http.Header { return r.h }
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) { r.code = code }

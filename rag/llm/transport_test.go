package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llmtest"
)

// fast is a policy that waits milliseconds.
var fast = Policy{Base: 2 * time.Millisecond, Max: 10 * time.Millisecond}

// modelOn returns a chat model on srv with cfg's policy and timeouts.
func modelOn(srv *llmtest.Server, cfg Config) *Model {
	cfg.BaseURL, cfg.APIKey = srv.BaseURL(), "k"
	return NewModel(New(cfg), "fake-model")
}

// waits records the retry waits a request reports.
type waits struct {
	mu   sync.Mutex
	list []Wait
}

func (w *waits) ctx() context.Context {
	return WithNotify(context.Background(), func(x Wait) {
		w.mu.Lock()
		w.list = append(w.list, x)
		w.mu.Unlock()
	})
}

func (w *waits) all() []Wait {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Wait(nil), w.list...)
}

// ask streams a question and returns the text received.
func ask(ctx context.Context, m *Model) (string, error) {
	var b strings.Builder
	err := m.Stream(ctx, []Message{{Role: RoleUser, Content: "q"}}, nil, func(s string) { b.WriteString(s) })
	return b.String(), err
}

func TestRetryAfterSecondsHonoured(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"}}, llmtest.Reply{Chunks: []string{"ok"}})
	defer srv.Close()
	var w waits
	start := time.Now()
	got, err := ask(w.ctx(), modelOn(srv, Config{Policy: fast}))
	if err != nil || got != "ok" {
		t.Fatalf("got %q, %v", got, err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %v, before the server's Retry-After of 1 s", d)
	}
	ws := w.all()
	if len(ws) != 1 || ws[0].Delay != time.Second || !ws[0].Server || ws[0].Status != 429 || ws[0].Attempt != 1 {
		t.Errorf("waits %+v", ws)
	}
	if s := ws[0].String(); s != "rate limited, retrying in 1 s" {
		t.Errorf("wait says %q", s)
	}
}

func TestRetryAfterDateHonoured(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)
	srv := llmtest.New(llmtest.Reply{Status: 503, Header: map[string]string{"Retry-After": at}}, llmtest.Reply{Chunks: []string{"ok"}})
	defer srv.Close()
	var w waits
	got, err := ask(w.ctx(), modelOn(srv, Config{Policy: fast}))
	if err != nil || got != "ok" {
		t.Fatalf("got %q, %v", got, err)
	}
	// An HTTP date has whole seconds: the wait is between 1 and 2 s.
	ws := w.all()
	if len(ws) != 1 || !ws[0].Server || ws[0].Delay < time.Second || ws[0].Delay > 2*time.Second {
		t.Errorf("waits %+v", ws)
	}
}

func TestRetryAfterBeyondBoundFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "120"}})
	defer srv.Close()
	start := time.Now()
	_, err := ask(context.Background(), modelOn(srv, Config{Policy: fast}))
	if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "rate limited, try again in 120 s") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 1 || time.Since(start) > 5*time.Second {
		t.Errorf("%d requests in %v; want one, at once", n, time.Since(start))
	}
}

func TestRateLimitMessageWhenRetriesRunOut(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 429})
	defer srv.Close()
	var w waits
	p := fast
	p.Retries = 2
	got, err := ask(w.ctx(), modelOn(srv, Config{Policy: p}))
	if got != "" || !errors.Is(err, ErrRateLimited) || Status(err) != 429 {
		t.Fatalf("got %q, err = %v", got, err)
	}
	msg := err.Error()
	for _, want := range []string{"rate limited, try again in 1 s", "after 3 tries", "scripted status 429"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "cut off") {
		t.Errorf("a request that never started says it was cut off: %q", msg)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 1 + 2 retries", n)
	}
	if ws := w.all(); len(ws) != 2 || ws[0].Server || ws[1].Attempt != 2 {
		t.Errorf("waits %+v", ws)
	}
}

func TestStatusesNotRetried(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		reply llmtest.Reply
		want  string
		rate  bool
	}{
		{"bad key", llmtest.Reply{Status: 401}, "check OPENAI_API_KEY", false},
		{"no model", llmtest.Reply{Status: 404}, "check the model name and the base URL", false},
		{"quota", llmtest.Reply{Status: 429, Body: `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`},
			"quota is used up", false},
		{"not implemented", llmtest.Reply{Status: 501}, "HTTP 501", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(c.reply)
			defer srv.Close()
			_, err := ask(context.Background(), modelOn(srv, Config{Policy: fast}))
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.Is(err, ErrRateLimited) != c.rate {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestRefusedConnectionRetriedThenClearError(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	var w waits
	m := NewModel(New(Config{BaseURL: "http://" + addr + "/v1", Policy: Policy{Refused: 2, Base: time.Millisecond, Max: 5 * time.Millisecond}}), "m")
	start := time.Now()
	_, err := ask(w.ctx(), m)
	var ce *ConnectError
	if !errors.As(err, &ce) || !errors.Is(err, ErrUnreachable) || ce.Tries != 3 {
		t.Fatalf("err = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, addr) || !strings.Contains(msg, "is the server running?") || !strings.Contains(msg, "refused") {
		t.Errorf("message %q", msg)
	}
	if ws := w.all(); len(ws) != 2 || ws[0].Status != 0 || !strings.HasPrefix(ws[0].String(), "couldn't reach the server, retrying in") {
		t.Errorf("waits %+v", ws)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestRefusedConnectionRetriedUntilServerStarts(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	fake := llmtest.New(llmtest.Reply{Chunks: []string{"up"}})
	fake.Close() // only its handler is used, on addr
	var srv *httptest.Server
	defer func() {
		if srv != nil {
			srv.Close()
		}
	}()
	ctx := WithNotify(context.Background(), func(Wait) {
		if srv != nil {
			return
		}
		// The server comes up while the client waits to retry.
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen: %v", err)
			return
		}
		srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: fake.Config.Handler}}
		srv.Start()
	})
	m := NewModel(New(Config{BaseURL: "http://" + addr + "/v1", Policy: Policy{Base: 50 * time.Millisecond}}), "m")
	got, err := ask(ctx, m)
	if err != nil || got != "up" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestFirstByteTimeout(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Silent: true})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast, FirstByteTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a failure, not a hang
	defer cancel()
	start := time.Now()
	_, err := ask(ctx, m)
	if !errors.Is(err, ErrFirstByteTimeout) || !strings.Contains(err.Error(), "sent nothing back for 200ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("gave up after %v", d)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a silent server must not be waited for again", n)
	}
	select {
	case <-srv.Gone:
	case <-time.After(5 * time.Second):
		t.Error("the request was not closed")
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Hello", " there"}, Hang: true})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast, IdleTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a failure, not a hang
	defer cancel()
	start := time.Now()
	got, err := ask(ctx, m)
	if got != "Hello there" || !errors.Is(err, ErrIdleTimeout) || !strings.Contains(err.Error(), "stopped sending for 200ms") {
		t.Fatalf("got %q, err = %v", got, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("gave up after %v", d)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a stream with content must not be sent again", n)
	}
}

func TestIdleTimeoutIsPerGap(t *testing.T) {
	t.Parallel()
	// Chunks every 150 ms for 1.2 s: no gap reaches the 1 s idle timeout,
	// though the whole answer takes longer.
	srv := llmtest.New(llmtest.Reply{Chunks: strings.Split("a b c d e f g h", " "), Delay: 150 * time.Millisecond})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast, IdleTimeout: time.Second, FirstByteTimeout: time.Second})
	got, err := ask(context.Background(), m)
	if err != nil || got != "abcdefgh" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestIdleTimeoutIgnoresTheCallersTime(t *testing.T) {
	t.Parallel()
	// The server sends a piece every 40 ms; the caller takes twice the
	// idle timeout over each piece. That is not the server's silence.
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"x", "y", "z"}, Delay: 40 * time.Millisecond})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: fast, IdleTimeout: 250 * time.Millisecond})
	var b strings.Builder
	err := m.Stream(context.Background(), []Message{{Role: RoleUser, Content: "q"}}, nil, func(s string) {
		b.WriteString(s)
		time.Sleep(500 * time.Millisecond)
	})
	if err != nil || b.String() != "xyz" {
		t.Fatalf("slow reader: got %q, %v", b.String(), err)
	}
}

func TestStreamBrokenBeforeContentRetried(t *testing.T) {
	t.Parallel()
	// The first reply sends a chunk without content, then the connection
	// is cut.
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"", "b"}, Cut: 1}, llmtest.Reply{Chunks: []string{"ok"}})
	defer srv.Close()
	var w waits
	got, err := ask(w.ctx(), modelOn(srv, Config{Policy: fast}))
	if err != nil || got != "ok" {
		t.Fatalf("got %q, %v", got, err)
	}
	if n := len(srv.Requests()); n != 2 || len(w.all()) != 1 || !errors.Is(w.all()[0].Err, ErrStreamCut) {
		t.Errorf("%d requests, waits %+v", n, w.all())
	}
}

func TestStreamCutAfterContentNotRetried(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Hel", "lo", "!"}, Cut: 2})
	defer srv.Close()
	got, err := ask(context.Background(), modelOn(srv, Config{Policy: fast}))
	if got != "Hello" || !errors.Is(err, ErrStreamCut) {
		t.Fatalf("got %q, %v", got, err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 500})
	defer srv.Close()
	m := modelOn(srv, Config{Policy: Policy{Base: time.Hour, Max: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if _, err := ask(ctx, m); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned %v after the cancel", d)
	}
}

func TestEmbeddingsUseThePolicy(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After-Ms": "20"}},
		llmtest.Reply{Status: 502}, llmtest.Reply{})
	defer srv.Close()
	c := New(Config{BaseURL: srv.BaseURL(), Policy: fast})
	var w waits
	vs, err := c.Embed(w.ctx(), "emb", []string{"a", "bbb"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0][0] != 1 || vs[1][0] != 3 || len(vs[0]) != 4 {
		t.Errorf("vectors %v: not in the order of the texts", vs)
	}
	ws := w.all()
	if len(ws) != 2 || ws[0].Delay != 20*time.Millisecond || !ws[0].Server || ws[1].Status != 502 {
		t.Errorf("waits %+v", ws)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[2].Path != "/v1/embeddings" || reqs[2].Model != "emb" || len(reqs[2].Input) != 2 {
		t.Errorf("requests %+v", reqs)
	}
	// Giving up says the same as chat does.
	srv.SetReplies(llmtest.Reply{Status: 503})
	if _, err := c.Embed(context.Background(), "emb", []string{"a"}, 0); !errors.Is(err, ErrRateLimited) ||
		!strings.Contains(err.Error(), "try again in") {
		t.Errorf("err = %v", err)
	}
	// And a silent server times out the same way.
	srv.SetReplies(llmtest.Reply{Silent: true})
	c = New(Config{BaseURL: srv.BaseURL(), Policy: fast, FirstByteTimeout: 100 * time.Millisecond})
	if _, err := c.Embed(context.Background(), "emb", []string{"a"}, 0); !errors.Is(err, ErrFirstByteTimeout) {
		t.Errorf("err = %v", err)
	}
}

func TestBrokenConnectionRetriedThenClearError(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close() // accepted, read, and hung up without a word
		}
	}))
	defer srv.Close()
	var w waits
	p := fast
	p.Retries = 2
	m := NewModel(New(Config{BaseURL: srv.URL + "/v1", Policy: p}), "m")
	_, err := ask(w.ctx(), m)
	var ce *ConnectError
	if !errors.As(err, &ce) || !ce.Broken || errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "broke before the server answered (after 3 tries)") {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 3 || len(w.all()) != 2 {
		t.Errorf("%d requests, %d waits; want 3 and 2", hits, len(w.all()))
	}
}

// TestRefusedAdviceNamesWhatWasSet: a refused connection says where no
// model answered, and its advice names only what chose the server.
func TestRefusedAdviceNamesWhatWasSet(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	base := "http://" + addr + "/v1"
	p := Policy{Refused: -1}
	for _, c := range []struct {
		base, setting, want string
	}{
		{base, "--base-url", "no model answered at " + base + ": connection refused; is the server running? (check --base-url)"},
		{base, "OPENAI_BASE_URL", "no model answered at " + base + ": connection refused; is the server running? (check OPENAI_BASE_URL)"},
		{base, "", "no model answered at " + base + ": connection refused; is the server running? (check OPENAI_BASE_URL or --base-url)"},
	} {
		_, err := ask(context.Background(), NewModel(New(Config{BaseURL: c.base, Setting: c.setting, Policy: p}), "m"))
		if err == nil || err.Error() != c.want {
			t.Errorf("setting %q:\n got %v\nwant %s", c.setting, err, c.want)
		}
	}
	// A local Ollama that ibid found by itself and that went away.
	e := &ConnectError{Host: "127.0.0.1:11434", BaseURL: OllamaURL + "/v1", Tries: 3, Err: syscall.ECONNREFUSED}
	if got, want := e.Error(), "no model answered at http://127.0.0.1:11434/v1: connection refused; is the server running? (set OPENAI_BASE_URL or run Ollama)"; got != want {
		t.Errorf("found Ollama:\n got %s\nwant %s", got, want)
	}
	e.Setting = "--base-url"
	if got := e.Error(); strings.Contains(got, "Ollama") || !strings.Contains(got, "check --base-url") {
		t.Errorf("a base URL the user set is not an Ollama to run: %s", got)
	}
}

// TestDoneInAnswerTextIsNoEnd: an answer whose text holds "[DONE]" and
// whose body then ends without the end of the stream is a cut stream, not a finished one: only
// the SSE line "data: [DONE]" ends a stream.
func TestDoneInAnswerTextIsNoEnd(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"The log says ", "data: [DONE]", " and [DONE] then stops."}, Unfinished: true})
	defer srv.Close()
	got, err := ask(context.Background(), modelOn(srv, Config{Policy: fast}))
	if got != "The log says data: [DONE] and [DONE] then stops." || !errors.Is(err, ErrStreamCut) {
		t.Fatalf("got %q, %v; want the text and a cut stream", got, err)
	}
}

// TestDoneFlagLines: the marker is found whole however the body is split
// into reads, with CRLF or LF line ends, and never inside a longer line.
func TestDoneFlagLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		want bool
	}{
		{"data: {\"x\":1}\n\ndata: [DONE]\n\n", true},
		{"data: {\"x\":1}\r\n\r\ndata:[DONE]\r\n\r\n", true},
		{"data: [DONE]", true}, // the last line, its end cut off
		{"data: {\"content\":\"[DONE]\"}\n\n", false},
		{"data: {\"content\":\"data: [DONE]\"}\n\n", false},
		{": [DONE]\n\n", false},
		{"data: [DONE] more\n\n", false},
		{strings.Repeat("x", 100) + "data: [DONE]\n", false},
	} {
		for cut := 0; cut <= len(c.body); cut++ {
			f := new(doneFlag)
			f.see([]byte(c.body[:cut]))
			f.see([]byte(c.body[cut:]))
			if got := f.Seen(); got != c.want {
				t.Errorf("%q split at %d: seen %v, want %v", c.body, cut, got, c.want)
				break
			}
		}
	}
}

package support

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// fastPolicy retries after milliseconds.
var fastPolicy = llm.Policy{Retries: 2, Base: time.Millisecond, Max: 5 * time.Millisecond, MaxRetryAfter: time.Second}

func judgeOn(t *testing.T, srv *llmtest.Server, opt JudgeOptions) *Judge {
	t.Helper()
	m := llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL(), Policy: fastPolicy}), "bespoke-minicheck")
	return NewJudge(m, opt)
}

// partial is a lexical result the model pass refines, over its evidence.
func partial(t *testing.T) (*Evidence, string, Result) {
	t.Helper()
	e := Analyse(one("Varroa mites were counted in spring. Colonies with many mites lost more bees over winter."))
	claim := "Varroa mites cause colony losses in winter."
	r := e.Check(claim, nil)
	r.Verdict = Partial // whatever the lexical check said, the uncertain middle
	return e, claim, r
}

func TestJudgeVerdicts(t *testing.T) {
	for _, c := range []struct {
		reply string
		want  Verdict
	}{
		{"Yes", Supported},
		{"yes.", Supported},
		{"**Yes**, the document says so.", Supported},
		{"<think>The document says colonies lost bees.</think>\nYes", Supported},
		{"No", Unsupported},
		{" NO\n", Unsupported},
	} {
		srv := llmtest.New(llmtest.Reply{Chunks: []string{c.reply}})
		e, claim, r := partial(t)
		got, err := judgeOn(t, srv, JudgeOptions{}).Refine(context.Background(), claim, e, r)
		srv.Close()
		if err != nil {
			t.Errorf("%q: %v", c.reply, err)
			continue
		}
		if got.Verdict != c.want || !got.Refined || got.Score != r.Score || got.Segment != r.Segment || got.Start != r.Start {
			t.Errorf("%q: %v refined %v, want %v (lexical %v)", c.reply, got, got.Refined, c.want, r)
		}
	}
}

// TestJudgePrompt: the model reads the claim and the passage, in
// MiniCheck's form, and nothing else (never the question).
func TestJudgePrompt(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Yes"}})
	defer srv.Close()
	e, claim, r := partial(t)
	if _, err := judgeOn(t, srv, JudgeOptions{}).Refine(context.Background(), claim, e, r); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Stream || reqs[0].Model != "bespoke-minicheck" { // llm.Complete streams, to bound the answer
		t.Fatalf("requests %+v", reqs)
	}
	msgs := reqs[0].Chat()
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Content != "Document: "+e.segs[0].Text+"\nClaim: "+claim {
		t.Errorf("messages %+v", msgs)
	}
	if reqs[0].MaxTokens != judgeTokens {
		t.Errorf("max_tokens %d", reqs[0].MaxTokens)
	}
}

// TestJudgeFailuresKeepTheLexicalVerdict: garbage, a server error after
// its retries, a slow server past the deadline: the result is the
// lexical one and the error says what happened.
func TestJudgeFailuresKeepTheLexicalVerdict(t *testing.T) {
	for _, c := range []struct {
		name    string
		reply   llmtest.Reply
		timeout time.Duration // the server waits twice this
		want    func(error) bool
	}{
		{"garbage", llmtest.Reply{Chunks: []string{"The document is about bees."}}, 0, func(err error) bool { return errors.Is(err, ErrGarbage) }},
		{"empty", llmtest.Reply{Chunks: []string{""}}, 0, func(err error) bool { return errors.Is(err, ErrGarbage) }},
		{"500", llmtest.Reply{Status: 500}, 0, func(err error) bool { return llm.Status(err) == 500 }},
		{"429 past retries", llmtest.Reply{Status: 429}, 0, func(err error) bool { return llm.Status(err) == 429 }},
		{"slow", llmtest.Reply{Chunks: []string{"Yes"}}, 50 * time.Millisecond, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	} {
		srv := llmtest.New(c.reply)
		e, claim, r := partial(t)
		ctx := context.Background()
		if c.timeout > 0 {
			srv.SetLatency(2 * c.timeout)
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
		got, err := judgeOn(t, srv, JudgeOptions{}).Refine(ctx, claim, e, r)
		srv.Close()
		if err == nil || !c.want(err) {
			t.Errorf("%s: error %v", c.name, err)
		}
		if got != r {
			t.Errorf("%s: result %v, want the lexical %v", c.name, got, r)
		}
	}
}

// TestJudge429Retried: a 429 with Retry-After is waited for and asked
// again through rag/llm's policy.
func TestJudge429Retried(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "0"}}, llmtest.Reply{Chunks: []string{"No"}})
	defer srv.Close()
	e, claim, r := partial(t)
	got, err := judgeOn(t, srv, JudgeOptions{}).Refine(context.Background(), claim, e, r)
	if err != nil || got.Verdict != Unsupported || len(srv.Requests()) != 2 {
		t.Errorf("after a 429: %v, %v, %d requests", got, err, len(srv.Requests()))
	}
}

// TestJudgeCache: an answer is asked once; another model, another claim
// or another passage is asked again; a damaged entry is a miss.
func TestJudgeCache(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Chunks: []string{"Yes"}})
	defer srv.Close()
	dir := t.TempDir()
	j := judgeOn(t, srv, JudgeOptions{CacheDir: dir})
	e, claim, r := partial(t)
	ctx := context.Background()
	for range 2 {
		if got, err := j.Refine(ctx, claim, e, r); err != nil || got.Verdict != Supported {
			t.Fatalf("%v %v", got, err)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	j.Refine(ctx, claim+" Again.", e, r)
	j.Refine(ctx, claim, Analyse(one("Another passage about mites.")), r)
	other := llm.NewModel(llm.New(llm.Config{BaseURL: srv.BaseURL(), Policy: fastPolicy}), "other-model")
	NewJudge(other, JudgeOptions{CacheDir: dir}).Refine(ctx, claim, e, r)
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests after another claim, passage and model, want 4", n)
	}
	k := judgeKey("bespoke-minicheck", claim, e.document(r))
	if err := (llm.Cache{Dir: dir}).Put(k, "maybe"); err != nil {
		t.Fatal(err)
	}
	if got, err := j.Refine(ctx, claim, e, r); err != nil || got.Verdict != Supported || len(srv.Requests()) != 5 {
		t.Errorf("after a damaged entry: %v %v, %d requests", got, err, len(srv.Requests()))
	}
}

// TestJudgeConcurrency: no more than Concurrency requests at once.
func TestJudgeConcurrency(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	var now, most atomic.Int32
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		n := now.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		now.Add(-1)
		return llmtest.Reply{Chunks: []string{"Yes"}}
	})
	j := judgeOn(t, srv, JudgeOptions{Concurrency: 2})
	e, claim, r := partial(t)
	done := make(chan error)
	for i := range 8 {
		go func() {
			_, err := j.Refine(context.Background(), claim+strings.Repeat(" again", i), e, r)
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if m := most.Load(); m != 2 {
		t.Errorf("%d requests at once, want 2", m)
	}
}

// TestPassStopsAtTheFirstFailure: a pass reports its first failure once
// and asks nothing more; clear-cut results are never asked about.
func TestPassStopsAtTheFirstFailure(t *testing.T) {
	srv := llmtest.New(llmtest.Reply{Status: 500})
	defer srv.Close()
	p := judgeOn(t, srv, JudgeOptions{}).Pass()
	e, claim, r := partial(t)
	ctx := context.Background()
	if got, err := p.Refine(ctx, claim, e, r); err == nil || got != r {
		t.Fatalf("first: %v %v", got, err)
	}
	asked := len(srv.Requests())
	if got, err := p.Refine(ctx, claim+" Also.", e, r); err != nil || got != r || len(srv.Requests()) != asked {
		t.Errorf("after the failure: %v %v, %d requests (was %d)", got, err, len(srv.Requests()), asked)
	}
	srv.SetReplies(llmtest.Reply{Chunks: []string{"Yes"}})
	clear := r
	clear.Verdict = Supported
	q := judgeOn(t, srv, JudgeOptions{}).Pass()
	if got, err := q.Refine(ctx, claim, e, clear); err != nil || got != clear || len(srv.Requests()) != asked {
		t.Errorf("a clear-cut result was asked about: %v %v", got, err)
	}
}

func TestDocumentWindow(t *testing.T) {
	long := strings.Repeat("Filler sentence about bees. ", 2000) + "Varroa mites spread ζ viruses. " + strings.Repeat("Más relleno ñ. ", 2000)
	e := Analyse(one(long))
	r := e.Check("Varroa mites spread viruses.", nil)
	doc := e.document(r)
	if len(doc) > maxDocument || !strings.Contains(doc, "Varroa mites spread ζ viruses.") {
		t.Errorf("window of %d bytes, holds the focus: %v", len(doc), strings.Contains(doc, "Varroa"))
	}
	if !strings.HasPrefix(long[strings.Index(long, doc):], doc) || !utf8Valid(doc) {
		t.Error("the window is not a piece of the passage cut at runes")
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

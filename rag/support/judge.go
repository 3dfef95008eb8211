package support

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ibid-dev/ibid/rag/ingest"
	"github.com/ibid-dev/ibid/rag/llm"
)

// PromptVersion names the model pass's prompt; it is part of every cache
// key, so changing the prompt means changing it.
const PromptVersion = "1"

// judgeSystem and the user message ("Document: …\nClaim: …") follow
// MiniCheck (Tang, Laban and Durrett, 2024), which Ollama serves as
// bespoke-minicheck and which answers Yes or No; a general chat model
// is told to answer the same way. The question the answer was for is
// never sent: only the claim and the passage.
const judgeSystem = "You check whether a document supports a claim. " +
	"Answer Yes if everything the claim says is supported by the document, No otherwise. " +
	"Answer with one word: Yes or No."

// maxDocument bounds the passage text sent to the model, in bytes; a
// longer passage is cut to a window around the lexical focus.
const maxDocument = 16 << 10

// judgeTokens bounds the model's answer (one word is enough).
const judgeTokens = 16

// DefaultConcurrency is how many claims a Judge asks about at once.
const DefaultConcurrency = 4

// ErrGarbage is the error of a model answer that is neither Yes nor No.
var ErrGarbage = errors.New("the model's answer is neither Yes nor No")

// maxCacheEntry bounds what is read of a cached verdict's entry.
const maxCacheEntry = 64 << 10

// Judge asks a chat model whether a passage supports a claim: the model
// pass that refines the lexical verdicts that are not clear-cut (Needs).
// Requests go through the model's client, with its one retry policy
// (rag/llm); at most Concurrency run at once, the others wait their turn.
// Answers are cached on disk, keyed by the model, PromptVersion, the claim
// and a hash of the passage text, so that a claim is never asked twice.
// A Judge is safe for concurrent use.
type Judge struct {
	model *llm.Model
	cache llm.Cache
	sem   chan struct{}
}

// JudgeOptions configure a Judge.
type JudgeOptions struct {
	// CacheDir keeps the answers ("" keeps none).
	CacheDir string
	// Concurrency bounds the requests at once (0: DefaultConcurrency).
	Concurrency int
}

// NewJudge returns a Judge that asks m.
func NewJudge(m *llm.Model, opt JudgeOptions) *Judge {
	n := opt.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	return &Judge{model: m, cache: llm.Cache{Dir: opt.CacheDir}, sem: make(chan struct{}, n)}
}

// Model is the name of the model the Judge asks.
func (j *Judge) Model() string { return j.model.Name() }

// Needs reports whether a lexical result is worth a model's judgment: its
// verdict is Partial, the uncertain middle. Supported, Unsupported and
// Unchecked results are clear-cut and keep their verdict.
func Needs(r Result) bool { return r.Verdict == Partial && !r.Refined }

// Refine asks the model whether the passage e supports claim and returns
// r with the model's verdict (Supported for Yes, Unsupported for No) and
// Refined set; the score stays the lexical one. On any failure (the
// server, a cancelled ctx, an answer that is neither Yes nor No) it
// returns r unchanged and the error.
func (j *Judge) Refine(ctx context.Context, claim string, e *Evidence, r Result) (Result, error) {
	doc := e.document(r)
	k := judgeKey(j.model.Name(), claim, doc)
	answer, ok := j.cache.Get(k, maxCacheEntry)
	if !ok || answer != string(Supported) && answer != string(Unsupported) {
		select {
		case j.sem <- struct{}{}:
		case <-ctx.Done():
			return r, ctx.Err()
		}
		c, err := j.model.Complete(ctx, []llm.Message{
			{Role: llm.RoleSystem, Content: judgeSystem},
			{Role: llm.RoleUser, Content: "Document: " + doc + "\nClaim: " + claim},
		}, judgeTokens)
		<-j.sem
		if err != nil {
			return r, fmt.Errorf("couldn't ask %s about a citation: %w", j.model.Name(), err)
		}
		v, ok := parseJudgment(c.Text)
		if !ok {
			return r, fmt.Errorf("%w: %q", ErrGarbage, ingest.Clip(c.Text, 60))
		}
		answer = string(v)
		// A cache that cannot be written costs a repeated question later,
		// never this answer.
		_ = j.cache.Put(k, answer)
	}
	r.Verdict, r.Refined = Verdict(answer), true
	return r, nil
}

// parseJudgment reads a model's Yes or No: the first word of its answer
// once a reasoning block (<think>…</think>) and Markdown around it are
// left out, in any case.
func parseJudgment(text string) (Verdict, bool) {
	if i := strings.LastIndex(text, "</think>"); i >= 0 {
		text = text[i+len("</think>"):]
	}
	text = strings.TrimLeftFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	end := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		text = text[:end]
	}
	switch strings.ToLower(text) {
	case "yes", "supported", "true":
		return Supported, true
	case "no", "unsupported", "false":
		return Unsupported, true
	}
	return "", false
}

// judgeKey is the cache key of a question: the hex SHA-256 of the model,
// PromptVersion, the claim and the document's own hash, each
// length-prefixed.
func judgeKey(model, claim, doc string) string {
	dh := sha256.Sum256([]byte(doc))
	h := sha256.New()
	for _, f := range []string{model, PromptVersion, claim, hex.EncodeToString(dh[:])} {
		fmt.Fprintf(h, "%d:%s", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// document is the passage's text as the model reads it: its segments'
// texts a blank line apart, cut to maxDocument bytes around r's span when
// longer (never inside a rune).
func (e *Evidence) document(r Result) string {
	var b strings.Builder
	at := -1
	for _, s := range e.segs {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if s.ID == r.Segment && at < 0 {
			at = b.Len() + r.Start
		}
		b.WriteString(s.Text)
	}
	doc := b.String()
	if len(doc) <= maxDocument {
		return doc
	}
	start := max(0, at-maxDocument/2)
	start = min(start, len(doc)-maxDocument)
	end := start + maxDocument
	for start > 0 && !utf8.RuneStart(doc[start]) {
		start++
	}
	for end < len(doc) && !utf8.RuneStart(doc[end]) {
		end--
	}
	return doc[start:end]
}

// Pass is one answer's model pass over a Judge: it refines the results
// that need it (Needs) until a request fails; from then on it asks
// nothing more, every later result keeps its lexical verdict, and only
// that first failure is reported, so that a face says so once. A Pass is
// safe for concurrent use.
type Pass struct {
	j       *Judge
	mu      sync.Mutex
	stopped bool
}

// Pass starts a model pass (one per answer).
func (j *Judge) Pass() *Pass { return &Pass{j: j} }

// Refine refines r when it needs it and the pass has not stopped. It
// returns the error of the request that stopped the pass, once; every
// other call returns a nil error.
func (p *Pass) Refine(ctx context.Context, claim string, e *Evidence, r Result) (Result, error) {
	if !Needs(r) {
		return r, nil
	}
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	if stopped {
		return r, nil
	}
	out, err := p.j.Refine(ctx, claim, e, r)
	if err == nil {
		return out, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return r, nil
	}
	p.stopped = true
	return r, err
}

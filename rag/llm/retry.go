package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Policy is the one retry policy of every request ibid sends to a model
// server: chat, embeddings, model lists (and reranking when it comes).
//
// A request is retried only before the first byte of its answer arrived:
// on HTTP 429 and 5xx (but not 501), and on a connection that broke or was
// reset before the server answered. A refused connection (nothing listening)
// is retried Refused times, apart from the Retries budget. The wait before a
// retry is the server's Retry-After (seconds or an HTTP date; OpenAI's
// retry-after-ms too) when it gives one, up to MaxRetryAfter; otherwise an
// exponential backoff with jitter: attempt i (from 0) waits a uniformly
// random time in [d/2, d], d = min(Max, Base·2^i). A Retry-After longer than
// MaxRetryAfter is not waited for: the request fails at once, saying when to
// try again. Each wait is reported to the Notify callback of the request's
// context (see WithNotify) before it starts. Cancelling the context ends a
// wait at once.
//
// The zero value takes the defaults; a negative Retries or Refused means
// no retries of that kind.
type Policy struct {
	Retries       int           // retries of a 429, a 5xx or a broken connection; default 4
	Refused       int           // retries of a refused connection; default 2
	Base          time.Duration // first backoff; default 500 ms
	Max           time.Duration // longest backoff; default 20 s
	MaxRetryAfter time.Duration // longest Retry-After waited for; default 60 s
}

// Policy defaults.
const (
	DefaultRetries       = 4
	DefaultRefused       = 2
	DefaultBase          = 500 * time.Millisecond
	DefaultMax           = 20 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// withDefaults fills the zero fields.
func (p Policy) withDefaults() Policy {
	if p.Retries == 0 {
		p.Retries = DefaultRetries
	}
	if p.Refused == 0 {
		p.Refused = DefaultRefused
	}
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Max <= 0 {
		p.Max = DefaultMax
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	return p
}

// Backoff is the wait before retry attempt+1 when the server said nothing:
// uniformly random in [d/2, d], d = min(Max, Base·2^attempt). r returns a
// number in [0, 1) (rand.Float64 when nil).
func (p Policy) Backoff(attempt int, r func() float64) time.Duration {
	p = p.withDefaults()
	d := p.Max
	if attempt < 40 {
		if b := p.Base << attempt; b > 0 && b < p.Max {
			d = b
		}
	}
	if r == nil {
		r = rand.Float64
	}
	return d/2 + time.Duration(r()*float64(d/2))
}

// retryableStatus reports whether an HTTP status is worth another try.
func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500 && status != http.StatusNotImplemented
}

// RetryAfter reads how long a response asks the client to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds or as an HTTP date (a date in
// the past means now). ok is false when the response says nothing usable.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(min(s, 1<<31)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// Wait is one pause before a retry, as reported to a Notify callback.
type Wait struct {
	Attempt int           // the retry about to be made, from 1
	Delay   time.Duration // how long until it is made
	Status  int           // the HTTP status that caused it; 0 for a connection failure
	Err     error         // what failed
	// Server is true when Delay is the server's Retry-After.
	Server bool
}

// String says what happens, for a status line: "rate limited, retrying in
// 3 s".
func (w Wait) String() string {
	in := "retrying in " + Seconds(w.Delay)
	switch {
	case w.Status == http.StatusTooManyRequests:
		return "rate limited, " + in
	case w.Status == http.StatusServiceUnavailable:
		return "the server is busy, " + in
	case w.Status != 0:
		return fmt.Sprintf("the server answered HTTP %d, %s", w.Status, in)
	case errors.Is(w.Err, ErrStreamCut):
		return "the answer's stream broke before it began, " + in
	}
	return "couldn't reach the server, " + in
}

// Seconds renders d as whole seconds, rounded up, at least 1: "3 s".
func Seconds(d time.Duration) string {
	s := int64(math.Ceil(d.Seconds()))
	return strconv.FormatInt(max(s, 1), 10) + " s"
}

// notifyKey carries a Notify callback in a context.
type notifyKey struct{}

// WithNotify returns a context whose requests report each retry wait to fn
// before it starts (as net/http/httptrace carries a ClientTrace): a face
// can then show "rate limited, retrying in 3 s". fn is called from the
// goroutine that made the request.
func WithNotify(ctx context.Context, fn func(Wait)) context.Context {
	return context.WithValue(ctx, notifyKey{}, fn)
}

func notify(ctx context.Context, w Wait) {
	if fn, ok := ctx.Value(notifyKey{}).(func(Wait)); ok && fn != nil {
		fn(w)
	}
}

// sleep waits d, or until ctx ends (then it returns ctx's error).
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

package llm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// doer is the HTTP client go-openai sends every request through. It is
// where the Policy and the timeouts live, once for all endpoints:
//
//   - each attempt gets firstByte to produce response headers, and each
//     read of the body may wait at most idle for the server (time spent by
//     the caller between reads does not count);
//   - failure statuses are retried as the Policy says and, once final,
//     returned as *StatusError (the response body is read and closed);
//   - connection failures are retried as the Policy says and, once final,
//     returned as *ConnectError or the cause;
//   - a request whose body cannot be replayed (no GetBody) is sent once.
//
// It is safe for concurrent use.
type doer struct {
	hc        *http.Client
	policy    Policy // with defaults filled
	firstByte time.Duration
	idle      time.Duration
	rnd       func() float64 // jitter source; nil: math/rand/v2
	base      string         // the API base URL, for ConnectError
	setting   string         // what named it (Config.Setting)
}

// connectError is the ConnectError of a failed attempt at req.
func (d *doer) connectError(req *http.Request, tries int, err error, broken bool) *ConnectError {
	return &ConnectError{Host: req.URL.Host, BaseURL: d.base, Setting: d.setting, Tries: tries, Err: err, Broken: broken}
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	retries, refused := 0, 0
	for tries := 1; ; tries++ {
		resp, err := d.once(req, tries > 1)
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		w := Wait{Attempt: tries}
		switch {
		case err != nil:
			var te *TimeoutError
			if errors.As(err, &te) {
				return nil, err
			}
			w.Err = err
			switch classify(err) {
			case connRefused:
				if refused >= d.policy.Refused || !replayable {
					return nil, d.connectError(req, tries, err, false)
				}
				refused++
			case connBroken:
				if retries >= d.policy.Retries || !replayable {
					return nil, d.connectError(req, tries, err, true)
				}
				retries++
			default:
				return nil, d.connectError(req, tries, err, false)
			}
			w.Delay = d.policy.Backoff(retries+refused-1, d.rnd)
		case resp.StatusCode >= 400 || resp.StatusCode < 200:
			se := readStatusError(resp)
			se.Tries = tries
			ra, hasRA := RetryAfter(resp.Header, time.Now())
			next := d.policy.Backoff(retries, d.rnd)
			if hasRA {
				next = ra
			}
			se.RetryAfter = next
			if !retryableStatus(se.Status) || se.Code == "insufficient_quota" || retries >= d.policy.Retries ||
				!replayable || hasRA && ra > d.policy.MaxRetryAfter {
				return nil, se
			}
			retries++
			w.Status, w.Err, w.Delay, w.Server = se.Status, se, next, hasRA
		default:
			return resp, nil
		}
		notify(ctx, w)
		if err := sleep(ctx, w.Delay); err != nil {
			return nil, err
		}
	}
}

// once sends one attempt of req under the first-byte timeout and wraps the
// response body with the idle timeout.
func (d *doer) once(req *http.Request, again bool) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	r := req.Clone(ctx)
	if again && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			cancel(nil)
			return nil, err
		}
		r.Body = body
	}
	var timer *time.Timer
	if d.firstByte > 0 {
		timer = time.AfterFunc(d.firstByte, func() { cancel(ErrFirstByteTimeout) })
	}
	resp, err := d.hc.Do(r)
	if timer != nil {
		timer.Stop()
	}
	if req.Context().Err() == nil && context.Cause(ctx) == ErrFirstByteTimeout {
		if resp != nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, &TimeoutError{Host: req.URL.Host, After: d.firstByte, cause: ErrFirstByteTimeout}
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	b := &body{rc: resp.Body, ctx: ctx, outer: req.Context(), cancel: cancel, idle: d.idle, host: req.URL.Host}
	if f, ok := req.Context().Value(doneKey{}).(*doneFlag); ok {
		b.done = f
	}
	if n, ok := req.Context().Value(bodyLimitKey{}).(int64); ok && resp.StatusCode < 300 {
		b.left = n
	}
	resp.Body = b
	return resp, nil
}

// connection failure classes.
const (
	connOther   = iota // not worth another try (DNS, certificates, bad URL)
	connRefused        // nothing listens there (yet)
	connBroken         // reset, closed or timed out before the answer
)

func classify(err error) int {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return connRefused
	case errors.As(err, &dns) && !dns.IsTemporary && !dns.IsTimeout,
		errors.As(err, &cert), errors.As(err, &unknownCA), errors.As(err, &hostname):
		return connOther
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return connBroken
	}
	var op *net.OpError
	var ne net.Error
	if errors.As(err, &op) || errors.As(err, &ne) {
		return connBroken
	}
	return connOther
}

// readStatusError reads (a bounded part of) a failure response and closes
// it.
func readStatusError(resp *http.Response) *StatusError {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg, code := parseErrorBody(bytes.TrimSpace(data))
	return &StatusError{Status: resp.StatusCode, Message: msg, Code: code}
}

// body is a response body under the idle timeout; it also tells a
// doneFlag what went by, so it can tell the stream's end from a cut.
type body struct {
	rc     io.ReadCloser
	ctx    context.Context // the attempt's; cancelled by the idle timer
	outer  context.Context // the caller's
	cancel context.CancelCauseFunc
	idle   time.Duration
	host   string
	done   *doneFlag
	left   int64 // bytes that may still be read (withBodyLimit); 0: no bound

	mu    sync.Mutex // guards timer
	timer *time.Timer
}

func (b *body) Read(p []byte) (int, error) {
	if b.left != 0 {
		if b.left < 0 {
			return 0, errAnswerTooLong
		}
		if int64(len(p)) > b.left {
			p = p[:b.left]
		}
	}
	if b.idle > 0 {
		b.mu.Lock()
		if b.timer == nil {
			b.timer = time.AfterFunc(b.idle, func() { b.cancel(ErrIdleTimeout) })
		} else {
			b.timer.Reset(b.idle)
		}
		b.mu.Unlock()
	}
	n, err := b.rc.Read(p)
	if b.idle > 0 {
		b.mu.Lock()
		b.timer.Stop()
		b.mu.Unlock()
	}
	if n > 0 && b.done != nil {
		b.done.see(p[:n])
	}
	if b.left > 0 {
		if b.left -= int64(n); b.left == 0 {
			b.left = -1 // the bound is reached: the next read fails
		}
	}
	if err != nil && err != io.EOF && b.outer.Err() == nil && context.Cause(b.ctx) == ErrIdleTimeout {
		return n, &TimeoutError{Host: b.host, After: b.idle, cause: ErrIdleTimeout}
	}
	return n, err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.mu.Lock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	b.cancel(nil)
	return err
}

// doneFlag records whether a response body carried the end of an
// OpenAI-compatible stream, a line "data: [DONE]" (go-openai reports that
// and a cut connection alike as io.EOF). Only a whole line counts, read as
// go-openai reads one (white space around it ignored, one optional space
// after "data:"), so "[DONE]" inside a chunk of the answer's text is not
// the end. Set it on a request's context with withDoneFlag.
type doneFlag struct {
	mu   sync.Mutex
	seen bool
	line []byte // the line being read, while it may still be the marker
	long bool   // the line being read is too long to be the marker
}

type doneKey struct{}

func withDoneFlag(ctx context.Context, f *doneFlag) context.Context {
	return context.WithValue(ctx, doneKey{}, f)
}

// maxDoneLine bounds the line kept: the marker with room for white space.
const maxDoneLine = 64

// see reads the next bytes of the body; a line split across reads is
// still read whole.
func (f *doneFlag) see(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(p) > 0 && !f.seen {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			f.add(p)
			return
		}
		f.add(p[:i])
		f.seen = !f.long && isDone(f.line)
		f.line, f.long = f.line[:0], false
		p = p[i+1:]
	}
}

// add appends part of a line.
func (f *doneFlag) add(p []byte) {
	if f.long {
		return
	}
	if len(f.line)+len(p) > maxDoneLine {
		f.line, f.long = f.line[:0], true
		return
	}
	f.line = append(f.line, p...)
}

// isDone reports whether line is the stream's last data line.
func isDone(line []byte) bool {
	v, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
	return ok && string(bytes.TrimPrefix(v, []byte(" "))) == "[DONE]"
}

// Seen reports whether the marker went by (a last line without its line
// end counts).
func (f *doneFlag) Seen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen || !f.long && isDone(f.line)
}

package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// Errors a caller can test for with errors.Is.
var (
	// ErrRateLimited: the server answered 429 or 503 until the retries ran
	// out (or asked for a longer wait than the policy allows).
	ErrRateLimited = errors.New("rate limited")
	// ErrFirstByteTimeout: the server accepted the request but sent
	// nothing back within the first-byte timeout.
	ErrFirstByteTimeout = errors.New("the server sent nothing back")
	// ErrIdleTimeout: the server stopped sending in the middle of an
	// answer for longer than the idle timeout.
	ErrIdleTimeout = errors.New("the server stopped sending")
	// ErrStreamCut: the stream ended before the answer was finished (no
	// finish_reason and no [DONE]).
	ErrStreamCut = errors.New("the model's stream ended before the answer was finished")
	// ErrUnreachable: no connection could be made to the server.
	ErrUnreachable = errors.New("couldn't connect to the server")
)

// StatusError is an HTTP failure status the server answered with, after
// any retries. Its message says what the status means for the user and
// what to do; Message is the server's own explanation, when it sent one.
type StatusError struct {
	Status  int
	Message string // the server's error message ("" if none)
	Code    string // the server's error code, e.g. "insufficient_quota"
	// RetryAfter, for 429 and 503, is when to try again: the server's
	// Retry-After, or the policy's next backoff when it gave none.
	RetryAfter time.Duration
	Tries      int // requests made
}

func (e *StatusError) Error() string {
	var s string
	switch e.Status {
	case http.StatusTooManyRequests:
		if e.Code == "insufficient_quota" {
			s = "the account's quota is used up (HTTP 429): check the plan and billing of the API key"
		} else {
			s = "rate limited, try again in " + Seconds(e.RetryAfter)
		}
	case http.StatusServiceUnavailable:
		s = "the server is busy (HTTP 503), try again in " + Seconds(e.RetryAfter)
	case http.StatusUnauthorized, http.StatusForbidden:
		s = fmt.Sprintf("the server refused the API key (HTTP %d): check OPENAI_API_KEY", e.Status)
	case http.StatusNotFound:
		s = "the server has no such model or endpoint (HTTP 404): check the model name and the base URL"
	default:
		s = fmt.Sprintf("the server answered HTTP %d", e.Status)
	}
	if e.Tries > 1 {
		s += fmt.Sprintf(" (after %d tries)", e.Tries)
	}
	if m := oneLine(e.Message, 300); m != "" {
		s += `; it said: "` + m + `"`
	}
	return s
}

// Is makes errors.Is(err, ErrRateLimited) true for 429 (except a used-up
// quota, which waiting does not cure) and 503.
func (e *StatusError) Is(target error) bool {
	return target == ErrRateLimited &&
		(e.Status == http.StatusTooManyRequests && e.Code != "insufficient_quota" || e.Status == http.StatusServiceUnavailable)
}

// Status returns the HTTP status of a StatusError in err's chain, or 0.
func Status(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// parseErrorBody reads the OpenAI error shape {"error": {"message", "code"}}
// (or {"error": "text"}, as some servers send), else takes the text itself.
func parseErrorBody(body []byte) (msg, code string) {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
			Type    string `json:"type"`
		}
		if json.Unmarshal(v.Error, &obj) == nil {
			code = fmt.Sprint(obj.Code)
			if obj.Code == nil {
				code = ""
			}
			if code == "" && obj.Type == "insufficient_quota" {
				code = obj.Type
			}
			return obj.Message, code
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s, ""
		}
	}
	return string(body), ""
}

// TimeoutError says the server went quiet: before its first byte
// (wrapping ErrFirstByteTimeout) or in the middle of an answer (wrapping
// ErrIdleTimeout).
type TimeoutError struct {
	Host  string
	After time.Duration
	cause error
}

func (e *TimeoutError) Error() string {
	if e.cause == ErrIdleTimeout {
		return fmt.Sprintf("the server at %s stopped sending for %v: it may be overloaded or stuck; try again, or check the server", e.Host, e.After)
	}
	return fmt.Sprintf("the server at %s accepted the request but sent nothing back for %v: it may be overloaded or stuck; try again, or check the server", e.Host, e.After)
}

func (e *TimeoutError) Unwrap() error { return e.cause }

// ConnectError says no connection could be made (it wraps ErrUnreachable
// and the cause) or, when Broken, that the connection broke before the
// server answered.
//
// Its advice names only what the user set: Setting when they named the
// server ("check --base-url"), running Ollama when ibid had found a local
// one by itself, both ways of naming a server when the origin is unknown.
type ConnectError struct {
	Host    string
	BaseURL string // the API base URL ("" if unknown: Host is said)
	Setting string // what named BaseURL (Config.Setting)
	Tries   int
	Err     error
	Broken  bool
}

func (e *ConnectError) Error() string {
	tries := ""
	if e.Tries > 1 {
		tries = fmt.Sprintf(" (after %d tries)", e.Tries)
	}
	if e.Broken {
		return fmt.Sprintf("the connection to %s broke before the server answered%s: %v; try again, or check the server", e.Host, tries, e.Err)
	}
	where := e.BaseURL
	if where == "" {
		where = e.Host
	}
	return fmt.Sprintf("no model answered at %s: %s; is the server running? (%s)", where, connectCause(e.Err), e.advice())
}

// advice is what to do about a refused or failed connection.
func (e *ConnectError) advice() string {
	switch {
	case e.Setting != "":
		return "check " + e.Setting
	case strings.HasPrefix(e.BaseURL, OllamaURL):
		return "set OPENAI_BASE_URL or run Ollama"
	}
	return "check OPENAI_BASE_URL or --base-url"
}

// connectCause says why a connection failed in a few words when the
// reason is a common one, else as net says it.
func connectCause(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host " + dns.Name
	case err == nil:
		return "no connection"
	}
	return err.Error()
}

// Is makes errors.Is(err, ErrUnreachable) true when no connection was
// made.
func (e *ConnectError) Is(target error) bool { return target == ErrUnreachable && !e.Broken }

func (e *ConnectError) Unwrap() error { return e.Err }

// oneLine is s on one line, at most n bytes (cut at a rune).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

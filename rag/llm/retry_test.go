package llm

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestBackoffJitterBounded(t *testing.T) {
	t.Parallel()
	p := Policy{Base: 100 * time.Millisecond, Max: 3 * time.Second}
	for attempt := range 12 {
		d := min(p.Max, p.Base<<attempt)
		if lo := p.Backoff(attempt, func() float64 { return 0 }); lo != d/2 {
			t.Errorf("attempt %d: lowest wait %v, want %v", attempt, lo, d/2)
		}
		if hi := p.Backoff(attempt, func() float64 { return 0.999999 }); hi > d || hi < d*99/100 {
			t.Errorf("attempt %d: highest wait %v, want just under %v", attempt, hi, d)
		}
		seen := map[time.Duration]bool{}
		for range 200 {
			w := p.Backoff(attempt, nil)
			if w < d/2 || w > d {
				t.Fatalf("attempt %d: wait %v outside [%v, %v]", attempt, w, d/2, d)
			}
			seen[w] = true
		}
		if len(seen) < 50 {
			t.Errorf("attempt %d: only %d distinct waits in 200: no jitter", attempt, len(seen))
		}
	}
	// A huge attempt number neither overflows nor exceeds Max.
	if w := p.Backoff(500, nil); w < p.Max/2 || w > p.Max {
		t.Errorf("attempt 500: %v", w)
	}
	// The zero policy takes the defaults.
	if w := (Policy{}).Backoff(0, func() float64 { return 0 }); w != DefaultBase/2 {
		t.Errorf("default first wait %v", w)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, true},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"milliseconds win", map[string]string{"Retry-After": "7", "Retry-After-Ms": "1500"}, 1500 * time.Millisecond, true},
		{"none", nil, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"huge", map[string]string{"Retry-After": "99999999999999"}, (1 << 31) * time.Second, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.header {
				h.Set(k, v)
			}
			got, ok := RetryAfter(h, now)
			if got != c.want || ok != c.ok {
				t.Errorf("RetryAfter = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestWaitString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		w    Wait
		want string
	}{
		{Wait{Status: 429, Delay: 2500 * time.Millisecond}, "rate limited, retrying in 3 s"},
		{Wait{Status: 503, Delay: time.Second}, "the server is busy, retrying in 1 s"},
		{Wait{Status: 502, Delay: 10 * time.Millisecond}, "the server answered HTTP 502, retrying in 1 s"},
		{Wait{Delay: 4 * time.Second}, "couldn't reach the server, retrying in 4 s"},
		{Wait{Delay: time.Second, Err: fmt.Errorf("%w: EOF", ErrStreamCut)}, "the answer's stream broke before it began, retrying in 1 s"},
	}
	for _, c := range cases {
		if got := c.w.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}

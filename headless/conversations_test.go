package headless

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ibid-dev/ibid/rag"
)

// Conversations: an empty id starts one; an unknown id starts one with
// that id only when asked to; the oldest is forgotten past the bound;
// Close keeps the last turns; answers in one conversation take turns.
func TestConversations(t *testing.T) {
	t.Parallel()
	c := NewConversations("lib", 2, 3)
	if _, ok := c.Open("nope", false); ok {
		t.Fatal("an unknown id was opened without create")
	}
	a, _ := c.Open("", false)
	if a.Conv.ID == "" || a.Conv.Library != "lib" {
		t.Fatalf("new conversation %+v", a.Conv)
	}
	for i := range 5 {
		a.Conv.Turns = append(a.Conv.Turns, rag.Turn{Question: strings.Repeat("q", i+1)})
	}
	a.Close()
	snap, ok := c.Snapshot(a.Conv.ID)
	if !ok || len(snap.Turns) != 3 || snap.Turns[0].Question != "qqq" {
		t.Fatalf("after Close: %v %+v", ok, snap)
	}
	b, ok := c.Open("mine", true)
	if !ok || b.Conv.ID != "mine" {
		t.Fatalf("create with an id: %v %+v", ok, b)
	}
	// b is held: another answer in it waits for Close.
	opened := make(chan *Held)
	go func() {
		h, _ := c.Open("mine", false)
		opened <- h
	}()
	select {
	case <-opened:
		t.Fatal("a held conversation was opened twice at once")
	case <-time.After(50 * time.Millisecond):
	}
	b.Close()
	h := <-opened
	if h != b {
		t.Fatal("the id opened another conversation")
	}
	h.Close()
	third, _ := c.Open("", false)
	third.Close()
	if _, ok := c.Snapshot(a.Conv.ID); ok {
		t.Error("the oldest of three was kept, bound 2")
	}
	if _, ok := c.Open("mine", false); !ok {
		t.Error("a kept conversation was forgotten")
	}
}

// RequireBearer refuses a request without the token, 401 in JSON and
// before the handler runs, and serves one with it; no token, no check.
func TestRequireBearer(t *testing.T) {
	t.Parallel()
	served := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served++ })
	srv := httptest.NewServer(RequireBearer("s3cret", next))
	defer srv.Close()
	for _, tc := range []struct {
		auth   string
		status int
	}{{"", 401}, {"Bearer wrong", 401}, {"s3cret", 401}, {"Bearer s3cret", 200}} {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader("{}"))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tc.status {
			t.Errorf("%q: %s", tc.auth, r.Status)
		}
		if tc.status == 401 && (!strings.Contains(string(b), `"error":"a bearer token is required`) || r.Header.Get("WWW-Authenticate") == "") {
			t.Errorf("%q: 401 %s %v", tc.auth, b, r.Header)
		}
	}
	if served != 1 {
		t.Errorf("served %d requests, want the one with the token", served)
	}
	rec := httptest.NewRecorder()
	RequireBearer("", next).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 200 || served != 2 {
		t.Errorf("without a token: %d, served %d", rec.Code, served)
	}
}

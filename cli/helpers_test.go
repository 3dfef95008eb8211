package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ibid-dev/ibid/rag/ingest/pdf/pdftest"
)

// runCmd runs ibid with args on the process's environment and returns
// its exit status, stdout and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, Env{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: os.Getenv})
	return code, out.String(), errb.String()
}

// cmdEnv gives the test its own data and cache folders, clears the
// variables that would change the commands' defaults, and writes a few
// notes; it returns their folder.
func cmdEnv(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(tmp, "data"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	pdftest.ShareEngineCache(filepath.Join(tmp, "cache")) // pdfium compiled once, not per test
	for _, v := range []string{"IBID_LIBRARY", "IBID_EMBED_MODEL", "IBID_STORE", "IBID_RERANK_MODEL", "IBID_ENRICH_MODEL"} {
		t.Setenv(v, "")
	}
	docs := filepath.Join(tmp, "docs")
	for name, text := range map[string]string{
		"tides.md":   "# Tides\n\nThe Moon's gravity raises two tidal bulges; spring tides come at new and full moon.\n",
		"bread.txt":  "Sourdough bread rises because wild yeast and lactobacilli ferment the dough.\n",
		"binary.dat": "\x00\x01\x02garbage\xff",
	} {
		p := filepath.Join(docs, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// fakeEmbeddings is an OpenAI-compatible /embeddings endpoint: each text's
// vector (dimension 8) counts its words by hash. It counts the requests.
func fakeEmbeddings(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
		}{Object: "list", Model: req.Model}
		for i, text := range req.Input {
			v := make([]float32, 8)
			for _, w := range strings.Fields(strings.ToLower(text)) {
				v[len(w)%8]++
			}
			v[0] += 0.5
			resp.Data = append(resp.Data, item{"embedding", i, v})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// localServer is what the probe of a local address found: a server and
// the models it lists, in its order.
type localServer struct {
	server string // "Ollama", or the address of an OpenAI-compatible server
	base   string // the address probed, e.g. http://127.0.0.1:11434
	models []string
	ollama bool // it answered Ollama's /api/tags
}

// probeLocal looks for a model server at base within ollamaProbeTimeout:
// Ollama's /api/tags first, else an OpenAI-compatible /v1/models. Nothing
// listening, a slow answer or neither listing means none (ok false).
func probeLocal(ctx context.Context, hc *http.Client, base string) (localServer, bool) {
	ctx, cancel := context.WithTimeout(ctx, ollamaProbeTimeout)
	defer cancel()
	var tags struct {
		Models json.RawMessage `json:"models"` // present, even empty or null, in Ollama's answer
	}
	err := getJSON(ctx, hc, base+"/api/tags", &tags)
	var models []struct {
		Name string `json:"name"`
	}
	if err == nil && len(tags.Models) > 0 && json.Unmarshal(tags.Models, &models) == nil {
		s := localServer{server: "Ollama", base: base, ollama: true}
		for _, m := range models {
			s.models = append(s.models, m.Name)
		}
		return s, true
	}
	if err != nil && (errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil) {
		return localServer{}, false // nothing there, or too slow
	}
	var list struct {
		Object string `json:"object"` // "list"
		Data   []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := getJSON(ctx, hc, base+"/v1/models", &list); err != nil || list.Object != "list" && list.Data == nil {
		return localServer{}, false
	}
	s := localServer{server: strings.TrimPrefix(strings.TrimPrefix(base, "http://"), "https://"), base: base}
	for _, m := range list.Data {
		s.models = append(s.models, m.ID)
	}
	return s, true
}

// getJSON decodes the JSON answer of a GET of url into v; any status but
// 200 is an error.
func getJSON(ctx context.Context, hc *http.Client, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// maxListed bounds how many model names an error lists.
const maxListed = 8

// pick returns the model to use: want when the server lists it (with
// Ollama, "llama3.2" also names "llama3.2:latest"), the first listed when
// want is "". An unknown want, or a server listing nothing, is an error
// that says what the server has and how to get a model.
func (s localServer) pick(want string) (string, error) {
	get := "pick one with --model"
	if s.ollama {
		get = "ollama pull NAME, or pick one with --model"
	}
	if len(s.models) == 0 {
		if s.ollama {
			return "", fmt.Errorf("the local Ollama (%s) has no model: ollama pull NAME (e.g. ollama pull llama3.2), or set IBID_NO_OLLAMA to answer without it", s.base)
		}
		return "", fmt.Errorf("the server at %s lists no model: load one, or set IBID_NO_OLLAMA to answer without it", s.base)
	}
	if want == "" {
		return s.models[0], nil
	}
	for _, m := range s.models {
		if m == want || s.ollama && m == want+":latest" {
			return m, nil
		}
	}
	has := s.models
	more := ""
	if len(has) > maxListed {
		has, more = has[:maxListed], fmt.Sprintf(" and %d more", len(s.models)-maxListed)
	}
	where := "the server at " + s.base
	if s.ollama {
		where = "the local Ollama (" + s.base + ")"
	}
	return "", fmt.Errorf("no model %q on %s; it has %s%s (%s)", want, where, strings.Join(has, ", "), more, get)
}

// servedCheckTimeout bounds checkServed: a slow or absent server must not
// hold up the start, since the first request reports it anyway.
const servedCheckTimeout = 3 * time.Second

// checkServed returns an error when the server of cfg lists its models
// and want is not among them (with Ollama's naming, "llama3.2" also names
// "llama3.2:latest"). It asks /v1/models, and when that is not found,
// Ollama's /api/tags beside it (the base URL without its /v1). It makes one
// attempt, without retries, within servedCheckTimeout; a server without a
// model list (404 on both), one that lists none (some proxies) or one that
// cannot be asked now is accepted: what is wrong then shows at the first
// request, as before the check.
func checkServed(ctx context.Context, cfg Config, want string) error {
	ctx, cancel := context.WithTimeout(ctx, servedCheckTimeout)
	defer cancel()
	cfg.Policy = Policy{Retries: -1, Refused: -1}
	c := New(cfg)
	list, err := c.Models(ctx)
	if Status(err) == http.StatusNotFound {
		hc := cfg.HTTPClient
		if hc == nil {
			hc = &http.Client{}
		}
		list, err = ollamaTags(ctx, hc, strings.TrimSuffix(c.BaseURL(), "/v1"))
	}
	if err != nil || len(list) == 0 {
		return nil
	}
	for _, m := range list {
		if m == want || m == want+":latest" {
			return nil
		}
	}
	has, more := list, ""
	if len(has) > maxListed {
		has, more = has[:maxListed], fmt.Sprintf(" and %d more", len(list)-maxListed)
	}
	return fmt.Errorf("model %q is not served at %s; it has: %s%s (choose one with --model)", want, c.BaseURL(), strings.Join(has, ", "), more)
}

// ollamaTags lists the models of the Ollama at base (its /api/tags); an
// answer without a "models" field is no Ollama (nil, nil).
func ollamaTags(ctx context.Context, hc *http.Client, base string) ([]string, error) {
	var tags struct {
		Models *[]struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := getJSON(ctx, hc, base+"/api/tags", &tags); err != nil {
		return nil, err
	}
	if tags.Models == nil {
		return nil, nil
	}
	out := []string{}
	for _, m := range *tags.Models {
		out = append(out, m.Name)
	}
	return out, nil
}

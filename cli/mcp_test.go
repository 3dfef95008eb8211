package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/internal/testmain"
	"github.com/ibid-dev/ibid/rag/llmtest"
)

// asIbid, set in a test binary's environment, makes it ibid: TestMain
// hands its arguments to Main, as main.go does, instead of running the
// tests. The tests that run ibid as a process (ibidBinary) run this test
// binary so, rather than build and link one (seconds of CPU and most of
// a GB for the linker).
const asIbid = "IBID_TEST_RUN_AS_IBID"

func TestMain(m *testing.M) {
	if os.Getenv(asIbid) == "1" {
		os.Exit(Main(context.Background(), append([]string{"ibid"}, os.Args[1:]...)))
	}
	testmain.Main(m)
}

// ibidBinary returns the path of a program that is ibid in the test's
// environment (this test binary with asIbid set: see TestMain).
func ibidBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs ibid as a process")
	}
	t.Setenv(asIbid, "1")
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// mcpEnv is askEnv with the notes added to the default library and a
// fake model configured through the environment, as an assistant's
// configuration would set it.
func mcpEnv(t *testing.T, model *llmtest.Server) {
	t.Helper()
	docs := askEnv(t)
	if code, out, errs := runCmd(t, "add", docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	t.Setenv("OPENAI_BASE_URL", model.BaseURL())
	t.Setenv("IBID_MODEL", "fake-model")
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	return res, out
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPStdio runs ibid as a desktop assistant does (ibid mcp
// on standard input and output) and talks to it with the SDK's client:
// initialize, list the tools, call each, a bad argument, a cancelled call.
func TestMCPStdio(t *testing.T) {
	bin := ibidBinary(t)
	model := llmtest.New(
		llmtest.Reply{Chunks: llmtest.Split("Spring tides come at new and full moon [source_1].", 4)},
		llmtest.Reply{Chunks: []string{"Yeast "}, Hang: true})
	defer model.Close()
	mcpEnv(t, model)

	cmd := exec.Command(bin, "mcp")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init.ServerInfo.Name != "ibid" || !strings.Contains(init.Instructions, `"default"`) {
		t.Errorf("initialize: %+v", init)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "ask get_passage list_documents search" {
		t.Errorf("tools %v", names)
	}

	_, docs := callTool(t, cs, "list_documents", nil)
	if docs["total"] != 2.0 {
		t.Errorf("list_documents: %v\n%s", docs, stderr.String())
	}
	_, found := callTool(t, cs, "search", map[string]any{"query": "spring tides moon", "k": 2})
	passages, _ := found["passages"].([]any)
	if len(passages) == 0 {
		t.Fatalf("search: %v", found)
	}
	first := passages[0].(map[string]any)
	if first["title"] != "Tides" || !strings.Contains(first["text"].(string), "spring tides") {
		t.Errorf("search's first passage: %v", first)
	}
	_, read := callTool(t, cs, "get_passage", map[string]any{"segment_id": first["segment_id"]})
	if read["segment_id"] != first["segment_id"] || !strings.Contains(read["text"].(string), "tidal bulges") {
		t.Errorf("get_passage: %v", read)
	}
	res, answer := callTool(t, cs, "ask", map[string]any{"question": "when are spring tides?"})
	if res.IsError || !strings.HasPrefix(resultText(res), "Spring tides come at new and full moon [1].\n\nSources:\n[1] Tides, ") {
		t.Errorf("ask: %s", resultText(res))
	}
	if fns, _ := answer["footnotes"].([]any); len(fns) != 1 || fns[0].(map[string]any)["quote"] == "" {
		t.Errorf("ask's footnotes: %v", answer["footnotes"])
	}

	res, _ = callTool(t, cs, "search", map[string]any{"query": "tides", "k": 1000000})
	if !res.IsError || !strings.Contains(resultText(res), "maximum") {
		t.Errorf("k of a million: %v %s", res.IsError, resultText(res))
	}

	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "how does bread rise?"}})
		done <- err
	}()
	for len(model.Requests()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	select {
	case <-model.Gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the model's request went on after the call was cancelled")
	}
	if _, docs = callTool(t, cs, "list_documents", nil); docs["total"] != 2.0 {
		t.Errorf("after the cancel: %v", docs)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), `ibid: MCP server for library "default" on standard input and output (model: fake-model)`) {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPHTTP runs ibid with --addr and a token: a request
// without the token is refused, the SDK's client with it is served.
func TestMCPHTTP(t *testing.T) {
	bin := ibidBinary(t)
	model := llmtest.New(llmtest.Reply{Chunks: []string{"Spring tides come at new and full moon [source_1]."}})
	defer model.Close()
	mcpEnv(t, model)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "mcp", "--addr", "127.0.0.1:0", "--token", "s3cret")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cancel()
	addr := regexp.MustCompile(`on (http://\S+/mcp)`)
	var endpoint string
	sc := bufio.NewScanner(stderr)
	for endpoint == "" && sc.Scan() {
		if m := addr.FindStringSubmatch(sc.Text()); m != nil {
			endpoint = m[1]
		}
	}
	if endpoint == "" {
		t.Fatal("ibid mcp --addr never said where it listens")
	}
	go io.Copy(io.Discard, stderr)

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %s", resp.Status)
	}

	tr := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, _ := callTool(t, cs, "ask", map[string]any{"question": "when are spring tides?"})
	if res.IsError || !strings.HasPrefix(resultText(res), "Spring tides come at new and full moon [1].") {
		t.Errorf("ask over HTTP: %s", resultText(res))
	}
}

// TestMCPRefusesOpenAddressWithoutToken: as serve does.
func TestMCPRefusesOpenAddressWithoutToken(t *testing.T) {
	askEnv(t)
	t.Setenv("IBID_TOKEN", "")
	code, _, errs := runCmd(t, "mcp", "--addr", "0.0.0.0:0")
	if code == 0 || !strings.Contains(errs, "is not a loopback address: set --token") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// inProcessMCP runs `ibid mcp args...` in this process on a pair of pipes
// and connects the SDK's client to it; the server stops with the test.
func inProcessMCP(t *testing.T, args ...string) *sdk.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), append([]string{"mcp"}, args...), Env{In: inR, Out: outW, Err: &stderr, Getenv: os.Getenv})
		outW.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		if code := <-done; code != 0 {
			t.Errorf("ibid mcp: exit %d\n%s", code, stderr.String())
		}
	})
	return cs
}

// TestMCPOnPostgres: the MCP server on a PostgreSQL library
// (IBID_TEST_POSTGRES; skipped without it) searches, lists and answers
// as on the embedded store.
func TestMCPOnPostgres(t *testing.T) {
	url := os.Getenv("IBID_TEST_POSTGRES")
	if url == "" {
		t.Skip("IBID_TEST_POSTGRES not set (docs/postgres.md says how to start a test server)")
	}
	docs := askEnv(t)
	lib := fmt.Sprintf("mcp-test-%d", time.Now().UnixNano())
	if code, out, errs := runCmd(t, "add", "--store", url, "--library", lib, docs); code != 0 {
		t.Fatalf("add: %d %s %s", code, out, errs)
	}
	defer runCmd(t, "rm", "--all", "--store", url, "--library", lib)
	cs := inProcessMCP(t, "--store", url, "--library", lib)
	if _, docs := callTool(t, cs, "list_documents", nil); docs["total"] != 2.0 {
		t.Errorf("list_documents: %v", docs)
	}
	_, found := callTool(t, cs, "search", map[string]any{"query": "sourdough yeast"})
	if ps, _ := found["passages"].([]any); len(ps) == 0 || ps[0].(map[string]any)["title"] != "bread" {
		t.Errorf("search: %v", found)
	}
	res, _ := callTool(t, cs, "ask", map[string]any{"question": "Why does sourdough bread rise?"})
	if res.IsError || !strings.Contains(resultText(res), "wild yeast") || !strings.Contains(resultText(res), "[1]") {
		t.Errorf("ask: %s", resultText(res))
	}
}

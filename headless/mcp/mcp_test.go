package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/llm"
	"github.com/ibid-dev/ibid/rag/llmtest"
	"github.com/ibid-dev/ibid/rag/ragtest"
	"github.com/ibid-dev/ibid/store"
)

// testLibrary is ragtest's sample (bees, ocean) and a document with
// bibliographic metadata.
func testLibrary() *ragtest.Library {
	return ragtest.Sample().Add(store.Document{ID: "d3", Title: "Radioactive Substances", Path: "/papers/curie.pdf", Format: "pdf",
		Meta: map[string]string{"authors": `["Curie, Marie"]`, "year": "1903", "abstract": "On radium."}},
		ragtest.Seg("Radium glows faintly in the dark and warms its surroundings.", 12, "Radium"))
}

// session connects the SDK's own client to a server over cfg through an
// in-memory transport.
func session(t *testing.T, cfg Config, opt *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	if cfg.Library == nil {
		cfg.Library = testLibrary()
	}
	if cfg.Answerer == nil {
		cfg.Answerer = rag.NewAnswerer(nil)
	}
	cfg.LibraryName = "papers"
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := New(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, opt).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func connectModel(t *testing.T, srv *llmtest.Server) rag.Answerer {
	t.Helper()
	m, err := llm.Connect(context.Background(), llm.ModelConfig{Config: llm.Config{BaseURL: srv.BaseURL()}, Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	return rag.NewAnswerer(m)
}

// call calls a tool and decodes its structured result into out (when not
// nil); it fails the test on a protocol error, and returns the result.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		reflect.ValueOf(out).Elem().SetZero()
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v: %s", name, err, b)
		}
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestTools: the server says what it is for and lists its four tools,
// each described for a model, with a schema that bounds what it takes.
func TestTools(t *testing.T) {
	cs := session(t, Config{}, nil)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "ibid" || !strings.Contains(init.Instructions, `"papers"`) || !strings.Contains(init.Instructions, "[n]") {
		t.Errorf("initialize: %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	schemas := map[string]string{}
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 100 || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.OutputSchema == nil {
			t.Errorf("%s: description %q, annotations %+v", tool.Name, tool.Description, tool.Annotations)
		}
		b, _ := json.Marshal(tool.InputSchema)
		schemas[tool.Name] = string(b)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "ask get_passage list_documents search" {
		t.Errorf("tools %v", names)
	}
	for tool, want := range map[string][]string{
		"search":      {`"required":["query"]`, `"maximum":50`, `"default":8`, `"pages"`, `"section"`, `"document"`},
		"ask":         {`"required":["question"]`, `"conversation_id"`},
		"get_passage": {`"required":["segment_id"]`, `"maximum":5`},
	} {
		for _, w := range want {
			if !strings.Contains(schemas[tool], w) {
				t.Errorf("%s's input schema lacks %s: %s", tool, w, schemas[tool])
			}
		}
	}
}

// TestSearch: passages with their ids, document data and text, narrowed
// by each filter.
func TestSearch(t *testing.T) {
	cs := session(t, Config{}, nil)
	var got searchResult
	call(t, cs, "search", map[string]any{"query": "bee colonies mites"}, &got)
	if len(got.Passages) == 0 || got.Passages[0].SegmentID != "d1:4" || got.Passages[0].Title != "Bees and Flowers" ||
		got.Passages[0].Pages != "p. 4" || got.Passages[0].Section != "3 Results" || !strings.Contains(got.Passages[0].Text, "mites spread viruses") {
		t.Fatalf("search: %+v", got)
	}
	call(t, cs, "search", map[string]any{"query": "radium glows", "k": 1}, &got)
	if len(got.Passages) != 1 || got.Passages[0].SegmentID != "d3:0" || strings.Join(got.Passages[0].Authors, ";") != "Curie, Marie" || got.Passages[0].Year != "1903" {
		t.Errorf("authors and year: %+v", got.Passages)
	}
	for _, tc := range []struct {
		args map[string]any
		want string // every passage's document and page
	}{
		{map[string]any{"query": "bees water", "document": "d2"}, "d2"},
		{map[string]any{"query": "bees pollinate mites", "pages": "4"}, "d1 p. 4"},
		{map[string]any{"query": "bees pollinate mites", "pages": "2-3"}, "d1 p. 3"},
		{map[string]any{"query": "bees pollinate mites", "section": "results"}, "d1 p. 4"},
	} {
		call(t, cs, "search", tc.args, &got)
		if len(got.Passages) == 0 {
			t.Errorf("%v: no passage", tc.args)
		}
		for _, p := range got.Passages {
			if where := strings.TrimSpace(p.DocumentID + " " + p.Pages); where != tc.want {
				t.Errorf("%v: passage %s in %q, want %q", tc.args, p.SegmentID, where, tc.want)
			}
		}
	}
	// Hits next to each other are one passage: its id is the better hit's,
	// its text both, in reading order.
	call(t, cs, "search", map[string]any{"query": "losses higher north mites", "k": 3}, &got)
	if p := got.Passages[0]; p.SegmentID != "d1:5" || p.Text != "Bee colonies collapse when mites spread viruses. Beekeepers treat hives twice a year.\n\nLosses were higher in the north." {
		t.Errorf("merged hits: %+v", p)
	}
	call(t, cs, "search", map[string]any{"query": "zebra quantum"}, &got)
	if len(got.Passages) != 0 || !strings.Contains(got.Note, "no passage matches") {
		t.Errorf("nothing found: %+v", got)
	}
}

// TestBadArguments: what a tool cannot do is a tool error with a message
// a model can act on, never a protocol error or a crash.
func TestBadArguments(t *testing.T) {
	cs := session(t, Config{}, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "bees", "k": 1000000}, "maximum"},
		{"search", map[string]any{"query": "bees", "k": "many"}, "integer"},
		{"search", map[string]any{"k": 3}, "query"},
		{"search", map[string]any{"query": "   "}, "query is empty"},
		{"search", map[string]any{"query": "bees", "pages": "five"}, "give one page (7) or a range (3-5)"},
		{"search", map[string]any{"query": "bees", "pages": "5-3"}, "give one page (7) or a range (3-5)"},
		{"get_passage", map[string]any{"segment_id": "nope:1"}, `no passage "nope:1" in library "papers"`},
		{"get_passage", map[string]any{"segment_id": "d1:0", "neighbours": 9}, "maximum"},
		{"list_documents", map[string]any{"limit": 5000}, "maximum"},
		{"ask", map[string]any{"question": ""}, "question is empty"},
		{"ask", map[string]any{"question": "bees?", "conversation_id": "gone"}, `no conversation "gone"`},
	} {
		res := call(t, cs, tc.tool, tc.args, nil)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v: error %v, %q; want one saying %q", tc.tool, tc.args, res.IsError, text(res), tc.want)
		}
	}
	// The server still answers.
	var got searchResult
	call(t, cs, "search", map[string]any{"query": "bees"}, &got)
	if len(got.Passages) == 0 {
		t.Error("no answer after the bad calls")
	}
}

// TestAskExtractive: with no model, ask quotes the library: the answer
// carries its footnotes and sources, each footnote its segment and quote.
func TestAskExtractive(t *testing.T) {
	cs := session(t, Config{}, nil)
	var got askResult
	res := call(t, cs, "ask", map[string]any{"question": "Which bees pollinate almond orchards?"}, &got)
	if res.IsError {
		t.Fatal(text(res))
	}
	if text(res) != got.Answer || !strings.Contains(got.Answer, "[1]") || !strings.Contains(got.Answer, "\nSources:\n[1] Bees and Flowers, p. 3") ||
		!strings.Contains(got.Answer, "(segment d1:0)") || !strings.Contains(got.Answer, "Note: ") {
		t.Errorf("answer:\n%s", got.Answer)
	}
	if len(got.Footnotes) == 0 || got.Footnotes[0].Number != 1 || got.Footnotes[0].SegmentID != "d1:0" ||
		got.Footnotes[0].Quote != "Honey bees pollinate almond orchards in California." || got.Footnotes[0].Boxes != nil {
		t.Errorf("footnotes %+v", got.Footnotes)
	}
	if got.Model != "extractive" || got.ConversationID == "" {
		t.Errorf("model %q, conversation %q", got.Model, got.ConversationID)
	}
}

// TestAskModel: a model's answer, with progress reported to a client that
// asks for it, and a follow-up that the model sees with the first answer.
func TestAskModel(t *testing.T) {
	model := llmtest.New(
		llmtest.Reply{Chunks: llmtest.Split("Bees pollinate almonds [source_1]; mites spread viruses [source_2].", 5)},
		llmtest.Reply{Chunks: []string{"Twice a year [source_2]."}})
	defer model.Close()
	var mu sync.Mutex
	var progress []string
	cs := session(t, Config{Answerer: connectModel(t, model)}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Message)
			mu.Unlock()
		},
	})
	params := &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "What do bees pollinate, and what harms them?"}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	var got askResult
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &got)
	if !strings.HasPrefix(got.Answer, "Bees pollinate almonds [1]; mites spread viruses [2].\n\nSources:\n[1] ") || len(got.Footnotes) != 2 || got.Model != "fake-model" {
		t.Errorf("answer %q, footnotes %d, model %q", got.Answer, len(got.Footnotes), got.Model)
	}
	if got.Footnotes[1].SegmentID != "d1:4" || !strings.Contains(got.Footnotes[1].Quote, "mites spread viruses") {
		t.Errorf("footnote 2: %+v", got.Footnotes[1])
	}
	// Notifications may trail the result a little.
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		p := strings.Join(progress, " | ")
		mu.Unlock()
		if strings.Contains(p, "done: 2 sources") || time.Now().After(deadline) {
			if !strings.HasPrefix(p, "searching library papers") || !strings.Contains(p, "cited [1] Bees and Flowers, p. 3") || !strings.Contains(p, "cited [2]") {
				t.Errorf("progress: %s", p)
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}

	var again askResult
	call(t, cs, "ask", map[string]any{"question": "How often are hives treated?", "conversation_id": got.ConversationID}, &again)
	if again.ConversationID != got.ConversationID || !strings.HasPrefix(again.Answer, "Twice a year [1].") {
		t.Errorf("follow-up: %+v", again)
	}
	reqs := model.Requests()
	msgs := reqs[len(reqs)-1].Chat()
	if len(msgs) != 4 || msgs[2].Content != "Bees pollinate almonds [source_1]; mites spread viruses [source_2]." {
		t.Errorf("the follow-up's messages to the model: %+v", msgs)
	}
}

// TestAskModelFails: a model that refuses the key is a tool error that
// says what to check.
func TestAskModelFails(t *testing.T) {
	model := llmtest.New(llmtest.Reply{Status: http.StatusUnauthorized})
	defer model.Close()
	cs := session(t, Config{Answerer: connectModel(t, model)}, nil)
	res := call(t, cs, "ask", map[string]any{"question": "bees?"}, nil)
	if !res.IsError || !strings.Contains(text(res), "check OPENAI_API_KEY") {
		t.Errorf("error %v: %s", res.IsError, text(res))
	}
}

// TestAskCancelled: a client that cancels its call stops the model's
// request; the session goes on.
func TestAskCancelled(t *testing.T) {
	model := llmtest.New(llmtest.Reply{Chunks: []string{"Bees "}, Hang: true})
	defer model.Close()
	cs := session(t, Config{Answerer: connectModel(t, model)}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "bees?"}})
		done <- err
	}()
	for len(model.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	select {
	case <-model.Gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the model's request went on after the call was cancelled")
	}
	var got listResult
	call(t, cs, "list_documents", nil, &got)
	if got.Total != 3 {
		t.Errorf("after the cancel: %+v", got)
	}
}

// TestGetPassage: a passage with its neighbours in reading order.
func TestGetPassage(t *testing.T) {
	cs := session(t, Config{}, nil)
	var got passageResult
	call(t, cs, "get_passage", map[string]any{"segment_id": "d1:4", "neighbours": 2}, &got)
	ids := func(ns []neighbour) string {
		var s []string
		for _, n := range ns {
			s = append(s, n.SegmentID)
		}
		return strings.Join(s, " ")
	}
	if got.SegmentID != "d1:4" || got.Pages != "p. 4" || !strings.HasPrefix(got.Text, "Bee colonies collapse") ||
		ids(got.Before) != "d1:2 d1:3" || ids(got.After) != "d1:5 d1:6" || got.After[1].Pages != "p. 5" {
		t.Errorf("passage %+v", got)
	}
	call(t, cs, "get_passage", map[string]any{"segment_id": "d1:0"}, &got)
	if len(got.Before) != 0 || ids(got.After) != "d1:1" {
		t.Errorf("first passage, default neighbours: before %v after %v", got.Before, got.After)
	}
}

// TestListDocuments: pages and a filter.
func TestListDocuments(t *testing.T) {
	cs := session(t, Config{}, nil)
	var got listResult
	call(t, cs, "list_documents", map[string]any{"limit": 2}, &got)
	if got.Total != 3 || len(got.Documents) != 2 || got.NextOffset != 2 || got.Documents[0].DocumentID != "d1" || got.Documents[0].Passages != 9 {
		t.Errorf("first page %+v", got)
	}
	call(t, cs, "list_documents", map[string]any{"offset": 2}, &got)
	if len(got.Documents) != 1 || got.NextOffset != 0 || got.Documents[0].Year != "1903" {
		t.Errorf("second page %+v", got)
	}
	call(t, cs, "list_documents", map[string]any{"filter": "OCEAN"}, &got)
	if got.Total != 1 || got.Documents[0].URL != "https://example.org/ocean" {
		t.Errorf("filtered %+v", got)
	}
}

// TestResources: each document is a resource with its metadata.
func TestResources(t *testing.T) {
	cs := session(t, Config{}, nil)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI+" "+r.Title)
	}
	if strings.Join(uris, ", ") != "ibid://library/d1 Bees and Flowers, ibid://library/d2 Ocean Currents, ibid://library/d3 Radioactive Substances" {
		t.Errorf("resources %v", uris)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "ibid://library/d3"})
	if err != nil {
		t.Fatal(err)
	}
	var doc resourceJSON
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil || doc.Title != "Radioactive Substances" || doc.Abstract != "On radium." || doc.Authors[0] != "Curie, Marie" {
		t.Errorf("document %+v (%v)", doc, err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "ibid://library/nope"}); err == nil {
		t.Error("an unknown document was read")
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "ibid://library/{document_id}" {
		t.Errorf("templates %+v, %v", templates, err)
	}
}

// TestNullArguments: a call whose arguments are JSON null is a call
// without arguments (the SDK alone would panic on the schema's defaults).
func TestNullArguments(t *testing.T) {
	cs := session(t, Config{}, nil)
	var none map[string]any
	var got listResult
	if res := call(t, cs, "list_documents", none, &got); res.IsError || got.Total != 3 || len(got.Documents) != 3 {
		t.Errorf("%v %s: %+v", res.IsError, text(res), got)
	}
	res := call(t, cs, "search", none, nil)
	if !res.IsError || !strings.Contains(text(res), "query") {
		t.Errorf("search without arguments: %v %s", res.IsError, text(res))
	}
}

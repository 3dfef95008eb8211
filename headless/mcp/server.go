// Package mcp is ibid's Model Context Protocol server (`ibid mcp`): the
// library as tools an assistant (Claude Desktop, Cursor, VS Code, …)
// calls, on the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Tools: search (passages for a query, with filters), ask (a cited answer:
// the pipeline's answer with its footnotes, each with the passage's words),
// get_passage (a passage with its neighbours), list_documents. Resources:
// each document's metadata at ibid://library/{document_id}.
//
// ask consumes the answer pipeline's events (rag.Event) through
// headless.Reply, as the chat-completions face does: nothing here parses a
// citation or judges one. Every failure a model can act on is a tool
// result with IsError set and a sentence that says what to do; output is
// bounded (k, limits, quotes).
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/headless"
	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/store"
)

// Library is what the server needs of a library: retrieval and segments
// for answering, a document's segments in order (for neighbours), and its
// documents. *library.Library implements it (and ragtest.Library).
type Library interface {
	rag.Retriever
	Segments(ctx context.Context, docID string) ([]store.Segment, error)
	Documents(ctx context.Context) ([]store.Document, error)
	Document(ctx context.Context, id string) (store.Document, error)
}

// Config configures New.
type Config struct {
	Library     Library
	LibraryName string
	// Answerer answers ask (rag.NewAnswerer: a model's, or the extractive
	// one).
	Answerer rag.Answerer
	// Options are the pipeline's options for ask.
	Options rag.PipelineOptions
	// Version is ibid's version, told to clients.
	Version string
	// MaxConversations bounds the conversations ask keeps for follow-up
	// questions (the oldest is forgotten); default 100. MaxTurns bounds
	// the turns each keeps; default 20.
	MaxConversations, MaxTurns int
}

// server holds what the tools share.
type server struct {
	cfg      Config
	pipeline *rag.Pipeline
	convs    *headless.Conversations
}

// New returns the MCP server of the library cfg names, with its tools and
// resources. Run it on a transport (sdk.StdioTransport) or serve it over
// HTTP (Handler).
func New(cfg Config) *sdk.Server {
	if cfg.MaxConversations <= 0 {
		cfg.MaxConversations = 100
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 20
	}
	s := &server{cfg: cfg, pipeline: rag.NewPipeline(cfg.Library, cfg.Answerer, cfg.Options),
		convs: headless.NewConversations(cfg.LibraryName, cfg.MaxConversations, cfg.MaxTurns)}
	srv := sdk.NewServer(&sdk.Implementation{Name: "ibid", Title: "ibid: " + cfg.LibraryName, Version: cfg.Version},
		&sdk.ServerOptions{Instructions: s.instructions()})
	s.addSearch(srv)
	s.addAsk(srv)
	s.addGetPassage(srv)
	s.addListDocuments(srv)
	s.addResources(srv)
	srv.AddReceivingMiddleware(guard)
	return srv
}

// guard keeps a request from taking the server down: a tool call whose
// arguments are JSON null is read as {} (the SDK's schema defaults would
// otherwise write into a nil map and panic, as in go-sdk issue #1062 for
// elicitation), and a panic in any handler becomes an error for that
// request alone, a tool error for a tool call.
func guard(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		if p, ok := req.GetParams().(*sdk.CallToolParamsRaw); ok {
			if a := strings.TrimSpace(string(p.Arguments)); a == "" || a == "null" {
				p.Arguments = json.RawMessage("{}")
			}
		}
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("ibid failed on this request (%v); the server goes on: try again, or report it", r)
				if method == "tools/call" {
					var tr sdk.CallToolResult
					tr.SetError(err)
					res, err = &tr, nil
				}
			}
		}()
		return next(ctx, method, req)
	}
}

// instructions tell a model that has never seen ibid what the server is
// for and how to use its answers.
func (s *server) instructions() string {
	return strings.ReplaceAll(`ibid reads the user's own library of documents (papers, books, notes), the library "LIB", and answers from it with numbered footnotes [1], [2] that lead to the exact passage, document and page.
- ask: a ready answer with footnotes. When you pass it on, keep every [n] where it is and keep its sources list: each number points at a real passage.
- search: passages for a query (with filters for a document, a section, pages), to find evidence yourself.
- get_passage: read a passage with the text around it, by the segment id that search and ask give.
- list_documents: what the library holds (ids, titles, authors, years).
Everything comes from this library only; when it does not hold the answer, say so rather than answering from memory.`, "LIB", s.cfg.LibraryName)
}

// readOnly annotates tools that only read the library.
func readOnly(title string) *sdk.ToolAnnotations {
	f := false
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &f}
}

// mustSchema is the input schema the SDK would infer from T, for a tool
// that adds bounds and defaults to it.
func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: the schema of %T: %v", *new(T), err))
	}
	return s
}

// bound sets the minimum, maximum and default of the integer property
// name of schema.
func bound(schema *jsonschema.Schema, name string, lo, hi, def int) {
	p := schema.Properties[name]
	l, h := float64(lo), float64(hi)
	p.Minimum, p.Maximum = &l, &h
	p.Default = json.RawMessage(strconv.Itoa(def))
}

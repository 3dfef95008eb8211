package cli

import (
	"context"
	"fmt"

	"github.com/ibid-dev/ibid/rag"
	"github.com/ibid-dev/ibid/rag/library"
	"github.com/ibid-dev/ibid/rag/llm"
)

// This file connects the faces that answer without the chat (ask, serve)
// to a library and a model.

// openAnswerer opens the library cfg names and the answerer that answers
// over it: the model cfg names, or, when none answers, the extractive
// answerer (rag.NewAnswerer). An empty library is an error that says how
// to fill it; with emptyOK (ibid mcp: an assistant starts the server
// before the user fills the library, and the tools say it is empty) only a
// warning.
func openAnswerer(ctx context.Context, cfg *Config, emptyOK bool) (*library.Library, rag.Answerer, error) {
	if err := cfg.check(); err != nil {
		return nil, nil, err
	}
	lib, err := openExisting(ctx, cfg, cfg.Library, writable)
	if err != nil {
		return nil, nil, err
	}
	_, segs, err := libraryContents(ctx, lib)
	switch {
	case emptyOK:
		if err == nil && segs == 0 && cfg.warn != nil {
			fmt.Fprintf(cfg.warn, "ibid: warning: the library %q is empty: add documents with ibid add --library %s PATH\n", cfg.Library, cfg.Library)
		}
	case err != nil:
		lib.Close()
		return nil, nil, err
	case segs == 0:
		lib.Close()
		return nil, nil, fmt.Errorf("the library %q is empty: add documents with ibid add PATH", cfg.Library)
	}
	m, err := llm.Connect(ctx, modelConfig(cfg))
	if err != nil {
		lib.Close()
		return nil, nil, err
	}
	return lib, rag.NewAnswerer(m), nil
}

// modelConfig is the model cfg names, with its timeouts.
func modelConfig(cfg *Config) llm.ModelConfig {
	return llm.ModelConfig{
		Config:   serverConfig(cfg),
		Model:    cfg.Model,
		NoOllama: cfg.NoOllama,
	}
}

// serverConfig is the OpenAI-compatible server cfg names, for the chat
// model and the embedder alike, with what named it (for advice in
// connection errors).
func serverConfig(cfg *Config) llm.Config {
	return llm.Config{
		BaseURL:          cfg.BaseURL,
		APIKey:           cfg.APIKey,
		FirstByteTimeout: cfg.FirstByteTimeout,
		IdleTimeout:      cfg.IdleTimeout,
		Setting:          baseURLSetting(cfg.BaseURL, cfg.envBaseURL),
	}
}

// baseURLSetting is what the user set to name base: OPENAI_BASE_URL when
// it holds base (the flag's default comes from it), else --base-url; ""
// when base is empty.
func baseURLSetting(base, env string) string {
	switch {
	case base == "":
		return ""
	case base == env:
		return "OPENAI_BASE_URL"
	}
	return "--base-url"
}

// resumeConversation loads the saved conversation --resume names (resume
// is "" without the flag, resumeLatest for the latest) and returns it with
// the folder it is saved in; without --resume it returns nil and saves
// nowhere.
func resumeConversation(resume string) (*rag.Conversation, string, error) {
	if resume == "" {
		return nil, "", nil
	}
	dir, err := rag.ConversationsDir()
	if err != nil {
		return nil, "", err
	}
	id := resume
	if id == resumeLatest {
		id = ""
	}
	conv, err := rag.LoadConversation(dir, id)
	if err != nil {
		return nil, "", err
	}
	return conv, dir, nil
}

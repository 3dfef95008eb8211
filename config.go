package main

import (
	"flag"
	"os"
)

// libraryFlags are the flags every library command takes.
type libraryFlags struct {
	Library    string // library name; default "default"
	EmbedModel string // OpenAI-compatible embedding model; "" = local embedder
}

func (f *libraryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.Library, "library", envOr("IBID_LIBRARY", "default"), "library `name` (env IBID_LIBRARY)")
	fs.StringVar(&f.EmbedModel, "embed-model", os.Getenv("IBID_EMBED_MODEL"),
		"OpenAI-compatible embedding `model`; empty uses the local embedder (env IBID_EMBED_MODEL)")
}

// modelFlags are the flags of every face that asks a model.
type modelFlags struct {
	Model      string
	BaseURL    string
	APIKey     string
	CiteFormat string // inline | json | sections
}

func (f *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.Model, "model", os.Getenv("IBID_MODEL"), "chat `model` name (env IBID_MODEL); empty picks the server's first model")
	fs.StringVar(&f.BaseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible API base `URL` (env OPENAI_BASE_URL); empty tries a local Ollama, then the extractive answerer")
	f.APIKey = os.Getenv("OPENAI_API_KEY")
	fs.StringVar(&f.CiteFormat, "cite-format", envOr("IBID_CITE_FORMAT", "inline"), "how the model writes citations: inline, json or sections")
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Package headless holds ibid's faces without a terminal UI: the output
// formats of `ibid ask` (text, markdown, ndjson) and the HTTP handler of
// `ibid serve`, with its own API (server-sent events) and an
// OpenAI-compatible one (chat completions, models). Reply renders an
// answer as a chat message with its footnotes, for the OpenAI face and the
// MCP server (headless/mcp). Each is a thin adapter over the answer
// pipeline's events (package rag); none parses citation tokens itself.
package headless

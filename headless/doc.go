// Package headless holds ibid's faces without a terminal UI: the output
// formats of `ibid ask` (text, markdown, ndjson) and the HTTP handler of
// `ibid serve` (server-sent events). Each is a thin adapter over the answer
// pipeline's events (package rag); none parses citation tokens itself.
package headless

// Command ibid is a terminal chat for researchers who talk to their own
// documents: every claim in an answer carries a footnote number that leads
// to the passage it cites.
//
// main.go is wiring only: it picks the subcommand and hands it the process's
// streams. Each subcommand lives in its own cmd_*.go file.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand of ibid.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, io *stdio, args []string) error
}

// stdio is the process's streams, passed in so tests can run commands.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

func commands() []command {
	return []command{
		{"add", "add files, folders or globs to a library", runAdd},
		{"ls", "list a library's documents", runLs},
		{"rm", "remove documents from a library", runRm},
		{"search", "show the passages retrieval would hand the model", runSearch},
		{"ask", "answer one question with cited sources, then exit", runAsk},
		{"serve", "serve cited answers over HTTP (server-sent events)", runServe},
		{"eval", "measure retrieval quality on a BEIR-format folder", runEval},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &stdio{os.Stdin, os.Stdout, os.Stderr})
	stop()
	os.Exit(code)
}

// run executes ibid with args and returns the process exit status.
func run(ctx context.Context, args []string, s *stdio) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(s.out)
			return 0
		}
		for _, c := range commands() {
			if c.name == args[0] {
				return report(s, c.run(ctx, s, args[1:]))
			}
		}
	}
	// No subcommand: the chat, after adding any paths given.
	return report(s, runChat(ctx, s, args))
}

// report prints err for the user and returns the exit status.
func report(s *stdio, err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(s.err, "ibid: cancelled")
		return 130
	}
	fmt.Fprintf(s.err, "ibid: %v\n", err)
	return 1
}

func usage(w io.Writer) {
	fmt.Fprint(w, `ibid: chat with your own documents; every claim carries a footnote.

Usage:
  ibid [flags] [PATH...]        open the chat (adding PATHs to the library first)
  ibid <command> [flags] [args]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run "ibid <command> -h" for a command's flags, "ibid -h" for the chat's.
With nothing configured ibid uses a local embedder and, when no model answers,
an extractive answerer. Point it at a model with OPENAI_BASE_URL (and
OPENAI_API_KEY) or --base-url and --model; a local Ollama is found by itself.
Documentation: docs/ (start with docs/README.md).
`)
}

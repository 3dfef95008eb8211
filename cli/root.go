// Package cli is ibid's command line: the chat (the root command), add,
// ls, rm, search, ask, serve and eval, one file each, run by fang over
// cobra (styled help and errors, --version, completion, a man page).
//
// One Config holds what the environment and the flags say; it is read
// once per run. Every call into the library and the store goes through
// library.go, but ibid eval's (cli/eval), whose libraries and stores are
// its own, in memory or temporary.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"syscall"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"
)

// Exit statuses.
const (
	exitOK        = 0
	exitError     = 1   // the command failed; stderr says why and what to do
	exitCancelled = 130 // interrupted (Ctrl+C, SIGTERM), as shells count it
)

// Env is what a run of ibid gets from its process: the streams and the
// environment. Tests give their own.
type Env struct {
	In       io.Reader
	Out, Err io.Writer
	Getenv   func(string) string

	// styleErrors styles errors as on a terminal even when Err is not one
	// (tests).
	styleErrors bool
}

// Main runs ibid with args (os.Args: the program's name first) on the
// process's streams and environment, stopping at SIGINT or SIGTERM, and
// returns the exit status.
func Main(ctx context.Context, args []string) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) > 0 {
		args = args[1:]
	}
	return Run(ctx, args, Env{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Getenv: os.Getenv})
}

// Run runs ibid with args (without the program's name) and returns the
// exit status: 0, 1 when the command failed (the error is on env.Err), or
// 130 when ctx was cancelled.
func Run(ctx context.Context, args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	cfg := loadConfig(env.Getenv)
	cfg.warn = env.Err
	root := newRoot(cfg)
	root.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	root.SetIn(env.In)
	root.SetOut(env.Out)
	root.SetErr(env.Err)
	version, commit := buildVersion()
	err := fang.Execute(ctx, root,
		fang.WithVersion(version), fang.WithCommit(commit),
		fang.WithErrorHandler(errorHandler(env)))
	var es *exitStatusError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitCancelled
	case errors.As(err, &es):
		return es.code
	}
	return exitError
}

// exitStatusError is a command's error that ends ibid with its own exit
// status (verify's 2 for an input it cannot read).
type exitStatusError struct {
	code int
	err  error
}

func (e *exitStatusError) Error() string { return e.err.Error() }
func (e *exitStatusError) Unwrap() error { return e.err }

// newRoot is the command tree: the chat at the root, the other commands
// under it.
func newRoot(cfg *Config) *cobra.Command {
	root := chatCommand(cfg)
	root.AddCommand(
		addCommand(cfg), syncCommand(cfg), lsCommand(cfg), rmCommand(cfg), searchCommand(cfg), doctorCommand(cfg),
		askCommand(cfg), serveCommand(cfg), mcpCommand(cfg), evalCommand(cfg), verifyCommand(cfg),
	)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &usageError{cmd: c.CommandPath(), err: err, hint: oneDashHint(c, err)}
	})
	return root
}

// usageError is a command line that cobra could not parse (a flag it does
// not know, a value of the wrong kind). Its message is cobra's, which fang
// recognises to add its hint; plain, the hint names the command's help.
type usageError struct {
	cmd  string
	err  error
	hint string // how to write it, when ibid can tell; else ""
}

func (e *usageError) Error() string {
	if e.hint != "" {
		return e.err.Error() + "; " + e.hint
	}
	return e.err.Error()
}
func (e *usageError) Unwrap() error { return e.err }

// oneDashRe finds the argument in pflag's "unknown shorthand flag: 'l' in
// -library".
var oneDashRe = regexp.MustCompile(`^unknown shorthand flag: '.' in -([^-=\s][^=\s]+)`)

// oneDashHint is what to write for a long flag given with one dash
// (-library, as Go's flag package took it): "write --library".
func oneDashHint(c *cobra.Command, err error) string {
	m := oneDashRe.FindStringSubmatch(err.Error())
	if m == nil || c.Flags().Lookup(m[1]) == nil {
		return ""
	}
	return "write --" + m[1] + ", with two dashes"
}

// errorHandler prints a command's error: styled by fang on a terminal;
// otherwise one plain line, "ibid: " and the message, for logs and scripts.
func errorHandler(env Env) fang.ErrorHandler {
	return func(w io.Writer, styles fang.Styles, err error) {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(w, "ibid: cancelled")
			return
		}
		if tty, _ := isTerminal(env.Err); tty || env.styleErrors {
			fang.DefaultErrorHandler(w, styles, err)
			return
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(w, "ibid: %v (%s --help lists the flags)\n", err, ue.cmd)
			return
		}
		fmt.Fprintf(w, "ibid: %v\n", err)
	}
}

// buildVersion is the module's version as the Go toolchain stamped it into
// the binary, or "devel" and the VCS revision when it stamped none.
func buildVersion() (version, commit string) {
	version = "devel"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version, ""
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v, "" // a module or pseudo-version names its commit already
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			commit = s.Value
		}
	}
	return version, commit
}

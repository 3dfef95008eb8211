//go:build !(ibid_answer && ibidlib)

package main

import (
	"context"
	"errors"
	"fmt"
)

// runChat without the answer pipeline and library (built without the
// ibid_answer and ibidlib tags) only answers -h.
func runChat(ctx context.Context, s *stdio, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprintln(s.out, "Usage: ibid [--library NAME] [--model M] [--base-url U] [--cite-format F] [--numbering answer|conversation] [--resume [ID]] [PATH...]")
			return nil
		}
	}
	return errors.New("chat: this build has no answer pipeline (build with -tags 'ibid_answer ibidlib')")
}

//go:build !(ibid_answer && ibidlib)

package main

// Temporary: ask and serve build with -tags "ibid_answer ibidlib" until the
// citation engine and rag/retrieve are in the tree; this file then goes.

import (
	"context"
	"errors"
)

func runAsk(ctx context.Context, s *stdio, args []string) error {
	return errors.New("ask: not built yet")
}

func runServe(ctx context.Context, s *stdio, args []string) error {
	return errors.New("serve: not built yet")
}

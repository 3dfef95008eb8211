//go:build !ibidlib

package main

// Temporary: the library commands build with -tags ibidlib until
// rag/retrieve and ingest.Expand are in the tree; this file then goes.

import (
	"context"
	"errors"
)

func runAdd(ctx context.Context, s *stdio, args []string) error {
	return errors.New("add: not built yet")
}

func runLs(ctx context.Context, s *stdio, args []string) error {
	return errors.New("ls: not built yet")
}

func runRm(ctx context.Context, s *stdio, args []string) error {
	return errors.New("rm: not built yet")
}

func runSearch(ctx context.Context, s *stdio, args []string) error {
	return errors.New("search: not built yet")
}

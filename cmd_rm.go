package main

import (
	"context"
	"errors"
)

func runRm(ctx context.Context, s *stdio, args []string) error {
	return errors.New("rm: not built yet")
}

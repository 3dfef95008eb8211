package main

import (
	"context"
	"errors"
)

func runEval(ctx context.Context, s *stdio, args []string) error {
	return errors.New("eval: not built yet")
}

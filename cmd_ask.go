package main

import (
	"context"
	"errors"
)

func runAsk(ctx context.Context, s *stdio, args []string) error {
	return errors.New("ask: not built yet")
}

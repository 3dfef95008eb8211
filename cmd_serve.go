package main

import (
	"context"
	"errors"
)

func runServe(ctx context.Context, s *stdio, args []string) error {
	return errors.New("serve: not built yet")
}

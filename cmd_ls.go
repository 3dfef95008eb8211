package main

import (
	"context"
	"errors"
)

func runLs(ctx context.Context, s *stdio, args []string) error {
	return errors.New("ls: not built yet")
}

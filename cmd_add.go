package main

import (
	"context"
	"errors"
)

func runAdd(ctx context.Context, s *stdio, args []string) error {
	return errors.New("add: not built yet")
}

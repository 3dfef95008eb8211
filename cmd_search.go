package main

import (
	"context"
	"errors"
)

func runSearch(ctx context.Context, s *stdio, args []string) error {
	return errors.New("search: not built yet")
}

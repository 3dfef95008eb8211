package main

import (
	"context"
	"errors"
)

func runChat(ctx context.Context, s *stdio, args []string) error {
	return errors.New("chat: not built yet")
}

package main

import (
	"context"
	"errors"
	"io"
)

// Temporary: replaced when the command lands.
func cmdSchema(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("schema: not available yet")
}

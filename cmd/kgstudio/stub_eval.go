package main

import (
	"context"
	"errors"
	"io"
)

// Temporary: replaced when the command lands.
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("eval: not available yet")
}

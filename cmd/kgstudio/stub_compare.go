package main

import (
	"context"
	"errors"
	"io"
)

// Temporary: replaced when the command lands.
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("compare: not available yet")
}

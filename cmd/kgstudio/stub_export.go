package main

import (
	"context"
	"errors"
	"io"
)

// Temporary: replaced when the command lands.
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("export: not available yet")
}

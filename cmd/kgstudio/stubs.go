package main

import (
	"context"
	"errors"
	"io"
)

func cmdSchema(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("schema: not available yet")
}
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("export: not available yet")
}
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("compare: not available yet")
}
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("eval: not available yet")
}

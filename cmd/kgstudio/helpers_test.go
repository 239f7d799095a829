package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// cli runs a kgstudio command in-process and returns its stdout and
// stderr; stderr is logged when the command fails.
func cli(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	if err != nil {
		t.Logf("kgstudio %s: stderr: %s", strings.Join(args, " "), errOut.String())
	}
	return out.String(), errOut.String(), err
}

// cliOut is cli without stderr.
func cliOut(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := cli(t, args...)
	return out, err
}

// runCLI runs one command over a data dir and returns its stdout.
func runCLI(t *testing.T, data string, args ...string) (string, error) {
	t.Helper()
	return cliOut(t, append(args, "--data", data)...)
}

// mustCLI is runCLI failing the test on an error.
func mustCLI(t *testing.T, data string, args ...string) string {
	t.Helper()
	out, err := runCLI(t, data, args...)
	if err != nil {
		t.Fatalf("kgstudio %s: %v", strings.Join(args, " "), err)
	}
	return out
}

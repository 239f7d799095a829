package main

import (
	"os"
	"testing"
)

// TestMain runs the commands with the hashed embedder, in this process
// and in the ones the tests start, unless a test names another: the
// sentence encoder has tests of its own (extract/embed/uselite) and the
// default is checked by TestExtract_DefaultEmbedder.
func TestMain(m *testing.M) {
	if os.Getenv("KGSTUDIO_EMBEDDER") == "" {
		os.Setenv("KGSTUDIO_EMBEDDER", "offline")
	}
	os.Exit(m.Run())
}

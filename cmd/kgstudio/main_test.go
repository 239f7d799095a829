package main

import (
	"os"
	"testing"
)

// asKgstudio, set in the environment, makes this test binary run as the
// kgstudio command: the tests that need a real process (kill, terminate,
// two processes on one folder) start this executable instead of building
// and linking kgstudio again for each test.
const asKgstudio = "KGSTUDIO_TEST_AS_COMMAND"

// TestMain runs the commands with the hashed embedder, in this process
// and in the ones the tests start, unless a test names another: the
// sentence encoder has tests of its own (extract/embed/uselite) and the
// default is checked by TestExtract_DefaultEmbedder.
func TestMain(m *testing.M) {
	if os.Getenv(asKgstudio) == "1" {
		os.Exit(mainCode())
	}
	os.Setenv(asKgstudio, "1") // inherited by the processes the tests start
	if os.Getenv("KGSTUDIO_EMBEDDER") == "" {
		os.Setenv("KGSTUDIO_EMBEDDER", "offline")
	}
	os.Exit(m.Run())
}

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestDataFolder_TwoProcessesOpenANewOne starts a `kgstudio extract` and a
// `kgstudio version show` together on a new data folder, a few times:
// both create the folder's tables at once, and neither fails for it
// (once, one of them stopped with `create "chunks" table: ... already
// exists`). The show finds the version or says it does not exist yet.
func TestDataFolder_TwoProcessesOpenANewOne(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the command as separate processes")
	}
	bin := kgstudioBinary(t)
	doc := writeFile(t, "marley.txt", marleyText)
	for round := range 4 {
		data := t.TempDir()
		var outs [2]bytes.Buffer
		cmds := [2]*exec.Cmd{
			exec.Command(bin, "extract", "--data", data, "--name", "x", doc),
			exec.Command(bin, "version", "show", "x@1", "--data", data),
		}
		for i, c := range cmds {
			c.Env = append(c.Environ(), "DATABASE_URL=")
			c.Stdout, c.Stderr = &outs[i], &outs[i]
		}
		for _, c := range cmds {
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
		}
		if err := cmds[0].Wait(); err != nil {
			t.Errorf("round %d: extract: %v\n%s", round, err, outs[0].String())
		}
		if err := cmds[1].Wait(); err != nil && !strings.Contains(outs[1].String(), "not found") {
			t.Errorf("round %d: version show: %v\n%s", round, err, outs[1].String())
		}
	}
}

package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract/query"
)

// The README's command summary is the program's own usage.
func TestUsage_MatchesREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "## Command line")
	if i < 0 {
		t.Fatal("README has no Command line section")
	}
	s = s[i:]
	start := strings.Index(s, "```\n")
	end := strings.Index(s[start+4:], "```")
	if start < 0 || end < 0 {
		t.Fatal("README's Command line section has no code block")
	}
	inREADME := strings.TrimSpace(s[start+4 : start+4+end])

	out, err := cliOut(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(out, "Usage:\n")
	if !ok {
		t.Fatalf("usage has no Usage: block:\n%s", out)
	}
	block, _, _ = strings.Cut(block, "\n\n")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		lines = append(lines, strings.TrimPrefix(l, "  "))
	}
	if got := strings.Join(lines, "\n"); got != inREADME {
		t.Fatalf("README's command summary differs from kgstudio help:\nREADME:\n%s\n\nhelp:\n%s", inREADME, got)
	}
}

// TestUsage_Errors: a command line that names no command, an unknown one,
// a bad flag or a command without its arguments is a usage error (exit
// 2); a command that fails is not.
func TestUsage_Errors(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	for _, args := range [][]string{{}, {"bogus"}, {"query"}, {"doc", "list", "--bogus"}, {"communities"}} {
		_, _, err := cli(t, args...)
		if err == nil || !isUsage(err) {
			t.Errorf("kgstudio %v: %v, want a usage error", args, err)
		}
	}
	_, _, err := cli(t, "version", "show", "nosuch@1", "--data", data)
	if err == nil || isUsage(err) {
		t.Errorf("an unknown version: %v, want an error that is not about usage", err)
	}
}

// Every command's --help prints its usage and succeeds, and creates no
// data folder (asking how to use a command changes nothing).
func TestUsage_HelpEverywhere(t *testing.T) {
	data := filepath.Join(t.TempDir(), "kgstudio-data")
	t.Setenv("KGSTUDIO_DATA", data)
	for _, c := range []string{"serve", "worker", "doc", "doc add", "extract", "schema", "schema import", "version", "version list",
		"export", "compare", "eval", "query", "retry", "duplicates", "merge", "edit", "import", "communities", "mcp"} {
		for _, h := range []string{"--help", "-h"} {
			args := append(strings.Fields(c), h)
			out, stderr, err := cli(t, args...)
			if err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("kgstudio %s: %v", strings.Join(args, " "), err)
			}
			if !strings.Contains(out+stderr, "usage") && !strings.Contains(out+stderr, "Usage") {
				t.Errorf("kgstudio %s printed no usage: %q", strings.Join(args, " "), out+stderr)
			}
			if _, err := os.Stat(data); err == nil {
				t.Fatalf("kgstudio %s created %s", strings.Join(args, " "), data)
			}
		}
	}
	out, stderr, _ := cli(t, "query", "--help")
	for _, m := range query.ModeNames() {
		if !strings.Contains(out+stderr, m) {
			t.Errorf("query --help does not name the %s mode", m)
		}
	}
}

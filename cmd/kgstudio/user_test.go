package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// kgstudio user: people added with a password read from standard input
// (never an argument), listed, given a token printed once, moved to
// another role and removed; a short password and an unknown role are
// refused with the reason.
func TestUser(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	user := func(stdin string, args ...string) (string, string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(append([]string{"user"}, args...), "--data", data), strings.NewReader(stdin), &out, &errOut)
		return out.String(), errOut.String(), err
	}
	if _, _, err := user("correct horse battery\n", "add", "ann", "--role", "admin"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := user("short\n", "add", "bob"); err == nil || !strings.Contains(err.Error(), "at least 10 characters") {
		t.Fatalf("a short password: %v", err)
	}
	if _, _, err := user("", "add", "bob"); err == nil || !strings.Contains(err.Error(), "standard input") {
		t.Fatalf("no password: %v", err)
	}
	if _, _, err := user("", "role", "ann", "boss"); err == nil || !strings.Contains(err.Error(), "viewer, editor, admin") {
		t.Fatalf("an unknown role: %v", err)
	}
	secret, stderr, err := user("", "token", "ann", "laptop", "--role", "viewer")
	if err != nil || !strings.HasPrefix(secret, "kgs_") || !strings.Contains(stderr, "shown this once") {
		t.Fatalf("token: %q %q %v", secret, stderr, err)
	}
	if _, _, err := user("", "role", "ann", "editor"); err != nil {
		t.Fatal(err)
	}
	out, _, err := user("", "list", "--json")
	var list []struct {
		Name string `json:"name"`
		Role string `json:"role"`
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].Name != "ann" || list[0].Role != "editor" {
		t.Fatalf("list: %s %v", out, err)
	}
	if out, _, err := user("", "tokens"); err != nil || !strings.Contains(out, "ann\tlaptop\tviewer\tdefault\tlive") || strings.Contains(out, strings.TrimSpace(secret)) {
		t.Fatalf("tokens: %q %v", out, err)
	}
	if _, _, err := user("", "remove", "ann"); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := user("", "list"); strings.TrimSpace(out) != "" {
		t.Fatalf("after remove: %q", out)
	}
}

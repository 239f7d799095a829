package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kgstudio workspace, token and --workspace as other programs call them:
// a workspace added, a person made a member of it alone, a token for it
// printed alone on its last line and revoked by itself; data commands
// with --workspace see that workspace's documents and versions alone, and
// serve refuses the flag (it serves them all).
func TestWorkspaceCommands(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	var kg workspaceCLI = func(stdin string, args ...string) (string, string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(args, "--data", data), strings.NewReader(stdin), &out, &errOut)
		return out.String(), errOut.String(), err
	}
	if _, _, err := kg("", "workspace", "add", "acme"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kg("", "workspace", "add", "Acme Corp"); err == nil || !strings.Contains(err.Error(), "lowercase") {
		t.Fatalf("a bad name: %v", err)
	}
	if _, _, err := kg("", "workspace", "add", "acme"); err == nil || !strings.Contains(err.Error(), "workspace acme exists") || strings.Contains(err.Error(), "constraint") {
		t.Fatalf("a workspace added twice: %v", err)
	}
	if out, _, err := kg("", "workspace", "list"); err != nil || out != "default\nacme\n" {
		t.Fatalf("list: %q %v", out, err)
	}
	if _, _, err := kg("a long enough password\n", "user", "add", "eve", "--role", "editor", "--workspace", "nope"); err == nil || !strings.Contains(err.Error(), "workspace nope not found") {
		t.Fatalf("a member of an unknown workspace: %v", err)
	}
	if out, _, err := kg("a long enough password\n", "user", "add", "eve", "--role", "editor", "--workspace", "acme"); err != nil || !strings.Contains(out, "editor in acme") {
		t.Fatalf("user add --workspace: %q %v", out, err)
	}
	if _, _, err := kg("", "token", "create", "eve", "--workspace", "default"); err == nil || !strings.Contains(err.Error(), "no member") {
		t.Fatalf("a token for a workspace eve is no member of: %v", err)
	}
	out, _, err := kg("", "token", "create", "eve", "--workspace", "acme", "--name", "ci")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	secret := lines[len(lines)-1]
	if err != nil || !strings.HasPrefix(secret, "kgs_") || strings.Contains(secret, " ") {
		t.Fatalf("token create: %q %v", out, err)
	}
	var listed struct {
		Tokens []struct {
			Name, Owner, Workspace string
			RevokedAt              *string `json:"revoked_at"`
		}
	}
	if out, _, err := kg("", "token", "list", "--json"); err != nil || json.Unmarshal([]byte(out), &listed) != nil ||
		len(listed.Tokens) != 1 || listed.Tokens[0].Workspace != "acme" || listed.Tokens[0].Name != "ci" || strings.Contains(out, secret) {
		t.Fatalf("token list: %q %v", out, err)
	}
	// Neither the password nor the token is kept in clear in any file
	// of the data folder (databases and their logs), nor printed to
	// standard error.
	checkNoSecretInClear(t, data, secret)
	if _, errOut, _ := kg("", "token", "list"); strings.Contains(errOut, secret) {
		t.Fatal("token list prints the token")
	}
	if out, _, err := kg("", "token", "revoke", secret); err != nil || !strings.Contains(out, "revoked") {
		t.Fatalf("token revoke: %q %v", out, err)
	}
	if out, _, err := kg("", "token", "list", "--json"); err != nil || json.Unmarshal([]byte(out), &listed) != nil || listed.Tokens[0].RevokedAt == nil {
		t.Fatalf("revoked token listed live: %q %v", out, err)
	}
	if _, _, err := kg("", "token", "revoke", secret); err == nil || !strings.Contains(err.Error(), "revoked already") {
		t.Fatalf("a token revoked twice: %v", err)
	}
	if _, _, err := kg("a long enough password\n", "user", "add", "sam", "--role", "viewer"); err != nil {
		t.Fatal(err)
	}
	if out, _, err := kg("", "user", "list", "--workspace", "acme"); err != nil || !strings.Contains(out, "eve\teditor\tacme:editor\t") || strings.Contains(out, "sam") {
		t.Fatalf("user list --workspace acme: %q %v", out, err)
	}
	// Leaving their only workspace leaves eve in none (not in default).
	if _, _, err := kg("", "user", "leave", "eve", "--workspace", "acme"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kg("", "token", "create", "eve", "--workspace", "default"); err == nil || !strings.Contains(err.Error(), "no member") {
		t.Fatalf("eve, who left her only workspace, got a token for default: %v", err)
	}
	// sam, never a member of any, works in default; leaving acme (never
	// joined) keeps him there.
	if _, _, err := kg("", "user", "leave", "sam", "--workspace", "acme"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kg("", "token", "create", "sam", "--workspace", "default"); err != nil {
		t.Fatalf("sam in default: %v", err)
	}

	checkWorkspaceData(t, kg)
}

// workspaceCLI runs kgstudio with stdin and args on the test's data folder.
type workspaceCLI func(stdin string, args ...string) (stdout, stderr string, err error)

// checkNoSecretInClear checks that no file under data holds the password or the token secret in clear.
func checkNoSecretInClear(t *testing.T, data, secret string) {
	t.Helper()
	err := filepath.WalkDir(data, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, clear := range []string{"a long enough password", secret, strings.TrimPrefix(secret, "kgs_")} {
			if bytes.Contains(b, []byte(clear)) {
				t.Errorf("%s holds a secret in clear", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkWorkspaceData checks that --workspace shows acme's documents and versions alone and serve refuses it.
func checkWorkspaceData(t *testing.T, kg workspaceCLI) {
	t.Helper()
	text := filepath.Join(t.TempDir(), "acme.txt")
	if err := os.WriteFile(text, []byte("Ada Lovelace worked with Charles Babbage in London."), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := kg("", "extract", text, "--workspace", "acme", "--name", "ada", "--embedder", "offline"); err != nil {
		t.Fatal(err)
	}
	if out, _, err := kg("", "doc", "list", "--workspace", "acme"); err != nil || !strings.Contains(out, "acme.txt") {
		t.Fatalf("doc list in acme: %q %v", out, err)
	}
	if out, _, err := kg("", "doc", "list"); err != nil || strings.Contains(out, "acme.txt") {
		t.Fatalf("doc list in default shows acme's: %q %v", out, err)
	}
	if _, _, err := kg("", "query", "ada", "Who worked with Babbage?"); err == nil {
		t.Fatal("the default workspace answered from acme's version")
	}
	if out, _, err := kg("", "query", "ada", "Who worked with Babbage?", "--workspace", "acme"); err != nil || !strings.Contains(out, "Lovelace") {
		t.Fatalf("query in acme: %q %v", out, err)
	}
	if _, _, err := kg("", "doc", "list", "--workspace", "acme", "--workspace", "default"); err == nil || !strings.Contains(err.Error(), "one --workspace") {
		t.Fatalf("two workspaces for a data command: %v", err)
	}
	if _, _, err := kg("", "serve", "--workspace", "acme"); err == nil || !strings.Contains(err.Error(), "-workspace") {
		t.Fatalf("serve --workspace: %v", err)
	}
}

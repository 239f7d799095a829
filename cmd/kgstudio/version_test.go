package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/app"
)

// Documents and versions are listed, shown and deleted from the CLI; a
// document in use is not deleted and the message names the versions.
func TestVersionAndDocCLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	mustCLI(t, data, "extract", "--name", "carol", "--chunk-size", "120", "--overlap", "0", doc)
	// The same file twice is one document, run once.
	mustCLI(t, data, "extract", "--name", "carol", doc, doc)

	var docs []struct {
		ID    int    `json:"id"`
		Name  string `json:"name"`
		Kind  string `json:"kind"`
		Bytes int    `json:"bytes"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "doc", "list", "--json")), &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 || docs[0].Name != "marley.txt" || docs[0].Kind != "text" || docs[0].Bytes != len(marleyText) {
		t.Fatalf("doc list: %+v", docs)
	}
	var vs []app.VersionJSON
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "list", "carol", "--json")), &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Status != "done" || vs[1].Status != "done" {
		t.Fatalf("version list: %+v", vs)
	}
	var shown app.VersionJSON
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "carol@1", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Version != 1 || shown.Nodes == 0 || shown.ChunksTotal < 2 || shown.ChunksDone != shown.ChunksTotal ||
		shown.Config.ChunkSize != 120 || shown.Config.Strategy != "nlp" {
		t.Fatalf("version show: %+v", shown)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "show", "carol@2", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.DocumentIDs) != 1 || shown.Status != "done" {
		t.Fatalf("a file named twice: %+v", shown)
	}
	if out := mustCLI(t, data, "version", "show", "carol@1"); !strings.Contains(out, "status:    done") {
		t.Fatalf("version show (text): %s", out)
	}

	_, err := runCLI(t, data, "doc", "delete", "1")
	if err == nil || !strings.Contains(err.Error(), "carol@1") || !strings.Contains(err.Error(), "carol@2") {
		t.Fatalf("deleting a document in use: %v", err)
	}
	if _, err := runCLI(t, data, "version", "delete", "carol"); err == nil {
		t.Fatal("version delete NAME without --all deleted something")
	}
	mustCLI(t, data, "version", "delete", "carol@1")
	if _, err := runCLI(t, data, "version", "show", "carol@1"); err == nil {
		t.Fatal("a deleted version still shows")
	}
	mustCLI(t, data, "version", "delete", "carol", "--all")
	mustCLI(t, data, "doc", "delete", "1")
	if out := mustCLI(t, data, "doc", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("documents left: %s", out)
	}
	if out := mustCLI(t, data, "version", "list", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("versions left: %s", out)
	}
	if _, err := runCLI(t, data, "schema", "delete", "default"); err == nil {
		t.Fatal("the default schema was deleted")
	}
}

// doc add stores every good file and names each refused one once.
func TestDocAdd_KeepsGoodFiles(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	bad := writeFile(t, "bad.json", `{"sessions":[{"turns":[{"speaker":"A"}]}]}`)
	good := writeFile(t, "good.txt", marleyText)
	_, err := runCLI(t, data, "doc", "add", bad, filepath.Join(t.TempDir(), "missing.txt"), good)
	if err == nil || strings.Count(err.Error(), "bad.json") != 1 || !strings.Contains(err.Error(), "missing.txt: no such file") {
		t.Fatalf("doc add with bad files: %v", err)
	}
	if out := mustCLI(t, data, "doc", "list"); !strings.Contains(out, "good.txt") {
		t.Fatalf("the good file was not stored: %s", out)
	}
	if _, err := runCLI(t, data, "extract", "--name", "q@1", good); err == nil || !strings.Contains(err.Error(), "@ and / are not allowed") {
		t.Fatalf("an extraction named q@1: %v", err)
	}
	if _, err := runCLI(t, data, "query", "x@1", "hi", "--top-k", "0"); err == nil || !strings.Contains(err.Error(), "--top-k") {
		t.Fatalf("query --top-k 0: %v", err)
	}
}

// A queued run is canceled from the command line: version cancel prints
// the version (canceled, its jobs with none left queued); a version that
// has ended cannot be canceled, and can then be deleted.
func TestVersionCancelCLI(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	doc := writeFile(t, "marley.txt", marleyText)
	mustCLI(t, data, "extract", "--name", "carol", "--chunk-size", "120", "--overlap", "0", "--detach", doc)
	if _, err := runCLI(t, data, "version", "delete", "carol@1"); err == nil {
		t.Fatal("a queued version was deleted")
	}
	var got app.VersionJobsJSON
	if err := json.Unmarshal([]byte(mustCLI(t, data, "version", "cancel", "carol@1", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "canceled" || got.Jobs.Queued != 0 || got.Jobs.Canceled == 0 {
		t.Fatalf("version cancel --json: status %s, jobs %+v", got.Status, got.Jobs.JobCounts)
	}
	if _, err := runCLI(t, data, "version", "cancel", "carol@1"); err == nil || !strings.Contains(err.Error(), "already ended") {
		t.Fatalf("second cancel: %v", err)
	}
	if out := mustCLI(t, data, "version", "delete", "carol@1"); !strings.Contains(out, "deleted carol@1") {
		t.Fatalf("delete after cancel: %s", out)
	}
}

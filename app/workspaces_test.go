package app

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/record"
)

// Every workspace's App shares the server's people and its model
// providers' clients and loaded models (one NER model, one sentence
// encoder, one rate limit per provider and model), and holds its own
// database; a workspace never added is not found.
func TestWorkspaces_ShareModelsNotData(t *testing.T) {
	ctx := context.Background()
	a, err := Open(ctx, Options{DataDir: t.TempDir()}, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Providers{Embedder: extract.EmbedderOffline, OpenAIAPIKey: "not used", OpenAIModel: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Workspace(ctx, "nope"); extract.KindOf(err) != extract.KindNotFound {
		t.Fatalf("a workspace never added: %v", err)
	}
	if err := a.Accounts.AddWorkspace(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	w, err := a.Workspace(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := a.Workspace(ctx, "acme"); again != w || w.Name() != "acme" || a.Name() != record.DefaultWorkspace {
		t.Fatal("a workspace's App opened twice")
	}
	if w.Accounts != a.Accounts || w.Models.models != a.Models.models || w.store == a.store {
		t.Fatal("workspaces do not share the accounts and models, or share a database")
	}
	cfg := extract.DefaultConfig()
	na, err := a.Models.nlp(cfg)
	if err != nil {
		t.Fatal(err)
	}
	nw, err := w.Models.nlp(cfg)
	if err != nil || na != nw {
		t.Fatalf("two offline extractors (two NER models loaded): %v", err)
	}
	cfg.Strategy, cfg.Provider = extract.StrategyTuple, extract.ProviderOpenAI
	_, _, err = a.Models.client(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = w.Models.client(ctx, cfg)
	if err != nil || len(a.Models.models.clients) != 1 {
		t.Fatalf("%d limited clients for one provider and model (%v)", len(a.Models.models.clients), err)
	}
}

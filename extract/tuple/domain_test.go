package tuple_test

import (
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
	"github.com/kgstudio/kgstudio/extract/llm/fakellm"
	"github.com/kgstudio/kgstudio/extract/tuple"
)

// With a domain graph the first user message lists the domain entities
// the chunk names, with their types (KAG's external_graph.ner given to an
// LLM strategy); without one, or for a chunk that names none, it lists
// none.
func TestExtractor_WithDomainListsKnownEntities(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{})
	x, err := tuple.New(clients(t, srv)["openai"], extract.Config{}, tuple.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := extract.NewDomain([]extract.DomainEntity{{Name: "促肾上腺皮质激素", Type: "Concept", Aliases: []string{"ACTH"}}, {Name: "insulin", Type: "Medicine"}})
	withDomain := x.WithDomain(d).(*tuple.Extractor)
	msgs, err := withDomain.Messages("The pituitary gland releases ACTH.")
	if err != nil {
		t.Fatal(err)
	}
	user := msgs[1].Content
	if !strings.Contains(user, "# Known entities") || !strings.Contains(user, "- 促肾上腺皮质激素 (Concept)") || strings.Contains(user, "insulin") {
		t.Errorf("user message with a domain:\n%s", user)
	}
	for _, m := range []func() ([]llm.Message, error){
		func() ([]llm.Message, error) { return x.Messages("The pituitary gland releases ACTH.") },
		func() ([]llm.Message, error) { return withDomain.Messages("Nothing the domain knows.") },
	} {
		c, err := m()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c[1].Content, "Known entities") {
			t.Errorf("a user message lists known entities it has none of:\n%s", c[1].Content)
		}
	}
}

// The system prompt renders with LightRAG-style worked examples, one in
// English and one in Chinese, and each example's output reads through
// Parse without a failure.
func TestDefaultPrompts_ExamplesParse(t *testing.T) {
	srv := fakellm.New(t, fakellm.Options{})
	x, err := tuple.New(clients(t, srv)["openai"], extract.Config{}, tuple.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := x.Messages("青禾农业合作社在普洱试种咖啡。")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(msgs[0].Content, "\nOutput:\n")[1:]
	if len(parts) != 2 {
		t.Fatalf("%d examples with an output in the system prompt; want 2", len(parts))
	}
	han := 0
	for i, p := range parts {
		out, _, ok := strings.Cut(p, tuple.CompletionDelimiter)
		if !ok {
			t.Fatalf("example %d has no completion marker", i+1)
		}
		g, fails := tuple.Parse(out + tuple.CompletionDelimiter)
		if len(fails) > 0 || len(g.Nodes) < 4 || len(g.Edges) < 3 {
			t.Errorf("example %d: %d nodes, %d edges, failures %+v", i+1, len(g.Nodes), len(g.Edges), fails)
		}
		if extract.MostlyHan(out) {
			han++
		}
	}
	if han != 1 {
		t.Errorf("%d Chinese examples; want 1 beside the English one", han)
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/kgstudio/kgstudio/internal/testkit"
)

// KAG's domain_kg example run offline: the imported reference's 25 nodes
// and 19 isA edges are written into the version, and NER sees them (KAG's
// external_graph.ner): the domain names its document holds are recognised
// where they stand, with the domain's type (a mention with its text) and
// linked to the entities beside them, not only mentioned by the chunk.
func TestExtract_OfflineDomainNERKAGDomainKG(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := t.TempDir()
	dir := testkit.Path(t, "corpora/kag-domain_kg")
	mustCLI(t, data, "import", "domain", dir)
	mustCLI(t, data, "extract", "--name", "hgh", "--embedder", "offline", "--reference", "domain@1", filepath.Join(dir, "doc.txt"))
	var g struct {
		Nodes []struct {
			Key      string `json:"key"`
			Name     string `json:"name"`
			Type     string `json:"type"`
			Mentions []struct {
				Text string `json:"text"`
			} `json:"mentions"`
		} `json:"nodes"`
		Edges []struct {
			Source string `json:"source"`
			Target string `json:"target"`
			Label  string `json:"label"`
		} `json:"edges"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, data, "export", "hgh@1", "--format", "json")), &g); err != nil {
		t.Fatal(err)
	}
	domain := map[string]bool{}
	placed := 0
	for _, n := range g.Nodes {
		// The reference's nodes are Chinese Concepts; the run adds the
		// English names it found beside them.
		if n.Type != "Concept" || !strings.ContainsFunc(n.Name, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			continue
		}
		domain[n.Key] = true
		for _, m := range n.Mentions {
			if m.Text != "" {
				placed++
				break
			}
		}
	}
	isA, linked := 0, 0
	for _, e := range g.Edges {
		switch {
		case e.Label == "isA":
			isA++
		case domain[e.Source] || domain[e.Target]:
			linked++
		}
	}
	// 生长激素, 人生长激素, 促肾上腺皮质激素 and 蛋白酶 stand in doc.txt.
	if len(domain) != 24 || isA != 19 || placed < 4 || linked < 3 {
		t.Errorf("%d Concept nodes, %d isA edges, %d placed by NER, %d other edges at them; want 24 (the 25 but ACTH), 19, at least 4 and 3", len(domain), isA, placed, linked)
	}
}

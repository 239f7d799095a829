package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/communityset"
	entedge "github.com/kgstudio/kgstudio/ent/edge"
	"github.com/kgstudio/kgstudio/ent/edgetext"
	"github.com/kgstudio/kgstudio/ent/extraction"
	"github.com/kgstudio/kgstudio/ent/node"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
)

// Decisions returns the duplicate decisions recorded for an extraction.
func (s *Store) Decisions(ctx context.Context, extractionID int) (curate.Decisions, error) {
	ex, err := s.client.Extraction.Get(ctx, extractionID)
	if err != nil {
		return curate.Decisions{}, translate(err, "extraction")
	}
	return decodeDecisions(ex.Curation), nil
}

func decodeDecisions(s string) curate.Decisions {
	var d curate.Decisions
	if s != "" {
		_ = json.Unmarshal([]byte(s), &d)
	}
	return d
}

// UpdateDecisions changes an extraction's duplicate decisions in one
// transaction: fn receives the recorded ones and changes them.
func (s *Store) UpdateDecisions(ctx context.Context, extractionID int, fn func(d *curate.Decisions)) error {
	return s.inTx(ctx, func(w *writeTx) error {
		c := w.Client()
		ex, err := c.Extraction.Query().Where(extraction.ID(extractionID)).Only(ctx)
		if err != nil {
			return translate(err, "extraction")
		}
		d := decodeDecisions(ex.Curation)
		fn(&d)
		b, err := json.Marshal(d)
		if err != nil {
			return fmt.Errorf("encode decisions: %w", err)
		}
		return translate(c.Extraction.UpdateOneID(extractionID).SetCuration(string(b)).Exec(ctx), "extraction")
	})
}

// ReplaceGraph replaces a version's whole graph (nodes, edges and
// mentions) by g, in one transaction.
func (s *Store) ReplaceGraph(ctx context.Context, versionID int, g extract.Graph) error {
	g = boundGraph(g)
	err := s.inTx(ctx, func(b *writeTx) error {
		c := b.Client()
		if _, err := c.Edge.Delete().Where(entedge.VersionID(versionID)).Exec(ctx); err != nil {
			return fmt.Errorf("delete edges: %w", err)
		}
		// The communities were the old graph's.
		if _, err := c.CommunitySet.Delete().Where(communityset.VersionID(versionID)).Exec(ctx); err != nil {
			return fmt.Errorf("delete communities: %w", err)
		}
		// So was the search index.
		if err := deleteVersionIndexes(ctx, c, versionID); err != nil {
			return err
		}
		if _, err := c.EdgeText.Delete().Where(edgetext.VersionID(versionID)).Exec(ctx); err != nil {
			return fmt.Errorf("delete edge texts: %w", err)
		}
		if _, err := c.Node.Delete().Where(node.VersionID(versionID)).Exec(ctx); err != nil {
			return fmt.Errorf("delete nodes: %w", err)
		}
		nodes, edges := dedupeNodes(g.Nodes), dedupeEdges(g.Edges)
		packs := packGraph(g, storedPlaces{})
		if err := upsertNodes(ctx, b, versionID, nodes, graphDegrees(nodes, edges), packs.nodes); err != nil {
			return err
		}
		return upsertEdges(ctx, b, versionID, edges, packs.edges)
	})
	if err != nil {
		return err
	}
	return s.refreshCounts(ctx, versionID)
}

// AppendNote adds a line to a version's note, unless the note holds it.
func (s *Store) AppendNote(ctx context.Context, versionID int, line string) error {
	return s.write(ctx, func(c *ent.Client) error {
		v, err := c.ExtractionVersion.Get(ctx, versionID)
		if err != nil {
			return translate(err, "version")
		}
		note := line
		if v.Note != "" {
			if slices.Contains(strings.Split(v.Note, "\n"), line) {
				return nil // said already (a resumed run plans again)
			}
			note = v.Note + "\n" + line
		}
		return translate(c.ExtractionVersion.UpdateOneID(versionID).SetNote(note).Exec(ctx), "version")
	})
}

// SetEdits stores the edit log of a version made by editing its parent.
func (s *Store) SetEdits(ctx context.Context, versionID int, edits []curate.Edit) error {
	b, err := json.Marshal(edits)
	if err != nil {
		return fmt.Errorf("encode edits: %w", err)
	}
	return s.write(ctx, func(c *ent.Client) error {
		return translate(c.ExtractionVersion.UpdateOneID(versionID).SetEdits(string(b)).Exec(ctx), "version")
	})
}

func decodeEdits(s string) []curate.Edit {
	var out []curate.Edit
	if s != "" {
		_ = json.Unmarshal([]byte(s), &out)
	}
	return out
}

// SetInjected records how many extracted nodes of a version became nodes
// of the reference graph its run named.
func (s *Store) SetInjected(ctx context.Context, versionID, n int) error {
	return s.write(ctx, func(c *ent.Client) error {
		return translate(c.ExtractionVersion.UpdateOneID(versionID).SetInjected(n).Exec(ctx), "version")
	})
}

// SetDecisionsApplied records how many remembered merges and "not the
// same" answers a version's run applied.
func (s *Store) SetDecisionsApplied(ctx context.Context, versionID, merges, notSame int) error {
	return s.write(ctx, func(c *ent.Client) error {
		return translate(c.ExtractionVersion.UpdateOneID(versionID).SetMergesApplied(merges).SetNotSameApplied(notSame).Exec(ctx), "version")
	})
}

// Questions returns the question set stored on the named extraction (its
// JSON; "" when it has none).
func (s *Store) Questions(ctx context.Context, name string) (string, error) {
	ex, err := s.client.Extraction.Query().Where(extraction.Name(name)).Only(ctx)
	if err != nil {
		return "", translate(err, "extraction")
	}
	return ex.Questions, nil
}

// SetQuestions stores a question set (JSON) on the named extraction,
// replacing the one it had.
func (s *Store) SetQuestions(ctx context.Context, name, questions string) error {
	return s.inTx(ctx, func(w *writeTx) error {
		n, err := w.Client().Extraction.Update().Where(extraction.Name(name)).SetQuestions(questions).Save(ctx)
		if err != nil {
			return translate(err, "extraction")
		}
		if n == 0 {
			return extract.Errorf(extract.KindNotFound, "extraction %q not found", name)
		}
		return nil
	})
}

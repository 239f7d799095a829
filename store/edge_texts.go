package store

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/kgstudio/kgstudio/extract"
)

// Edge descriptions of edgeTextMin bytes or more are stored once per
// version, in edge_texts, and each edge refers to its own by hash
// (description_ref): the nlp strategy gives every edge of a sentence that
// sentence, so a version held each sentence some five times over (9.5 of
// its 14 MB of edges on a 2.7 MB corpus). Shorter descriptions stay in the
// edge row, where a reference would save little. A 64-bit hash repeated
// by two different texts of one version (odds about 1 in 10^10 for 100,000
// texts) would show one text for the other.
const edgeTextMin = 64

// edgeTextsTable is the bulk insert of edge_texts: a text written by
// another batch or chunk before is kept.
var edgeTextsTable = bulkTable{
	name:     "edge_texts",
	cols:     []string{"hash", "text"},
	pgTypes:  []string{"int8", "text"},
	conflict: "version_id, hash",
}

// textRef is the hash an edge description is stored under (never 0, the
// mark of a description held in the row).
func textRef(text string) int64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	if r := int64(h.Sum64()); r != 0 {
		return r
	}
	return 1
}

// pooledDescriptions splits edge descriptions into what the rows hold (the
// description, or "" with a reference) and the long texts to store once.
func pooledDescriptions(descs []string) (refs []int64, hashes []int64, texts []string) {
	refs = make([]int64, len(descs))
	seen := map[int64]bool{}
	for i, d := range descs {
		if len(d) < edgeTextMin {
			continue
		}
		r := textRef(d)
		refs[i], descs[i] = r, ""
		if !seen[r] {
			seen[r] = true
			hashes = append(hashes, r)
			texts = append(texts, d)
		}
	}
	return refs, hashes, texts
}

// insertEdgeTexts stores long edge descriptions, each (version, hash)
// once. It never takes the all-new path (COPY, INSERT without ON
// CONFLICT): batches of one version share texts.
func insertEdgeTexts(ctx context.Context, b *writeTx, versionID int, hashes []int64, texts []string) error {
	if len(hashes) == 0 {
		return nil
	}
	cp, allNew := b.copy, b.allNew
	b.copy, b.allNew = false, false
	defer func() { b.copy, b.allNew = cp, allNew }()
	rows := bulkRows(b.dialect)
	for start := 0; start < len(hashes); start += rows {
		end := min(start+rows, len(hashes))
		if err := edgeTextsTable.exec(ctx, b, versionID, end-start, columns{hashes[start:end], texts[start:end]}); err != nil {
			return fmt.Errorf("write edge texts: %w", err)
		}
	}
	return nil
}

// edgeTexts returns the version's stored edge texts by hash: those of
// refs, or every one when refs is nil.
func edgeTexts(ctx context.Context, q execQuerier, dia string, versionID int, refs []int64) (map[int64]string, error) {
	out := map[int64]string{}
	read := func(query string, args ...any) error {
		rows, err := queryOn(ctx, q, rebind(dia, query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h int64
			var t string
			if err := rows.Scan(&h, &t); err != nil {
				return err
			}
			out[h] = t
		}
		return rows.Err()
	}
	var err error
	if refs == nil {
		err = read(`SELECT hash, text FROM edge_texts WHERE version_id = ?`, versionID)
	} else {
		err = forList(refs, dia, "int8", func(in string, args []any) error {
			return read(`SELECT hash, text FROM edge_texts WHERE version_id = ? AND hash `+in, append([]any{versionID}, args...)...)
		})
	}
	if err != nil {
		return nil, translate(err, "edge texts")
	}
	return out, nil
}

// resolveDescriptions fills in the descriptions of edges stored by
// reference (refs[i] for edges[i]); a text that is missing is an error.
func resolveDescriptions(ctx context.Context, q execQuerier, dia string, versionID int, edges []*extract.Edge, refs []int64, all bool) error {
	var want []int64
	seen := map[int64]bool{}
	for _, r := range refs {
		if r != 0 && !seen[r] {
			seen[r] = true
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if all {
		want = nil
	}
	texts, err := edgeTexts(ctx, q, dia, versionID, want)
	if err != nil {
		return err
	}
	for i, r := range refs {
		if r == 0 {
			continue
		}
		t, ok := texts[r]
		if !ok {
			return extract.Errorf(extract.KindInternal, "edge %s: its description (text %s) is missing", edges[i].Key(), strconv.FormatInt(r, 36))
		}
		edges[i].Description = t
	}
	return nil
}

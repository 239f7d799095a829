package store

import (
	"bytes"
	"context"
	stdsql "database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"entgo.io/ent/dialect/sql"

	"github.com/kgstudio/kgstudio/ent"
	"github.com/kgstudio/kgstudio/ent/versionindex"
)

// IndexPart names a part of a version's stored search index.
type IndexPart string

// Parts of a version's stored search index.
const (
	// IndexVectors is the vector indexes of a version's chunks, nodes and
	// edges (query.VectorIndex's binary form).
	IndexVectors IndexPart = "vectors"
	// IndexLexical is the passages' BM25 postings and the graph's keyword
	// index (query.Corpus's AppendLexical form).
	IndexLexical IndexPart = "lexical"
	// IndexCommunities is the index of the communities global search
	// reads (query.Corpus's AppendCommunities form).
	IndexCommunities IndexPart = "communities"
	// IndexGraph is a version's graph as its questions load it
	// (query.AppendGraph's form).
	IndexGraph IndexPart = "graph"
	// IndexWalk is the walk graph ppr and mix walk, in compressed rows
	// (query.Corpus's AppendWalk form).
	IndexWalk IndexPart = "walk"
	// IndexScores is a version's scores on its extraction's question set
	// (app.VersionScores as JSON), stamped with the set's digest.
	IndexScores IndexPart = "scores"
	// IndexLayout is where the graph page draws each node (app.Layouts'
	// form), stamped with the graph's counts.
	IndexLayout IndexPart = "layout"
)

// indexPiece is the most bytes one row of a stored index part holds: a
// part of tens of megabytes is stored as rows of this size (the first
// named as the part, the next PART#000001, PART#000002 ...), so reading it back
// never holds more than one row in the database driver's memory beside
// the buffer it is read into.
const indexPiece = 1 << 20

// pieceName is the name the i-th row of a part is stored under: the
// numbers are zero-padded, so the rows' names sort in their order and
// are read in it through the (version, part) index, never sorted (a sort
// would copy every row's bytes once more).
func pieceName(part IndexPart, i int) string {
	if i == 0 {
		return string(part)
	}
	return fmt.Sprintf("%s#%06d", part, i)
}

// pieceOf selects the rows of one part of a version's index. Names are
// matched by prefix, not by a range of text: a database collation that
// ignores punctuation (glibc's en_US) would not keep "#" and "/" apart
// from the letters around them.
func pieceOf(versionID int, part IndexPart) *sql.Predicate {
	return sql.And(sql.EQ(versionindex.FieldVersionID, versionID),
		sql.Or(sql.EQ(versionindex.FieldPart, part), sql.HasPrefix(versionindex.FieldPart, string(part)+"#")))
}

// apartOf selects the rows a part keeps apart (SaveVersionIndexApart):
// those named PART/NAME.
func apartOf(versionID int, part IndexPart) *sql.Predicate {
	return sql.And(sql.EQ(versionindex.FieldVersionID, versionID), sql.HasPrefix(versionindex.FieldPart, string(part)+"/"))
}

// SaveVersionIndex stores one part of a version's search index with the
// stamp of what it was built from, replacing what the part held.
func (s *Store) SaveVersionIndex(ctx context.Context, versionID int, part IndexPart, stamp string, data []byte) error {
	return s.SaveVersionIndexApart(ctx, versionID, part, stamp, data, nil)
}

// SaveVersionIndexApart is SaveVersionIndex with pieces of the part kept
// in rows of their own, by name, for a reader to read only those it needs
// (ReadVersionIndexApart): a vector index's postings of each dimension.
// The part and its pieces are replaced at once.
func (s *Store) SaveVersionIndexApart(ctx context.Context, versionID int, part IndexPart, stamp string, data []byte, apart map[string][]byte) error {
	return s.write(ctx, func(c *ent.Client) error {
		_, err := c.VersionIndex.Delete().Where(func(sel *sql.Selector) {
			sel.Where(sql.Or(pieceOf(versionID, part), apartOf(versionID, part)))
		}).Exec(ctx)
		for i := 0; err == nil && (i == 0 || len(data) > 0); i++ {
			n := min(len(data), indexPiece)
			err = c.VersionIndex.Create().SetVersionID(versionID).SetPart(pieceName(part, i)).SetStamp(stamp).SetData(data[:n:n]).
				OnConflict(sql.ConflictColumns(versionindex.FieldVersionID, versionindex.FieldPart)).UpdateNewValues().Exec(ctx)
			data = data[n:]
		}
		names := slices.Sorted(maps.Keys(apart))
		for len(names) > 0 && err == nil {
			batch := names[:min(len(names), 256)]
			names = names[len(batch):]
			rows := make([]*ent.VersionIndexCreate, len(batch))
			for i, name := range batch {
				rows[i] = c.VersionIndex.Create().SetVersionID(versionID).SetPart(string(part) + "/" + name).SetStamp(stamp).SetData(apart[name])
			}
			err = c.VersionIndex.CreateBulk(rows...).Exec(ctx)
		}
		return translate(err, "version index")
	})
}

// ReadVersionIndexApart reads the pieces of a part kept apart, by name
// (see SaveVersionIndexApart), when stored with stamp; a name not stored
// so is absent from what it returns.
func (s *Store) ReadVersionIndexApart(ctx context.Context, versionID int, part IndexPart, stamp string, names []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(names))
	for len(names) > 0 {
		batch := names[:min(len(names), 500)]
		names = names[len(batch):]
		full := make([]any, len(batch))
		for i, name := range batch {
			full[i] = string(part) + "/" + name
		}
		q, args := sql.Dialect(s.Dialect).Select(versionindex.FieldPart, versionindex.FieldData).From(sql.Table(versionindex.Table)).
			Where(sql.And(sql.EQ(versionindex.FieldVersionID, versionID), sql.EQ(versionindex.FieldStamp, stamp),
				sql.In(versionindex.FieldPart, full...))).Query()
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, translate(err, "version index")
		}
		for rows.Next() {
			var name string
			var raw stdsql.RawBytes
			if err := rows.Scan(&name, &raw); err != nil {
				rows.Close()
				return nil, translate(err, "version index")
			}
			out[strings.TrimPrefix(name, string(part)+"/")] = bytes.Clone(raw)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, translate(err, "version index")
		}
	}
	return out, nil
}

// VersionIndex returns one part of a version's stored search index when
// it was built from what stamp names; ok is false when there is none or
// it was built from something else.
func (s *Store) VersionIndex(ctx context.Context, versionID int, part IndexPart, stamp string) (data []byte, ok bool, err error) {
	ok, err = s.ReadVersionIndex(ctx, versionID, part, stamp, func(b []byte) error {
		data = b
		return nil
	})
	return data, ok, err
}

// ReadVersionIndex is VersionIndex for a reader that decodes the part as
// it is read: read gets the stored bytes in a buffer of their size that
// is its own (a decoder may keep slices of it rather than copy them).
// The rows are read one at a time into it, so a part of tens of
// megabytes is held once, not also by the driver.
func (s *Store) ReadVersionIndex(ctx context.Context, versionID int, part IndexPart, stamp string, read func(data []byte) error) (ok bool, err error) {
	d := sql.Dialect(s.Dialect)
	// The pieces' sizes first (their lengths are read without their
	// bytes), so the buffer is allocated once.
	q, args := d.Select(versionindex.FieldStamp, "length("+versionindex.FieldData+")").From(sql.Table(versionindex.Table)).
		Where(pieceOf(versionID, part)).OrderBy(versionindex.FieldPart).Query()
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return false, translate(err, "version index")
	}
	var sizes []int
	total := 0
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			rows.Close()
			return false, translate(err, "version index")
		}
		if st != stamp {
			rows.Close()
			return false, nil
		}
		sizes = append(sizes, n)
		total += n
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil || len(sizes) == 0 {
		return false, translate(err, "version index")
	}
	q, args = d.Select(versionindex.FieldData).From(sql.Table(versionindex.Table)).
		Where(sql.And(pieceOf(versionID, part), sql.EQ(versionindex.FieldStamp, stamp))).OrderBy(versionindex.FieldPart).Query()
	if rows, err = s.db.QueryContext(ctx, q, args...); err != nil {
		return false, translate(err, "version index")
	}
	defer rows.Close()
	buf := make([]byte, 0, total)
	got := 0
	for rows.Next() {
		var raw stdsql.RawBytes
		if err := rows.Scan(&raw); err != nil {
			return false, translate(err, "version index")
		}
		if got >= len(sizes) || len(raw) != sizes[got] {
			return false, nil // stored again between the two reads
		}
		buf = append(buf, raw...)
		got++
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return false, translate(err, "version index")
	}
	if got != len(sizes) {
		return false, nil
	}
	return true, read(buf)
}

// deleteVersionIndexes drops the stored search indexes of versions (their
// graph or vectors changed).
func deleteVersionIndexes(ctx context.Context, c *ent.Client, versionIDs ...int) error {
	if len(versionIDs) == 0 {
		return nil
	}
	_, err := c.VersionIndex.Delete().Where(versionindex.VersionIDIn(versionIDs...)).Exec(ctx)
	return translate(err, "version index")
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

const docUsage = `usage:
  kgstudio doc add FILE...
  kgstudio doc list [--json]
  kgstudio doc delete ID`

// cmdDoc handles "doc add FILE...", "doc list" and "doc delete ID".
func cmdDoc(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(docUsage)
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, docUsage)
		return nil
	}
	fs, cfg := newFlagSet("doc "+args[0], stderr)
	asJSON := fs.Bool("json", false, "list: print JSON")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	switch args[0] {
	case "add", "list", "delete":
	default:
		return fmt.Errorf("doc: unknown subcommand %q\n%s", args[0], docUsage)
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	switch args[0] {
	case "add":
		if len(pos) == 0 {
			return errors.New("doc add: name at least one file")
		}
		_, err = addFiles(ctx, a.Documents, pos, cfg.MaxUpload, stdout)
		return err
	case "list":
		docs, err := a.Documents.List(ctx, 0)
		if err != nil {
			return err
		}
		if *asJSON {
			out := make([]docJSON, len(docs))
			for i, d := range docs {
				out[i] = docJSON{ID: d.ID, Name: d.Name, Kind: d.Kind, Bytes: d.Size}
			}
			return json.NewEncoder(stdout).Encode(out)
		}
		for _, d := range docs {
			fmt.Fprintf(stdout, "%d\t%s\t%d bytes\t%s\n", d.ID, d.Kind, d.Size, d.Name)
		}
		return nil
	default: // delete
		if len(pos) != 1 {
			return errors.New("doc delete: name one document ID")
		}
		id, err := strconv.Atoi(pos[0])
		if err != nil || id <= 0 {
			return fmt.Errorf("doc delete: %q is not a document ID (kgstudio doc list shows them)", pos[0])
		}
		if err := a.Documents.Delete(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted document %d\n", id)
		return nil
	}
}

// docJSON is a document in "doc list --json".
type docJSON struct {
	ID    int             `json:"id"`
	Name  string          `json:"name"`
	Kind  extract.DocKind `json:"kind"`
	Bytes int             `json:"bytes"`
}

// Flushing thresholds of a folder: its documents are stored in one
// transaction each time this many, or this many bytes of them, are read.
const (
	folderBatchDocs  = 20_000
	folderBatchBytes = 64 << 20
)

// addFiles stores files, folders, zips and JSON corpora as documents (see
// app.ReadDocuments and app.ReadFolder). A file that holds one document
// prints one line (id, kind, name, added or already stored); a folder, a
// zip or a corpus prints how many documents it added, and the files of
// folders and zips that were skipped are named. Every readable file is
// stored, the documents of one argument in one transaction (a folder in
// a few); the files and passages refused (missing, too large, not text,
// malformed) are named in the error returned after the others.
func addFiles(ctx context.Context, documents *app.Documents, files []string, max int, out io.Writer) ([]extract.Document, error) {
	ad := &docAdder{documents: documents, max: max, out: out}
	for _, f := range files {
		info, err := os.Stat(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			ad.refuse(f, "no such file")
		case err != nil:
			ad.refuse(f, "cannot read it")
		case info.IsDir():
			if err := ad.addFolder(ctx, f); err != nil {
				return ad.docs, err
			}
		case extract.OverLimit(f, info.Size(), max) != "":
			ad.refuse(f, extract.OverLimit(f, info.Size(), max))
		default:
			if err := ad.addFile(ctx, f); err != nil {
				return ad.docs, err
			}
		}
	}
	printSkipped(out, ad.skipped)
	if ad.many || len(files) > 1 {
		fmt.Fprintf(out, "added %d documents (%d of %d were already stored)\n", ad.added, ad.total-ad.added, ad.total)
	}
	if len(ad.refused) > 0 {
		return ad.docs, fmt.Errorf("refused %d: %s", len(ad.refused), strings.Join(ad.refused, "; "))
	}
	return ad.docs, nil
}

// docAdder stores the documents of the files and folders doc add is
// given and keeps what its summary reports: the documents stored, the
// files refused and skipped, and the counts.
type docAdder struct {
	documents    *app.Documents
	max          int
	out          io.Writer
	docs         []extract.Document
	refused      []string
	skipped      []app.Problem
	total, added int
	many         bool
}

// refuse notes a file refused, named by its path unless msg names it.
func (ad *docAdder) refuse(f, msg string) {
	if !strings.Contains(msg, filepath.Base(f)) {
		msg = f + ": " + msg
	}
	ad.refused = append(ad.refused, msg)
}

// problems notes the documents of a file that were refused.
func (ad *docAdder) problems(ps []app.Problem) {
	for _, p := range ps {
		msg := p.Error
		if !strings.Contains(msg, p.Name) {
			msg = p.Name + ": " + msg
		}
		ad.refused = append(ad.refused, msg)
	}
}

// save stores documents; n and created count them for the summary line
// of a folder, zip or corpus.
func (ad *docAdder) save(ctx context.Context, pending []extract.Document, n, created *int) ([]extract.Document, error) {
	if len(pending) == 0 {
		return nil, nil
	}
	got, isNew, err := ad.documents.Add(ctx, pending)
	if err != nil {
		return nil, err
	}
	for _, c := range isNew {
		if c {
			*created++
		}
	}
	*n += len(got)
	ad.docs = append(ad.docs, got...)
	return got, nil
}

// addFolder stores the documents of a folder, a batch at a time; only a
// database's failure is returned, a folder it cannot read is refused.
func (ad *docAdder) addFolder(ctx context.Context, f string) error {
	ad.many = true
	n, created := 0, 0
	var pending []extract.Document
	size := 0
	err := app.ReadFolder(ctx, f, ad.max, func(fd app.FileDocuments) error {
		ad.skipped = append(ad.skipped, fd.Skipped...)
		ad.problems(fd.Refused)
		pending = append(pending, fd.Docs...)
		for _, d := range fd.Docs {
			size += len(d.Content)
		}
		if len(pending) < folderBatchDocs && size < folderBatchBytes {
			return nil
		}
		_, err := ad.save(ctx, pending, &n, &created)
		pending, size = nil, 0
		return err
	})
	if err == nil {
		_, err = ad.save(ctx, pending, &n, &created)
	}
	if n > 0 || err == nil {
		fmt.Fprintf(ad.out, "%s\t%d documents\t%d added\t%d already stored\n", f, n, created, n-created)
	}
	ad.total, ad.added = ad.total+n, ad.added+created
	if err != nil {
		if extract.KindOf(err) == extract.KindInternal || extract.KindOf(err) == extract.KindUnavailable {
			return err
		}
		ad.refuse(f, "cannot read the folder")
	}
	return nil
}

// addFile stores the documents of one file (one, or many from a zip or
// a corpus) and prints a line each, or one for many; only a database's
// failure is returned, a file it cannot read is refused.
func (ad *docAdder) addFile(ctx context.Context, f string) error {
	data, err := os.ReadFile(f)
	if err != nil {
		ad.refuse(f, "cannot read it")
		return nil
	}
	fd, err := app.ReadDocuments(ctx, filepath.Base(f), data, ad.max)
	if err != nil {
		ad.refuse(f, extract.MessageOf(err))
		return nil
	}
	ad.skipped = append(ad.skipped, fd.Skipped...)
	ad.problems(fd.Refused)
	n, created := 0, 0
	got, err := ad.save(ctx, fd.Docs, &n, &created)
	if err != nil {
		return err
	}
	ad.total, ad.added = ad.total+n, ad.added+created
	if fd.Many {
		ad.many = true
		fmt.Fprintf(ad.out, "%s\t%d documents\t%d added\t%d already stored\n", f, n, created, n-created)
		return nil
	}
	for i, d := range got {
		state := "added"
		if created == 0 {
			state = "already stored"
			// The same content under another name is named as the file
			// given, with the stored one's name.
			if i < len(fd.Docs) && fd.Docs[i].Name != d.Name {
				state = "already stored as " + d.Name
				d.Name = fd.Docs[i].Name
			}
		}
		fmt.Fprintf(ad.out, "%d\t%s\t%s\t%s\n", d.ID, d.Kind, d.Name, state)
	}
	return nil
}

// printSkipped names the files of folders and zips that were not read,
// hidden ones apart from those of other kinds, ten names a line at most.
func printSkipped(out io.Writer, skipped []app.Problem) {
	var hidden, other []string
	for _, p := range skipped {
		switch app.Skip(p.Error) {
		case app.SkipHidden:
			hidden = append(hidden, p.Name)
		case app.SkipOtherKind:
			other = append(other, p.Name)
		default:
			other = append(other, p.Name+" ("+p.Error+")")
		}
	}
	list := func(names []string) string {
		if len(names) > 10 {
			return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
		}
		return strings.Join(names, ", ")
	}
	if len(hidden) > 0 {
		fmt.Fprintf(out, "skipped %d hidden: %s\n", len(hidden), list(hidden))
	}
	if len(other) > 0 {
		fmt.Fprintf(out, "skipped %d of other kinds (kgstudio reads %s): %s\n", len(other), app.DocumentExts(), list(other))
	}
}

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
	var docs []extract.Document
	var refused []string
	var skipped []app.Problem
	refuse := func(f, msg string) {
		if !strings.Contains(msg, filepath.Base(f)) {
			msg = f + ": " + msg
		}
		refused = append(refused, msg)
	}
	problems := func(ps []app.Problem) {
		for _, p := range ps {
			msg := p.Error
			if !strings.Contains(msg, p.Name) {
				msg = p.Name + ": " + msg
			}
			refused = append(refused, msg)
		}
	}
	total, added, many := 0, 0, false
	// save stores documents; n and created count them for the summary
	// line of a folder, zip or corpus.
	save := func(pending []extract.Document, n, created *int) ([]extract.Document, error) {
		if len(pending) == 0 {
			return nil, nil
		}
		got, isNew, err := documents.Add(ctx, pending)
		if err != nil {
			return nil, err
		}
		for _, c := range isNew {
			if c {
				*created++
			}
		}
		*n += len(got)
		docs = append(docs, got...)
		return got, nil
	}
	for _, f := range files {
		info, err := os.Stat(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			refuse(f, "no such file")
			continue
		case err != nil:
			refuse(f, "cannot read it")
			continue
		case info.IsDir():
			many = true
			n, created := 0, 0
			var pending []extract.Document
			size := 0
			err := app.ReadFolder(ctx, f, max, func(fd app.FileDocuments) error {
				skipped = append(skipped, fd.Skipped...)
				problems(fd.Refused)
				pending = append(pending, fd.Docs...)
				for _, d := range fd.Docs {
					size += len(d.Content)
				}
				if len(pending) < folderBatchDocs && size < folderBatchBytes {
					return nil
				}
				_, err := save(pending, &n, &created)
				pending, size = nil, 0
				return err
			})
			if err == nil {
				_, err = save(pending, &n, &created)
			}
			if n > 0 || err == nil {
				fmt.Fprintf(out, "%s\t%d documents\t%d added\t%d already stored\n", f, n, created, n-created)
			}
			total, added = total+n, added+created
			if err != nil {
				if extract.KindOf(err) == extract.KindInternal || extract.KindOf(err) == extract.KindUnavailable {
					return docs, err
				}
				refuse(f, "cannot read the folder")
			}
			continue
		case extract.OverLimit(f, info.Size(), max) != "":
			refuse(f, extract.OverLimit(f, info.Size(), max))
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			refuse(f, "cannot read it")
			continue
		}
		fd, err := app.ReadDocuments(ctx, filepath.Base(f), data, max)
		if err != nil {
			refuse(f, extract.MessageOf(err))
			continue
		}
		skipped = append(skipped, fd.Skipped...)
		problems(fd.Refused)
		n, created := 0, 0
		got, err := save(fd.Docs, &n, &created)
		if err != nil {
			return docs, err
		}
		total, added = total+n, added+created
		if fd.Many {
			many = true
			fmt.Fprintf(out, "%s\t%d documents\t%d added\t%d already stored\n", f, n, created, n-created)
			continue
		}
		for i, d := range got {
			state := "added"
			if created == 0 {
				state = "already stored"
				// The same content under another name is named as the
				// file given, with the stored one's name.
				if i < len(fd.Docs) && fd.Docs[i].Name != d.Name {
					state = "already stored as " + d.Name
					d.Name = fd.Docs[i].Name
				}
			}
			fmt.Fprintf(out, "%d\t%s\t%s\t%s\n", d.ID, d.Kind, d.Name, state)
		}
	}
	printSkipped(out, skipped)
	if many || len(files) > 1 {
		fmt.Fprintf(out, "added %d documents (%d of %d were already stored)\n", added, total-added, total)
	}
	if len(refused) > 0 {
		return docs, fmt.Errorf("refused %d: %s", len(refused), strings.Join(refused, "; "))
	}
	return docs, nil
}

// printSkipped names the files of folders and zips that were not read,
// hidden ones apart from those of other kinds, ten names a line at most.
func printSkipped(out io.Writer, skipped []app.Problem) {
	var hidden, other []string
	for _, p := range skipped {
		switch p.Error {
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

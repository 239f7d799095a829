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
	"github.com/kgstudio/kgstudio/store"
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
	st, err := cfg.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	switch args[0] {
	case "add":
		if len(pos) == 0 {
			return errors.New("doc add: name at least one file")
		}
		_, err = addFiles(ctx, st, pos, cfg.MaxUpload, stdout)
		return err
	case "list":
		docs, err := st.ListDocuments(ctx, 0)
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
		if err := st.DeleteDocument(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted document %d\n", id)
		return nil
	}
}

// docJSON is a document in "doc list --json".
type docJSON struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Bytes int    `json:"bytes"`
}

// addFiles stores files as documents and prints one line each: every
// readable file is stored, and the files refused (missing, too large, not
// text, malformed) are named in the error returned after the others.
func addFiles(ctx context.Context, st *store.Store, files []string, max int, out io.Writer) ([]extract.Document, error) {
	var docs []extract.Document
	var refused []string
	refuse := func(f, msg string) {
		if !strings.Contains(msg, filepath.Base(f)) {
			msg = f + ": " + msg
		}
		refused = append(refused, msg)
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
			refuse(f, "is a folder, not a file")
			continue
		case info.Size() > int64(max):
			refuse(f, fmt.Sprintf("%d bytes is over the limit of %d bytes", info.Size(), max))
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			refuse(f, "cannot read it")
			continue
		}
		d, err := app.ReadDocument(filepath.Base(f), data, max)
		if err != nil {
			refuse(f, extract.MessageOf(err))
			continue
		}
		d, created, err := st.AddDocument(ctx, d)
		if err != nil {
			return docs, err
		}
		state := "added"
		if !created {
			state = "already stored"
		}
		fmt.Fprintf(out, "%d\t%s\t%s\t%s\n", d.ID, d.Kind, d.Name, state)
		docs = append(docs, d)
	}
	if len(refused) > 0 {
		return docs, fmt.Errorf("refused %d of %d files: %s", len(refused), len(files), strings.Join(refused, "; "))
	}
	return docs, nil
}

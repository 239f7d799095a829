package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/store"
)

// cmdDoc handles "doc add FILE...".
func cmdDoc(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		return errors.New("usage: kgstudio doc add FILE")
	}
	fs, cfg := newFlagSet("doc add", stderr)
	files, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("doc add: name at least one file")
	}
	st, err := cfg.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = addFiles(ctx, st, files, cfg.MaxUpload, stdout)
	return err
}

// addFiles stores files as documents and prints one line each. It stops at
// the first unreadable or invalid file.
func addFiles(ctx context.Context, st *store.Store, files []string, max int, out io.Writer) ([]extract.Document, error) {
	var docs []extract.Document
	for _, f := range files {
		info, err := os.Stat(f)
		if err != nil {
			return docs, fmt.Errorf("%s: %w", f, err)
		}
		if info.Size() > int64(max) {
			return docs, fmt.Errorf("%s: %d bytes is over the limit of %d bytes", f, info.Size(), max)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return docs, fmt.Errorf("%s: %w", f, err)
		}
		d, err := extract.ReadDocument(filepath.Base(f), data, max)
		if err != nil {
			return docs, fmt.Errorf("%s: %s", f, extract.MessageOf(err))
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
	return docs, nil
}

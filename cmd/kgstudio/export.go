package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
)

// cmdExport writes a version's graph as JSON, GraphML, neo4j-admin CSV or
// a Cypher script: to stdout, or to --out. CSV writes nodes.csv and
// edges.csv into the --out folder, or into a zip when --out ends in .zip.
// An existing non-empty --out (file or folder) is refused unless --force.
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("export", stderr)
	format := fs.String("format", "json", "json, graphml, csv or cypher")
	out := fs.String("out", "", "output file (for csv a folder or a .zip file); default stdout")
	chunks := fs.Bool("chunks", false, "add KAG's chunk nodes with a source edge from every node to its chunks")
	namespace := fs.String("namespace", "", "prefix every node type with NS. as KAG labels a project's graph (RiskMining.Person)")
	force := fs.Bool("force", false, "overwrite an existing non-empty --out file or folder (default: refuse)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("export: name one version, NAME@V (NAME alone is the latest)")
	}
	switch *format {
	case "json", "graphml", "cypher":
	case "csv":
		if *out == "" {
			return errors.New("export: csv writes nodes.csv and edges.csv: give a folder or a .zip file with --out")
		}
		if strings.EqualFold(filepath.Ext(*out), ".csv") {
			return fmt.Errorf("export: csv writes two files, nodes.csv and edges.csv: give a folder or a .zip file with --out, not %s", *out)
		}
	default:
		return fmt.Errorf("export: unknown format %q (want json, graphml, csv or cypher)", *format)
	}
	if *out != "" && *format != "csv" {
		if info, err := os.Stat(*out); err == nil && info.IsDir() {
			return fmt.Errorf("export: %s is a folder; %s is written to one file: give a file path with --out", *out, *format)
		}
	}
	if *out != "" && !*force {
		if err := refuseOverwrite(*out); err != nil {
			return err
		}
	}
	a, v, err := cfg.openVersion(ctx, pos[0], cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	// Only JSON keeps mentions; chunk nodes are made from them.
	g, err := a.Graphs.Load(ctx, v.ID, *format == "json" || *chunks)
	if err != nil {
		return err
	}
	if *chunks {
		chunks, err := a.Versions.AllChunks(ctx, v)
		if err != nil {
			return err
		}
		g = export.WithChunks(g, a.Documents.Namer(ctx), chunks)
	}
	if g, err = export.WithNamespace(g, *namespace); err != nil {
		return err
	}
	if *format == "csv" && strings.EqualFold(filepath.Ext(*out), ".zip") {
		if err := export.CSVZip(*out, g); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: %d nodes, %d edges written to %s (%s, %s)\n", v.Label(), len(g.Nodes), len(g.Edges),
			*out, export.NodesFile, export.EdgesFile)
		return nil
	}
	if *format == "csv" {
		if err := export.CSVDir(*out, g); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: %d nodes, %d edges written to %s/{%s,%s}\n", v.Label(), len(g.Nodes), len(g.Edges),
			*out, export.NodesFile, export.EdgesFile)
		return removeOtherCSV(stderr, *out)
	}
	if *out == "" {
		if err := export.Write(stdout, *format, g); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: %d nodes, %d edges written as %s to standard output\n", v.Label(), len(g.Nodes), len(g.Edges), *format)
		return nil
	}
	if err := writeExportFile(*out, *format, g); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %d nodes, %d edges written as %s to %s\n", v.Label(), len(g.Nodes), len(g.Edges), *format, *out)
	return nil
}

// refuseOverwrite is an error when path is a non-empty file or a folder
// holding anything, so an export never replaces earlier work unasked.
func refuseOverwrite(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return nil // absent (or unreadable: creating it will say why)
	}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil || len(entries) == 0 {
			return nil
		}
		return extract.Errorf(extract.KindConflict, "export: the folder %s is not empty (it holds %s): give another --out, or --force to overwrite", path, entries[0].Name())
	}
	if info.Size() == 0 {
		return nil
	}
	return extract.Errorf(extract.KindConflict, "export: %s exists (%d bytes): give another --out, or --force to overwrite it", path, info.Size())
}

// removeOtherCSV removes the .csv files of the folder dir other than the
// two a CSV export writes: an import reads every .csv file of a folder,
// so another export's files (header files, relationships.csv) left
// beside ours would break it or mix into the graph. It runs only under
// --force (a folder holding anything is refused without it), names what
// it removed, and keeps every other file.
func removeOtherCSV(stderr io.Writer, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return extract.Wrap(extract.KindUnavailable, err, "export: read %s", dir)
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.EqualFold(filepath.Ext(name), ".csv") || name == export.NodesFile || name == export.EdgesFile {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return extract.Wrap(extract.KindUnavailable, err, "export: remove %s", name)
		}
		removed = append(removed, name)
	}
	if len(removed) > 0 {
		fmt.Fprintf(stderr, "removed the other CSV files of %s, which an import would read with these: %s\n", dir, strings.Join(removed, ", "))
	}
	return nil
}

// writeExportFile writes one export to a new or truncated file.
func writeExportFile(path, format string, g extract.Graph) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "export: cannot create %s", path)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = extract.Wrap(extract.KindUnavailable, cerr, "export: close %s", path)
		}
	}()
	return export.Write(f, format, g)
}

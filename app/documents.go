package app

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/extract/export"
)

// ReadDocument is extract.ReadDocument plus the checks that need the
// strategies' readers: a .json file, or a document that looks like a
// dialogue, must parse as one of the known dialogue shapes. A file that is
// not valid JSON, or valid JSON of no known shape, is refused with the
// reason and, for a shape, the JSON path of the bad field: it is not stored
// as text to fail later.
//
// A graph file (this project's JSON export, networkx's node-link JSON,
// GraphML, a zip of neo4j CSV files) is not a document: it is refused
// with the form and the command that import it, instead of running to an
// empty graph.
func ReadDocument(ctx context.Context, name string, data []byte, maxBytes int) (extract.Document, error) {
	if extract.Converts(name) {
		// An HTML page or a Word document: its text.
		text, err := extract.ToText(ctx, name, data, maxBytes)
		if err != nil {
			return extract.Document{}, err
		}
		return extract.ReadDocument(name, text, maxBytes)
	}
	if export.IsZip(data) {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s is a zip, not a document: a zip of neo4j CSV files imports as a graph with the Extractions page's import form or kgstudio import NAME %s", name, name)
	}
	d, err := extract.ReadDocument(name, data, maxBytes)
	if err != nil {
		return d, err
	}
	if isGraphFile(name, d.Content) {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s is a graph, not a document: import it as a version with the Extractions page's import form or kgstudio import NAME %s", name, name)
	}
	if d.Kind != extract.DocDialogue && !strings.EqualFold(filepath.Ext(name), ".json") {
		return d, nil
	}
	if _, err := dialogue.ParseAll([]byte(d.Content)); err != nil {
		return extract.Document{}, extract.Errorf(extract.KindInvalid,
			"%s: %s (a .json document must hold a dialogue: LoCoMo, MemoryBank, LongMemEval or kgstudio's own shape)", name, extract.MessageOf(err))
	}
	d.Kind = extract.DocDialogue
	return d, nil
}

// isGraphFile reports whether a file holds a graph this project can import:
// GraphML, or the JSON export (nodes and edges at the top).
func isGraphFile(name, content string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".graphml":
		return true
	case ".json":
		_, err := export.ReadJSON([]byte(content))
		return err == nil
	}
	return strings.Contains(content[:min(len(content), 512)], "<graphml")
}

// Problem is a file of an add (or a passage of a corpus) that was left
// out, with the reason.
type Problem struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// FileDocuments is what one file given to add holds: its documents, and
// the files inside it (of a zip) or passages (of a corpus) left out.
type FileDocuments struct {
	// Name is the file's name as given.
	Name string
	// Many is true for a zip, a folder's file list or a corpus, whose
	// documents are counted rather than listed.
	Many bool
	Docs []extract.Document
	// Skipped are files that were not read: hidden, or of a kind no
	// reader takes.
	Skipped []Problem
	// Refused are files or passages that were read and refused.
	Refused []Problem
}

// documentExts are the extensions of the files read from a folder or a
// zip; others are skipped.
var documentExts = []string{".txt", ".text", ".md", ".markdown", ".csv", ".tsv", ".json", ".jsonl", ".html", ".htm", ".xhtml", ".docx"}

// DocumentExts names the kinds of file read from a folder or a zip, for
// messages.
func DocumentExts() string { return strings.Join(documentExts, " ") + " and .zip" }

// Skip is why a file met in a folder or a zip is not read.
type Skip string

// The reasons SkipReason gives.
const (
	SkipHidden    Skip = "hidden"
	SkipOtherKind Skip = "not a kind of file kgstudio reads"
)

// SkipReason says why a file met in a folder or a zip (p is its path
// there, with / or \) is not read: SkipHidden for a hidden file or folder
// (a name that starts with "."), SkipOtherKind for a kind of file no
// reader takes (see DocumentExts); "" to read it. A .zip is read.
func SkipReason(p string) Skip {
	p = strings.ReplaceAll(p, "\\", "/")
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return SkipHidden
		}
	}
	ext := strings.ToLower(path.Ext(p))
	if ext == ".zip" || slices.Contains(documentExts, ext) {
		return ""
	}
	return SkipOtherKind
}

// errNotList stands for a corpus not read because the JSON is no list.
var errNotList = errors.New("not a list")

// zipUnpackFactor bounds what a zip unpacks to: this many times the size
// limit of one upload.
const zipUnpackFactor = 10

// ReadDocuments reads one file given to add into its documents:
//
//   - a zip: the documents of its files, in the zip's order (folders
//     inside it too); hidden files, files of other kinds and zips inside
//     it are skipped, files refused by their reader are listed with the
//     reason; a path that leads out of the zip ("../x", "/x"), an entry
//     that cannot be unpacked, or more than zipUnpackFactor times maxBytes
//     unpacked refuses the whole zip. A zip of neo4j CSV files is a graph
//     and refused as ReadDocument refuses it.
//   - a .json file that is not a dialogue but a corpus of passages (see
//     extract.ReadCorpus): one text document per passage, named by its
//     title (or "FILE passage N" when it has none), holding its text (or
//     its title when it has no text).
//   - anything else: one document, as ReadDocument reads it.
//
// Each file counts against maxBytes on its own (a CSV table against
// extract.SizeLimit's larger limit). An error refuses the file
// as a whole; it is an *extract.Error of kind invalid naming the file.
func ReadDocuments(ctx context.Context, name string, data []byte, maxBytes int) (FileDocuments, error) {
	if maxBytes <= 0 {
		maxBytes = extract.DefaultMaxBytes
	}
	if limit := extract.SizeLimit(name, maxBytes); len(data) > limit {
		return FileDocuments{Name: name}, extract.Errorf(extract.KindInvalid, "%s is %d bytes, over the size limit of %d bytes", name, len(data), limit)
	}
	if export.IsZip(data) && !extract.Converts(name) {
		return readZip(ctx, name, data, maxBytes)
	}
	return readFile(ctx, name, name, data, maxBytes)
}

// readFile reads a file that is not a zip; label names it in messages
// (a zip's name and the path inside it).
func readFile(ctx context.Context, label, name string, data []byte, maxBytes int) (FileDocuments, error) {
	fd := FileDocuments{Name: label}
	if !strings.EqualFold(filepath.Ext(name), ".json") {
		d, err := ReadDocument(ctx, name, data, maxBytes)
		if err != nil {
			return fd, err
		}
		fd.Docs = []extract.Document{d}
		return fd, nil
	}
	d, err := extract.ReadDocument(name, data, maxBytes)
	if err != nil {
		return fd, err
	}
	const shapes = `a .json document must hold a dialogue (LoCoMo, MemoryBank, LongMemEval or kgstudio's own shape) or a corpus of passages ([{"title": ..., "text": ...}] or {"title": ["sentence", ...]})`
	var passages []extract.Passage
	if isGraphFile(name, d.Content) {
		// A list of {"id", ...} objects reads as KAG's nodes file; one
		// whose objects all have a title or a text is a corpus.
		var cerr error = errNotList
		if d.Kind != extract.DocDialogue && strings.HasPrefix(strings.TrimSpace(d.Content), "[") {
			passages, cerr = extract.ReadCorpus(strings.NewReader(d.Content))
		}
		if cerr != nil {
			return fd, extract.Errorf(extract.KindInvalid,
				"%s is a graph, not a document: import it as a version with the Extractions page's import form or kgstudio import NAME %s", name, name)
		}
	} else {
		_, derr := dialogue.ParseAll([]byte(d.Content))
		if derr == nil {
			d.Kind = extract.DocDialogue
			fd.Docs = []extract.Document{d}
			return fd, nil
		}
		// JSON shaped like turns of a conversation, or no JSON at all, is
		// told what is wrong with it as a dialogue; other JSON as a corpus.
		if d.Kind == extract.DocDialogue || !json.Valid([]byte(d.Content)) {
			return fd, extract.Errorf(extract.KindInvalid, "%s: %s (%s)", name, extract.MessageOf(derr), shapes)
		}
		var cerr error
		if passages, cerr = extract.ReadCorpus(strings.NewReader(d.Content)); cerr != nil {
			return fd, extract.Errorf(extract.KindInvalid, "%s: %s (%s)", name, extract.MessageOf(cerr), shapes)
		}
	}
	if !slices.ContainsFunc(passages, func(p extract.Passage) bool { return strings.TrimSpace(p.Text) != "" }) {
		// Titles alone: other JSON whose objects happen to have a title.
		return fd, extract.Errorf(extract.KindInvalid, "%s: none of its %d passages has a text (%s)", name, len(passages), shapes)
	}
	fd.Many = true
	fd.Docs, fd.Refused = passageDocuments(label, passages, maxBytes)
	if len(fd.Docs) == 0 {
		return fd, extract.Errorf(extract.KindInvalid, "%s: none of its %d passages could be read: %s", label, len(passages), fd.Refused[0].Error)
	}
	return fd, nil
}

// passageDocuments turns the passages of a corpus into text documents.
func passageDocuments(file string, passages []extract.Passage, maxBytes int) ([]extract.Document, []Problem) {
	docs := make([]extract.Document, 0, len(passages))
	var refused []Problem
	for i, p := range passages {
		name := strings.Join(strings.Fields(p.Title), " ")
		if name == "" {
			name = fmt.Sprintf("%s passage %d", path.Base(filepath.ToSlash(file)), i+1)
		}
		if r := []rune(name); len(r) > extract.MaxNameLen {
			name = string(r[:extract.MaxNameLen-1]) + "…"
		}
		d, err := extract.ReadDocument(name, []byte(p.Content()), maxBytes)
		if err != nil {
			refused = append(refused, Problem{Name: fmt.Sprintf("%s passage %d (%s)", file, i+1, extract.Clip(name, 60)), Error: extract.MessageOf(err)})
			continue
		}
		d.Kind = extract.DocText
		docs = append(docs, d)
	}
	return docs, refused
}

// readZip reads the files of a zip (see ReadDocuments).
func readZip(ctx context.Context, name string, data []byte, maxBytes int) (FileDocuments, error) {
	fd := FileDocuments{Name: name, Many: true}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return fd, extract.Wrap(extract.KindInvalid, err, "%s is not a zip that can be read (cut off or damaged?)", name)
	}
	// A graph (neo4j CSV files) is told by its headers first: a zip of CSV
	// tables is not unpacked whole to find out.
	if export.MayBeCSVZip(data) {
		if _, gerr := export.ReadCSVZip(data); gerr == nil {
			return fd, extract.Errorf(extract.KindInvalid,
				"%s is a zip of neo4j CSV files, a graph: import it as a version with the Extractions page's import form or kgstudio import NAME %s", name, name)
		}
	}
	for _, f := range zr.File {
		if !localZipPath(f.Name) {
			return fd, extract.Errorf(extract.KindInvalid, "%s holds %q, a path that leads out of the zip; nothing of the zip was added", name, f.Name)
		}
	}
	total := 0
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		entry := name + "/" + f.Name
		if r := SkipReason(f.Name); r != "" {
			fd.Skipped = append(fd.Skipped, Problem{Name: entry, Error: string(r)})
			continue
		}
		if strings.EqualFold(path.Ext(f.Name), ".zip") {
			fd.Skipped = append(fd.Skipped, Problem{Name: entry, Error: "a zip inside a zip is not read"})
			continue
		}
		if f.Mode()&fs.ModeSymlink != 0 {
			fd.Skipped = append(fd.Skipped, Problem{Name: entry, Error: "a link, not a file"})
			continue
		}
		limit := extract.SizeLimit(f.Name, maxBytes)
		if why := extract.OverLimit(f.Name, int64(min(f.UncompressedSize64, 1<<62)), maxBytes); why != "" {
			fd.Refused = append(fd.Refused, Problem{Name: entry, Error: why})
			continue
		}
		b, err := readZipFile(f, limit)
		if err != nil {
			return fd, extract.Wrap(extract.KindInvalid, err, "%s is damaged: %s cannot be unpacked; nothing of the zip was added", name, f.Name)
		}
		if why := extract.OverLimit(f.Name, int64(len(b)), maxBytes); why != "" {
			fd.Refused = append(fd.Refused, Problem{Name: entry, Error: why})
			continue
		}
		if total += len(b); total > zipUnpackFactor*maxBytes {
			return fd, extract.Errorf(extract.KindInvalid, "%s unpacks to more than %d bytes (%d times the upload limit); nothing of the zip was added", name, zipUnpackFactor*maxBytes, zipUnpackFactor)
		}
		sub, err := readFile(ctx, entry, f.Name, b, maxBytes)
		if err != nil {
			fd.Refused = append(fd.Refused, Problem{Name: entry, Error: extract.MessageOf(err)})
			continue
		}
		fd.Docs = append(fd.Docs, sub.Docs...)
		fd.Refused = append(fd.Refused, sub.Refused...)
	}
	return fd, nil
}

// readZipFile unpacks one file of a zip, reading at most one byte past
// maxBytes; a damaged entry (bad checksum, bad compressed data) fails.
func readZipFile(f *zip.File, maxBytes int) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, int64(maxBytes)+1))
	if err != nil {
		return nil, err
	}
	if len(b) <= maxBytes {
		// Read to the end so that the checksum is checked.
		if _, err := io.Copy(io.Discard, rc); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// localZipPath reports whether a zip entry's path stays inside the zip:
// relative, with no ".." and no drive letter.
func localZipPath(p string) bool {
	p = strings.ReplaceAll(p, "\\", "/")
	if p == "" || strings.HasPrefix(p, "/") || (len(p) >= 2 && p[1] == ':') || strings.ContainsRune(p, 0) {
		return false
	}
	return !slices.Contains(strings.Split(p, "/"), "..")
}

// ReadFolder reads the files under dir, in lexical order, as
// ReadDocuments reads each, and calls each with every file's documents
// or problem: a file over maxBytes or refused by its reader is refused;
// hidden files and folders, links to folders and files of other kinds are
// skipped, each folder once. Documents are named by their path below dir
// (with /). An error of each, or of reading the folder, stops the walk.
func ReadFolder(ctx context.Context, dir string, maxBytes int, each func(FileDocuments) error) error {
	root := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		root = real // a link to a folder given by name is followed
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		p = filepath.Join(dir, rel) // named as given
		if err != nil {
			if rel == "." {
				return err
			}
			return each(FileDocuments{Name: p, Refused: []Problem{{Name: p, Error: "cannot read it"}}})
		}
		if rel == "." {
			return nil
		}
		if r := SkipReason(d.Name()); r == SkipHidden {
			if d.IsDir() {
				if err := each(FileDocuments{Name: p, Skipped: []Problem{{Name: p + string(filepath.Separator), Error: string(r)}}}); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			return each(FileDocuments{Name: p, Skipped: []Problem{{Name: p, Error: string(r)}}})
		}
		if d.IsDir() {
			return nil
		}
		info, err := os.Stat(p) // follows a link to a file
		switch {
		case err != nil:
			return each(FileDocuments{Name: p, Refused: []Problem{{Name: p, Error: "cannot read it"}}})
		case info.IsDir():
			return each(FileDocuments{Name: p, Skipped: []Problem{{Name: p, Error: "a link to a folder, not followed"}}})
		case SkipReason(rel) != "":
			return each(FileDocuments{Name: p, Skipped: []Problem{{Name: p, Error: string(SkipReason(rel))}}})
		case extract.OverLimit(p, info.Size(), maxBytes) != "":
			return each(FileDocuments{Name: p, Refused: []Problem{{Name: p, Error: extract.OverLimit(p, info.Size(), maxBytes)}}})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return each(FileDocuments{Name: p, Refused: []Problem{{Name: p, Error: "cannot read it"}}})
		}
		var fd FileDocuments
		if export.IsZip(data) {
			fd, err = readZip(ctx, p, data, maxBytes)
		} else {
			fd, err = readFile(ctx, p, filepath.ToSlash(rel), data, maxBytes)
		}
		fd.Name = p
		if err != nil {
			fd.Docs = nil
			fd.Refused = append(fd.Refused, Problem{Name: p, Error: extract.MessageOf(err)})
		}
		return each(fd)
	})
}

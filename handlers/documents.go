package handlers

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/dialogue"
	"github.com/kgstudio/kgstudio/web"
)

// previewBytes bounds the content shown on a document page.
const previewBytes = 200 << 10

// listDocuments renders the documents page.
func (h *Handler) listDocuments(c echo.Context) error {
	docs, err := h.appOf(c).Documents.List(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	return h.page(c, "documents", "Documents", web.DocumentsList(web.DocumentsPage{Docs: docRows(docs), MaxBytes: h.maxUpload()}))
}

func (h *Handler) maxUpload() int {
	if h.cfg.MaxUploadBytes > 0 {
		return h.cfg.MaxUploadBytes
	}
	return extract.DefaultMaxBytes
}

// saveDocuments stores uploaded files or pasted text: each file as
// app.ReadDocuments reads it (a zip or a JSON corpus gives many
// documents), the files of a folder ("folder", the form's folder field)
// the same way, less hidden files and files of other kinds, which are
// named as skipped. A bad file is refused with a message naming it; the
// others are stored, all in one transaction.
func (h *Handler) saveDocuments(c echo.Context) error {
	read, refused, skipped, ok := h.readUploads(c)
	if !ok {
		const msg = "nothing to add: choose one or more files, or paste some text"
		if wantsJSON(c) {
			return extract.Errorf(extract.KindInvalid, msg)
		}
		return redirectFlash(c, "/documents", "Nothing to add: choose one or more files, or paste some text.", true)
	}
	saved, err := h.appOf(c).Documents.Save(c.Request().Context(), read)
	if err != nil {
		return err // the database, not the files: never blame the upload
	}
	return h.answerSaved(c, saved, refused, append(skipped, saved.Skipped...))
}

// readUploads reads a document upload: its files and folder's files, or
// else its pasted text, with the files refused (unreadable, too big) and
// skipped (other kinds, hidden files); ok is false when it holds nothing.
func (h *Handler) readUploads(c echo.Context) (read []app.FileDocuments, refused, skipped []app.Problem, ok bool) {
	var uploads, folder []*multipart.FileHeader
	if form, err := c.MultipartForm(); err == nil && form != nil {
		// "files" is the form's field; "file", the field of the graph and
		// gold imports, is taken too.
		uploads = append(form.File["files"], form.File["file"]...)
		folder = form.File["folder"]
	}
	if len(uploads)+len(folder) > 0 {
		for i, fh := range append(uploads, folder...) {
			if i >= len(uploads) {
				// Browsers send a folder's files by their base names.
				if r := app.SkipReason(fh.Filename); r != "" {
					skipped = append(skipped, app.Problem{Name: fh.Filename, Error: string(r)})
					continue
				}
			}
			fd, err := h.readUpload(c.Request().Context(), fh.Filename, func() (io.ReadCloser, error) { return fh.Open() }, fh.Size)
			if err != nil {
				refused = append(refused, app.Problem{Name: fh.Filename, Error: namedProblem(fh.Filename, err)})
				continue
			}
			read = append(read, fd)
			skipped, refused = append(skipped, fd.Skipped...), appendNamed(refused, fd.Refused)
		}
		return read, refused, skipped, true
	}
	text := c.FormValue("text")
	if strings.TrimSpace(text) == "" {
		return nil, nil, nil, false
	}
	name := strings.TrimSpace(c.FormValue("name"))
	if name == "" {
		name = pastedName(text)
	}
	fd, err := app.ReadDocuments(c.Request().Context(), name, []byte(text), h.maxUpload())
	if err != nil {
		return nil, []app.Problem{{Name: name, Error: namedProblem(name, err)}}, nil, true
	}
	return []app.FileDocuments{fd}, appendNamed(nil, fd.Refused), nil, true
}

// answerSaved answers an upload: the document itself (one, stored), the
// list (several), or what was stored beside what was refused and
// skipped; JSON for the API, a page and its message for a browser.
func (h *Handler) answerSaved(c echo.Context, saved app.Saved, refused, skipped []app.Problem) error {
	added, known := saved.Added, saved.Known
	switch {
	case len(refused) > 0 || len(skipped) > 0:
		msg := uploadSummary(added, known, refused, skipped)
		if wantsJSON(c) {
			if added == nil {
				added = []extract.Document{}
			}
			if refused == nil {
				refused = []app.Problem{}
			}
			// Some files stored: 201, the refused and skipped ones listed
			// beside them; none stored: 400.
			status := http.StatusCreated
			if len(added) == 0 {
				status = http.StatusBadRequest
			}
			body := map[string]any{"status": status, "stored": added, "added": len(added) - len(known), "refused": refused}
			if len(skipped) > 0 {
				body["skipped"] = skipped
			}
			if len(refused) > 0 || len(added) == 0 {
				body["error"] = msg
			}
			return c.JSON(status, body)
		}
		return redirectFlash(c, "/documents", extract.Clip(msg, maxFlash), len(refused) > 0 || len(added) == 0)
	case len(added) == 1 && !saved.Many:
		if wantsJSON(c) {
			return c.JSON(http.StatusCreated, added[0])
		}
		msg := "Document stored."
		if len(known) > 0 {
			msg = "This content was already stored; here it is."
		}
		return redirectFlash(c, "/documents/"+itoa(added[0].ID), msg, false)
	default:
		if wantsJSON(c) {
			return c.JSON(http.StatusCreated, added)
		}
		return redirectFlash(c, "/documents", extract.Clip(addedSummary(added, known), maxFlash), false)
	}
}

// uploadSummary says what an upload stored, skipped and refused.
func uploadSummary(added []extract.Document, known map[int]bool, refused, skipped []app.Problem) string {
	var parts []string
	if len(added) > 0 {
		parts = append(parts, addedSummary(added, known))
	} else {
		parts = append(parts, "Nothing was added.")
	}
	if len(skipped) > 0 {
		other := false
		parts = append(parts, "Skipped "+problemList(skipped, func(p app.Problem) string {
			if p.Error == string(app.SkipOtherKind) {
				other = true
				return p.Name + " (other kind)"
			}
			return p.Name + " (" + p.Error + ")"
		})+".")
		if other {
			parts = append(parts, "kgstudio reads "+app.DocumentExts()+" files.")
		}
	}
	if len(refused) > 0 {
		parts = append(parts, "Refused: "+problemList(refused, func(p app.Problem) string { return p.Error }))
	}
	return strings.Join(parts, " ")
}

// maxFlash bounds a flash message in bytes, so that its cookie stays
// under browsers' 4 KB.
const maxFlash = 2000

// listedAtMost is how many stored documents, skipped or refused files a
// message names; the rest are counted.
const listedAtMost = 10

// readUpload reads one uploaded file into its documents.
func (h *Handler) readUpload(ctx context.Context, name string, open func() (io.ReadCloser, error), size int64) (app.FileDocuments, error) {
	limit := extract.SizeLimit(name, h.maxUpload()) // a CSV table's is larger
	if size > int64(limit) {
		return app.FileDocuments{}, extract.Errorf(extract.KindInvalid, "%s is over the limit of %s", web.HumanBytes(int(size)), web.HumanBytes(limit))
	}
	f, err := open()
	if err != nil {
		return app.FileDocuments{}, extract.Wrap(extract.KindInvalid, err, "cannot read the upload")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return app.FileDocuments{}, extract.Wrap(extract.KindInvalid, err, "cannot read the upload")
	}
	return app.ReadDocuments(ctx, name, data, h.maxUpload())
}

// namedProblem says what was wrong with a file, naming it once.
func namedProblem(name string, err error) string { return named(name, extract.MessageOf(err)) }

// named prefixes msg with name unless it names it.
func named(name, msg string) string {
	if strings.Contains(msg, name) {
		return msg
	}
	return name + ": " + msg
}

// appendNamed adds the problems of files inside an upload, each message
// naming its file.
func appendNamed(to, ps []app.Problem) []app.Problem {
	for _, p := range ps {
		to = append(to, app.Problem{Name: p.Name, Error: named(p.Name, p.Error)})
	}
	return to
}

// problemList joins at most listedAtMost problems and counts the rest.
func problemList(ps []app.Problem, text func(app.Problem) string) string {
	out := make([]string, 0, min(len(ps), listedAtMost))
	for _, p := range ps[:min(len(ps), listedAtMost)] {
		out = append(out, text(p))
	}
	s := strings.Join(out, "; ")
	if len(ps) > listedAtMost {
		s += fmt.Sprintf("; and %d more", len(ps)-listedAtMost)
	}
	return s
}

// addedSummary names the documents stored new and those that were
// already stored, with their ids (the first listedAtMost of each).
func addedSummary(added []extract.Document, known map[int]bool) string {
	var fresh, old []extract.Document
	for _, d := range added {
		if known[d.ID] {
			old = append(old, d)
		} else {
			fresh = append(fresh, d)
		}
	}
	named := func(docs []extract.Document) string {
		names := make([]string, 0, min(len(docs), listedAtMost))
		for _, d := range docs[:min(len(docs), listedAtMost)] {
			names = append(names, fmt.Sprintf("%s (#%d)", d.Name, d.ID))
		}
		if len(docs) > listedAtMost {
			return fmt.Sprintf("%s and %d more", strings.Join(names, ", "), len(docs)-listedAtMost)
		}
		return strings.Join(names, ", ")
	}
	var parts []string
	switch {
	case len(fresh) > listedAtMost:
		parts = append(parts, fmt.Sprintf("Stored %d documents: %s.", len(fresh), named(fresh)))
	case len(fresh) > 0:
		parts = append(parts, "Stored "+named(fresh)+".")
	}
	switch {
	case len(old) == 1:
		parts = append(parts, named(old)+" was already stored.")
	case len(old) > listedAtMost:
		parts = append(parts, fmt.Sprintf("%d documents were already stored: %s.", len(old), named(old)))
	case len(old) > 1:
		parts = append(parts, named(old)+" were already stored.")
	}
	return strings.Join(parts, " ")
}

// pastedName names pasted text after its first words.
func pastedName(text string) string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return "pasted.txt"
	}
	name := strings.Join(words[:min(len(words), 6)], " ")
	return extract.Clip(name, 48) + ".txt"
}

// showDocument renders one document.
func (h *Handler) showDocument(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	d, err := h.appOf(c).Documents.Get(c.Request().Context(), id)
	if err != nil {
		return err
	}
	info, err := h.appOf(c).Documents.Info(c.Request().Context(), id)
	if err != nil {
		return err
	}
	p := web.DocumentPage{Doc: web.DocumentRow{ID: d.ID, Name: d.Name, Kind: string(d.Kind), Dialogue: d.Kind == extract.DocDialogue, Size: len(d.Content), Created: info.Created.Format("2006-01-02 15:04")},
		SHA256: d.SHA256, Content: d.Content}
	if d.Kind == extract.DocDialogue {
		if ds, err := dialogue.ParseAll([]byte(d.Content)); err == nil {
			// Shown as a transcript, not the JSON it was stored as.
			var b strings.Builder
			seen := map[string]bool{}
			for i, dl := range ds {
				if i > 0 {
					b.WriteString("\n")
				}
				b.WriteString(dl.Transcript())
				p.Sessions += len(dl.Sessions)
				p.Turns += dl.TurnCount()
				for _, s := range dl.Speakers() {
					if !seen[s] {
						seen[s] = true
						p.Speakers = append(p.Speakers, s)
					}
				}
			}
			p.Content, p.Transcript = b.String(), true
		}
	}
	if len(p.Content) > previewBytes {
		p.Content, p.Truncated = p.Content[:extract.RuneBoundary(p.Content, previewBytes)], true
	}
	return h.page(c, "documents", d.Name, web.DocumentView(p))
}

// apiDocuments lists documents as JSON.
func (h *Handler) apiDocuments(c echo.Context) error {
	docs, err := h.appOf(c).Documents.List(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, docs)
}

package handlers

import (
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
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
	docs, err := h.store.ListDocuments(c.Request().Context(), 0)
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

// saveDocuments stores uploaded files or pasted text. A bad file is refused
// with a message naming it; the files before it are kept.
func (h *Handler) saveDocuments(c echo.Context) error {
	ctx := c.Request().Context()
	var added []extract.Document
	var refused []uploadProblem
	known := 0
	var uploads []*multipart.FileHeader
	if form, err := c.MultipartForm(); err == nil && form != nil {
		// "files" is the form's field; "file", the field of the graph and
		// gold imports, is taken too.
		uploads = append(form.File["files"], form.File["file"]...)
	}
	if len(uploads) > 0 {
		for _, fh := range uploads {
			d, created, err := h.readUpload(ctx, fh.Filename, func() (io.ReadCloser, error) { return fh.Open() }, fh.Size)
			if err != nil {
				if dbFault(err) {
					return err // the database, not the file: never blame the upload
				}
				refused = append(refused, uploadProblem{Name: fh.Filename, Error: namedProblem(fh.Filename, err)})
				continue
			}
			if slices.ContainsFunc(added, func(a extract.Document) bool { return a.ID == d.ID }) {
				continue // the same file twice in one upload
			}
			if !created {
				known++
			}
			added = append(added, d)
		}
	} else {
		text := c.FormValue("text")
		if strings.TrimSpace(text) == "" {
			return extract.Errorf(extract.KindInvalid, "nothing to add: choose one or more files, or paste some text")
		}
		name := strings.TrimSpace(c.FormValue("name"))
		if name == "" {
			name = pastedName(text)
		}
		d, created, err := h.addDocument(ctx, name, []byte(text))
		if dbFault(err) {
			return err
		}
		if err != nil {
			refused = append(refused, uploadProblem{Name: name, Error: namedProblem(name, err)})
		} else {
			if !created {
				known++
			}
			added = append(added, d)
		}
	}
	switch {
	case len(refused) > 0:
		msgs := make([]string, len(refused))
		for i, p := range refused {
			msgs[i] = p.Error
		}
		msg := "Refused: " + strings.Join(msgs, "; ")
		if len(added) > 0 {
			msg = addedSummary(added, known) + " " + msg
		}
		if wantsJSON(c) {
			if added == nil {
				added = []extract.Document{}
			}
			// Some files stored: 201, the refused ones listed beside them;
			// none stored: 400.
			status := http.StatusCreated
			if len(added) == 0 {
				status = http.StatusBadRequest
			}
			return c.JSON(status, map[string]any{"error": msg, "status": status,
				"stored": added, "refused": refused})
		}
		return redirectFlash(c, "/documents", msg, true)
	case len(added) == 1:
		if wantsJSON(c) {
			return c.JSON(http.StatusCreated, added[0])
		}
		msg := "Document stored."
		if known > 0 {
			msg = "This content was already stored; here it is."
		}
		return redirectFlash(c, "/documents/"+itoa(added[0].ID), msg, false)
	default:
		if wantsJSON(c) {
			return c.JSON(http.StatusCreated, added)
		}
		return redirectFlash(c, "/documents", addedSummary(added, known), false)
	}
}

// uploadProblem is a refused file of an upload.
type uploadProblem struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

func (h *Handler) readUpload(ctx context.Context, name string, open func() (io.ReadCloser, error), size int64) (extract.Document, bool, error) {
	if size > int64(h.maxUpload()) {
		return extract.Document{}, false, extract.Errorf(extract.KindInvalid, "%s is over the limit of %s", web.HumanBytes(int(size)), web.HumanBytes(h.maxUpload()))
	}
	f, err := open()
	if err != nil {
		return extract.Document{}, false, extract.Wrap(extract.KindInvalid, err, "cannot read the upload")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(h.maxUpload())+1))
	if err != nil {
		return extract.Document{}, false, extract.Wrap(extract.KindInvalid, err, "cannot read the upload")
	}
	return h.addDocument(ctx, name, data)
}

// dbFault reports an error that is the store's, not the input's.
func dbFault(err error) bool {
	k := extract.KindOf(err)
	return err != nil && (k == extract.KindInternal || k == extract.KindUnavailable)
}

// namedProblem says what was wrong with a file, naming it once.
func namedProblem(name string, err error) string {
	msg := extract.MessageOf(err)
	if strings.Contains(msg, name) {
		return msg
	}
	return name + ": " + msg
}

// addedSummary names the stored documents with their ids and says how
// many were already stored.
func addedSummary(added []extract.Document, known int) string {
	names := make([]string, len(added))
	for i, d := range added {
		names[i] = fmt.Sprintf("%s (#%d)", d.Name, d.ID)
	}
	msg := "Stored " + strings.Join(names, ", ") + "."
	if known > 0 {
		msg += fmt.Sprintf(" %d of them were already stored.", known)
	}
	return msg
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

// addDocument validates and stores one document. Dialogue JSON must parse
// as one of the known dialogue shapes.
func (h *Handler) addDocument(ctx context.Context, name string, data []byte) (extract.Document, bool, error) {
	d, err := app.ReadDocument(name, data, h.maxUpload())
	if err != nil {
		return d, false, err
	}
	if d.Kind == extract.DocDialogue {
		if _, err := dialogue.ParseAll([]byte(d.Content)); err != nil {
			return d, false, err
		}
	}
	return h.store.AddDocument(ctx, d)
}

// showDocument renders one document.
func (h *Handler) showDocument(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	d, err := h.store.Document(c.Request().Context(), id)
	if err != nil {
		return err
	}
	info, err := h.store.DocumentInfo(c.Request().Context(), id)
	if err != nil {
		return err
	}
	p := web.DocumentPage{Doc: web.DocumentRow{ID: d.ID, Name: d.Name, Kind: d.Kind, Size: len(d.Content), Created: info.Created.Format("2006-01-02 15:04")},
		SHA256: d.SHA256, Content: d.Content}
	if len(p.Content) > previewBytes {
		p.Content, p.Truncated = p.Content[:extract.RuneBoundary(p.Content, previewBytes)], true
	}
	if d.Kind == extract.DocDialogue {
		if ds, err := dialogue.ParseAll([]byte(d.Content)); err == nil {
			seen := map[string]bool{}
			for _, dl := range ds {
				p.Sessions += len(dl.Sessions)
				p.Turns += dl.TurnCount()
				for _, s := range dl.Speakers() {
					if !seen[s] {
						seen[s] = true
						p.Speakers = append(p.Speakers, s)
					}
				}
			}
		}
	}
	return h.page(c, "documents", d.Name, web.DocumentView(p))
}

// apiDocuments lists documents as JSON.
func (h *Handler) apiDocuments(c echo.Context) error {
	docs, err := h.store.ListDocuments(c.Request().Context(), 0)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, docs)
}

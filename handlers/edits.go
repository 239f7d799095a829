package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/curate"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// maxEditBody bounds the JSON body of an edit request.
const maxEditBody = 4 << 20

// apiEdits answers POST /api/versions/:id/edits: the body is a JSON list
// of edit operations (or an object with an "edits" list); the answer is
// the new version's JSON.
func (h *Handler) apiEdits(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxEditBody+1))
	if err != nil {
		return extract.Wrap(extract.KindInvalid, err, "read the edits")
	}
	if len(body) > maxEditBody {
		return extract.Errorf(extract.KindInvalid, "the edits are larger than %d bytes", maxEditBody)
	}
	edits, err := curate.ParseEdits(body)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	nv, err := h.appOf(c).Curation.Edit(ctx, v, edits)
	if err != nil {
		return err
	}
	j, err := h.appOf(c).Versions.JSON(ctx, nv)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, j)
}

// saveEdit applies one edit posted by a form of the graph view's side
// panel and shows the new version's graph focused on the edited node (or
// on the source of the edited edge).
func (h *Handler) saveEdit(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	e, err := formEdit(c)
	if err == nil {
		var nv record.Version
		if nv, err = h.appOf(c).Curation.Edit(c.Request().Context(), v, []curate.Edit{e}); err == nil {
			return redirectFlash(c, editTarget(nv.ID, e), fmt.Sprintf("%s: %s", nv.Label(), nv.Note), false)
		}
	}
	if extract.KindOf(err) != extract.KindInvalid {
		return err
	}
	// A refused edit goes back to the graph it was made on, the node in
	// focus and the reason shown; nothing was saved.
	return redirectFlash(c, editTarget(v.ID, e), "Not saved: "+extract.MessageOf(err), true)
}

// editTarget is the graph page to show after an edit of version id: the
// edited node in focus (an edge's source for edge edits and deletions).
func editTarget(id int, e curate.Edit) string {
	focus := e.Key
	if focus == "" || e.Op == curate.OpDeleteNode {
		focus = e.Source
	}
	if focus == "" {
		return fmt.Sprintf("/versions/%d/graph", id)
	}
	return web.GraphFocusURL(id, focus)
}

// formEdit reads one edit from the side panel's form fields: op, key, name,
// type, description, prop and value (set_props: an empty value removes
// the property; a number, true/false or a JSON list or object is stored
// as such, other text as text), source, label, target.
func formEdit(c echo.Context) (curate.Edit, error) {
	e := curate.Edit{Op: curate.EditOp(c.FormValue("op")), Key: c.FormValue("key"), Name: c.FormValue("name"), Type: c.FormValue("type"),
		Description: c.FormValue("description"), Source: c.FormValue("source"), Label: c.FormValue("label"), Target: c.FormValue("target")}
	if e.Op == curate.OpSetProps {
		name := strings.TrimSpace(c.FormValue("prop"))
		if name == "" {
			return e, extract.Errorf(extract.KindInvalid, "name the property to set")
		}
		e.Properties = map[string]any{name: formValue(c.FormValue("value"))}
	}
	if w := strings.TrimSpace(c.FormValue("weight")); w != "" {
		f, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return e, extract.Errorf(extract.KindInvalid, "weight must be a number")
		}
		e.Weight = f
	}
	return e, nil
}

// formValue turns a property value typed in a form into a value: nil for
// an empty one, JSON scalars, lists and objects as such, else the text.
func formValue(s string) any {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(t), &v) == nil && v != nil {
		return v
	}
	return t
}

// nodeEdit is the edit forms the node side panel ends with.
func (h *Handler) nodeEdit(c echo.Context, versionID int, d app.NodeDetail) templ.Component {
	return web.NodeEdit(web.NodeEditView{VersionID: versionID, Key: d.Key, Name: d.Name, Type: d.Type,
		Description: d.Description, Locked: h.versionActive(c, versionID)})
}

// edgeEdit is the edit form the edge side panel ends with.
func (h *Handler) edgeEdit(c echo.Context, versionID int, e extract.Edge) templ.Component {
	return web.EdgeEdit(web.EdgeEditView{VersionID: versionID, Source: e.Source, Label: e.Label, Target: e.Target,
		Locked: h.versionActive(c, versionID)})
}

// versionActive reports whether a version is still queued or running (or
// cannot be read), so no edit forms are offered.
func (h *Handler) versionActive(c echo.Context, versionID int) bool {
	v, err := h.appOf(c).Versions.Get(c.Request().Context(), versionID)
	return err != nil || v.Active()
}

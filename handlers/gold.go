package handlers

import (
	"fmt"
	"io"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
)

// importGold imports an uploaded gold file and, when asked, starts an nlp
// run over its text as the next version, then shows the comparison.
func (h *Handler) importGold(c echo.Context) error {
	ctx := c.Request().Context()
	format := app.GoldFormat(c.FormValue("format"))
	_, data, err := formFile(c, "file", true)
	if err != nil {
		return err
	}
	_, rel, err := formFile(c, "relations", false)
	if err != nil {
		return err
	}
	imp, err := h.appOf(c).Curation.ImportGold(ctx, c.FormValue("name"), format, data, rel, intForm(c, "limit"), h.cfg.MaxUploadBytes)
	if err != nil {
		return err
	}
	ref := imp.Reference
	h.log.Info("imported gold set", "extraction", ref.Extraction, "version_id", ref.ID, "entries", imp.Entries, "format", format)
	msg := fmt.Sprintf("Imported %d entries as %s (reference): %d nodes, %d edges.", imp.Entries, ref.Label(), ref.Nodes, ref.Edges)
	if c.FormValue("run") == "" {
		return redirectFlash(c, "/versions/"+itoa(ref.ID), msg, false)
	}
	v, cfg, err := h.appOf(c).Runs.NewRun(ctx, app.RunRequest{Extraction: ref.Extraction, Config: extract.DefaultConfig(),
		DocumentIDs: []int{imp.Document.ID}, Note: "nlp over the gold text"})
	if err != nil {
		return err
	}
	h.appOf(c).Runs.Start(v)
	q := CompareQuery(ref.ID, v.ID, app.GoldCompareOptions(format, cfg.Strategy))
	return redirectFlash(c, "/compare?"+q, msg+" Started "+v.Label()+" with the nlp strategy.", false)
}

// formFile reads an uploaded file field: its file name and content.
func formFile(c echo.Context, field string, required bool) (string, []byte, error) {
	fh, err := c.FormFile(field)
	if err != nil {
		if required {
			return "", nil, extract.Errorf(extract.KindInvalid, "choose a file to upload")
		}
		return "", nil, nil
	}
	f, err := fh.Open()
	if err != nil {
		return "", nil, extract.Wrap(extract.KindInvalid, err, "read the upload")
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "", nil, extract.Wrap(extract.KindInvalid, err, "read the upload")
	}
	return fh.Filename, data, nil
}

func intForm(c echo.Context, name string) int {
	var n int
	_, _ = fmt.Sscan(strings.TrimSpace(c.FormValue(name)), &n)
	return n
}

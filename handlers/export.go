package handlers

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/export"
)

// exportTypes maps an export format to its content type and file extension.
var exportTypes = map[string][2]string{
	"json":    {"application/json", "json"},
	"graphml": {"application/graphml+xml", "graphml"},
	"cypher":  {"text/plain; charset=utf-8", "cypher"},
	"csv":     {"application/zip", "zip"},
}

// exportVersion answers GET /versions/:id/export?format=json|graphml|csv|cypher
// with a download. CSV comes as a zip of nodes.csv and edges.csv in the
// neo4j-admin import form. The body is built in memory first, so a failure
// becomes an error page rather than a truncated file.
func (h *Handler) exportVersion(c echo.Context) error {
	id, err := intParam(c, "id")
	if err != nil {
		return err
	}
	format := strings.ToLower(c.QueryParam("format"))
	if format == "" {
		format = "json"
	}
	ct, ok := exportTypes[format]
	if !ok {
		return extract.Errorf(extract.KindInvalid, "unknown export format %q (want json, graphml, csv or cypher)", format)
	}
	ctx := c.Request().Context()
	v, err := h.app.Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	// Only JSON keeps mentions; chunk nodes (chunks=1) are made from them.
	chunks := c.QueryParam("chunks") == "1"
	g, err := h.app.Graphs.Load(ctx, id, format == "json" || chunks)
	if err != nil {
		return err
	}
	if chunks {
		g = export.WithChunks(g, h.app.Documents.Namer(ctx))
	}
	var buf bytes.Buffer
	if format == "csv" {
		err = export.WriteCSVZip(&buf, g)
	} else {
		err = export.Write(&buf, format, g)
	}
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s-v%d.%s", fileSafe(v.Extraction), v.Number, ct[1])
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s"`, name))
	return c.Blob(http.StatusOK, ct[0], buf.Bytes())
}

// fileSafe keeps ASCII letters, digits, dots, dashes and underscores of a
// name for use in a download's file name (a header value).
func fileSafe(s string) string {
	out := strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, s)
	if strings.Trim(out, "_.") == "" {
		return "graph"
	}
	return out
}

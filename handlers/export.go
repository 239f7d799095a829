package handlers

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
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

// Bounds of a download's writes: a client that takes longer than
// exportStall to accept one write, or longer than exportTimeout for the
// whole file, is cut off, so it cannot hold a heavy slot (and the graph
// in memory) by not reading.
const (
	exportStall   = 30 * time.Second
	exportTimeout = 10 * time.Minute
)

// exportVersion answers GET /versions/:id/export?format=json|graphml|csv|cypher
// with a download. CSV comes as a zip of nodes.csv and edges.csv in the
// neo4j-admin import form, values as they are; with spreadsheet=1 the
// same files with formula-like text quoted for a spreadsheet (see
// export.WriteSpreadsheetZip).
//
// An export is a heavy request (see app.Gate): it holds the graph in
// memory while it writes. The file is written to the client as it is
// made, never whole in memory; a failure before the first byte is an
// error page, one after it cuts the download off (the client sees a
// failed download, never a short file that looks whole).
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
	spreadsheet := format == "csv" && flagQuery(c, "spreadsheet")
	release, err := h.enterHeavy(c)
	if err != nil {
		return err
	}
	defer release()
	ctx := c.Request().Context()
	v, err := h.appOf(c).Versions.Get(ctx, id)
	if err != nil {
		return err
	}
	// Only JSON keeps mentions; chunk nodes (chunks=1) are made from them.
	chunks := c.QueryParam("chunks") == "1"
	g, err := h.appOf(c).Graphs.Load(ctx, id, format == "json" || chunks)
	if err != nil {
		return err
	}
	if chunks {
		chunks, err := h.appOf(c).Versions.AllChunks(ctx, v)
		if err != nil {
			return err
		}
		g = export.WithChunks(g, h.appOf(c).Documents.Namer(ctx), chunks)
	}
	if g, err = export.WithNamespace(g, c.QueryParam("namespace")); err != nil {
		return err
	}
	name := fmt.Sprintf("%s-v%d", fileSafe(v.Extraction), v.Number)
	if spreadsheet {
		name += "-spreadsheet"
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s.%s"`, name, ct[1]))
	res.Header().Set(echo.HeaderContentType, ct[0])
	res.WriteHeader(http.StatusOK)
	w := newDeadlineWriter(res, exportStall, exportTimeout)
	defer w.clear()
	switch {
	case spreadsheet:
		err = export.WriteSpreadsheetZip(w, g)
	case format == "csv":
		err = export.WriteCSVZip(w, g)
	default:
		err = export.Write(w, format, g)
	}
	if err != nil {
		// The status line is out: only cutting the connection tells the
		// client that the file is not whole.
		level := slog.LevelError
		if extract.KindOf(err) == extract.KindUnavailable {
			level = slog.LevelInfo // the client went away or stopped reading
		}
		h.log.Log(ctx, level, "export cut short", slog_group(c), "version_id", id, "format", format, "bytes", res.Size, "error", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// deadlineWriter writes to a response, giving each write stall to go
// through and all of them together until end.
type deadlineWriter struct {
	w     io.Writer
	rc    *http.ResponseController
	stall time.Duration
	end   time.Time
}

func newDeadlineWriter(res *echo.Response, stall, total time.Duration) *deadlineWriter {
	return &deadlineWriter{w: res, rc: http.NewResponseController(res), stall: stall, end: time.Now().Add(total)}
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	dl := time.Now().Add(d.stall)
	if dl.After(d.end) {
		dl = d.end
	}
	_ = d.rc.SetWriteDeadline(dl) // not every writer has deadlines
	return d.w.Write(p)
}

// clear takes the deadline off the connection, which may serve the
// client's next request.
func (d *deadlineWriter) clear() { _ = d.rc.SetWriteDeadline(time.Time{}) }

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

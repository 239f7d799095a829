package handlers

import (
	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
)

// showDashboard renders the home page.
func (h *Handler) showDashboard(c echo.Context) error {
	ctx := c.Request().Context()
	counts, err := h.appOf(c).Versions.Counts(ctx)
	if err != nil {
		return err
	}
	docs, err := h.appOf(c).Documents.List(ctx, 8)
	if err != nil {
		return err
	}
	recent, err := h.appOf(c).Versions.Recent(ctx, 8)
	if err != nil {
		return err
	}
	d := web.Dashboard{Schemas: counts.Schemas, Documents: counts.Documents, Extractions: counts.Extractions,
		Versions: counts.Versions, RecentDocs: docRows(docs), Recent: versionRows(recent)}
	if a, b, ok := samplePair(recent); ok {
		d.CompareA, d.CompareB = a, b
	}
	return h.page(c, "dashboard", "Dashboard", web.DashboardPage(d))
}

// samplePair finds the first two finished versions of the sample extraction.
func samplePair(vs []record.Version) (int, int, bool) {
	var a, b int
	for _, v := range vs {
		if v.Extraction != app.SampleExtraction || v.Status != record.StatusDone {
			continue
		}
		switch v.Number {
		case 1:
			a = v.ID
		case 2:
			b = v.ID
		}
	}
	return a, b, a > 0 && b > 0
}

func docRows(docs []record.DocumentInfo) []web.DocumentRow {
	out := make([]web.DocumentRow, len(docs))
	for i, d := range docs {
		out[i] = web.DocumentRow{ID: d.ID, Name: d.Name, Kind: string(d.Kind), Size: d.Size, Created: d.Created.Format("2006-01-02 15:04")}
	}
	return out
}

func versionRows(vs []record.Version) []web.VersionRow {
	out := make([]web.VersionRow, len(vs))
	for i, v := range vs {
		out[i] = versionRow(v)
	}
	return out
}

func versionRow(v record.Version) web.VersionRow {
	return web.VersionRow{ID: v.ID, Extraction: v.Extraction, Number: v.Number, Status: string(v.Status),
		Strategy: string(v.Config.Strategy), Nodes: v.Nodes, Edges: v.Edges, ChunksDone: v.ChunksDone,
		ChunksTotal: v.ChunksTotal, Reference: v.Reference, Created: v.CreatedAt.Format("2006-01-02 15:04"),
		Elapsed: web.HumanDuration(v.Elapsed), Note: v.Note, Curated: v.Written && v.ParentID != 0}
}

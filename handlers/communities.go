package handlers

import (
	"fmt"
	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/web"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/extract"
)

// communitiesAPI answers GET /api/versions/:id/communities?level=N: the
// version's communities at a level (0, the coarsest, by default) with
// their reports.
func (h *Handler) communitiesAPI(c echo.Context) error {
	_, out, err := h.communities(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// communities reads the version and the level (?level=N) a request names
// and that level's communities.
func (h *Handler) communities(c echo.Context) (record.Version, app.CommunitiesJSON, error) {
	v, err := h.versionParam(c)
	if err != nil {
		return v, app.CommunitiesJSON{}, err
	}
	level, err := levelQuery(c)
	if err != nil {
		return v, app.CommunitiesJSON{}, err
	}
	out, err := h.appOf(c).Communities.List(c.Request().Context(), v, level)
	return v, out, err
}

// communityMembersAPI answers GET /api/versions/:id/communities/members?level=N:
// the communities of a level (0, the coarsest, by default) and each node
// key's community, which the graph view colours by.
func (h *Handler) communityMembersAPI(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	level, err := levelQuery(c)
	if err != nil {
		return err
	}
	out, err := h.appOf(c).Communities.Members(c.Request().Context(), v, level)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// levelQuery reads ?level=, a community level (0, the coarsest, when
// absent).
func levelQuery(c echo.Context) (int, error) {
	s := c.QueryParam("level")
	if s == "" {
		return 0, nil
	}
	level, err := strconv.Atoi(s)
	if err != nil || level < 0 {
		return 0, extract.Errorf(extract.KindInvalid, "level must be a number from 0")
	}
	return level, nil
}

// showCommunities renders a version's communities of one level (?level=N,
// 0 the coarsest): titles, sizes, reports, best-connected members and a
// link into the graph focused on each.
func (h *Handler) showCommunities(c echo.Context) error {
	v, out, err := h.communities(c)
	if err != nil {
		return err
	}
	p := web.CommunitiesPage{V: versionRow(v), Levels: out.Levels, Level: out.Level, Modularity: out.Modularity, ModelReports: out.ModelReports}
	for _, cm := range out.Communities {
		row := web.CommunityRow{ID: cm.ID, Size: cm.Size, Title: cm.Title, Summary: cm.Summary, ReportBy: string(cm.ReportBy), TopNodes: cm.TopNodes,
			GraphURL: fmt.Sprintf("/versions/%d/graph?community=%d", v.ID, cm.ID)}
		for _, f := range cm.Findings {
			row.Findings = append(row.Findings, f.Text)
		}
		p.Communities = append(p.Communities, row)
	}
	return h.page(c, "extractions", "Communities of "+v.Label(), web.CommunitiesView(p))
}

package handlers

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/web"
)

// apiScores answers GET /api/extractions/:name/scores: the scoreboard
// (what kgstudio scores NAME --json prints).
func (h *Handler) apiScores(c echo.Context) error {
	b, err := h.board(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, b)
}

// board is the scoreboard of the extraction the path names.
func (h *Handler) board(c echo.Context) (app.Board, error) {
	name, err := pathParam(c, "name", "extraction name")
	if err != nil {
		return app.Board{}, err
	}
	return h.appOf(c).Scores.Board(c.Request().Context(), name)
}

// rescore scores every finished version of an extraction again and shows
// (or returns) the new board.
func (h *Handler) rescore(c echo.Context) error {
	name, err := pathParam(c, "name", "extraction name")
	if err != nil {
		return err
	}
	if err := h.appOf(c).Scores.Rescore(c.Request().Context(), name); err != nil {
		return err
	}
	if wantsJSON(c) || strings.HasPrefix(c.Path(), "/api/") {
		return h.apiScores(c)
	}
	return redirectFlash(c, "/extractions/"+url.PathEscape(name)+"/scores", "Every finished version was scored again.", false)
}

// showScores renders an extraction's scoreboard, sorted by ?sort=KEY
// (&dir=asc|desc).
func (h *Handler) showScores(c echo.Context) error {
	b, err := h.board(c)
	if err != nil {
		return err
	}
	return h.page(c, "extractions", "Scores of "+b.Extraction, web.ScoresView(scoresPage(b, c.QueryParam("sort"), c.QueryParam("dir") != "asc")))
}

// scoresPage lays out a board: its rows sorted by a column, each
// column's best marked, and its charts.
func scoresPage(b app.Board, sortKey string, desc bool) web.ScoresPage {
	p := web.ScoresPage{Extraction: b.Extraction, Questions: b.Questions, Reference: b.Reference}
	cols := app.TableMeasures(b.Measures)
	for _, m := range cols {
		p.Columns = append(p.Columns, web.ScoreColumn{Key: m.Key, Label: m.Label, Better: m.Better})
	}
	best := app.BestValues(b.Best, b.Versions)
	versions := append([]app.VersionScores(nil), b.Versions...)
	if sortKey != "" {
		p.Sort, p.Desc = sortKey, desc
		sort.SliceStable(versions, func(i, j int) bool {
			x, okx := versions[i].Measures[sortKey]
			y, oky := versions[j].Measures[sortKey]
			if okx != oky {
				return okx // versions without the measure last
			}
			if desc {
				return x > y
			}
			return x < y
		})
	}
	for _, v := range versions {
		r := web.ScoreRow{Version: v.Version, ID: v.ID, Settings: app.SortedSettings(v.Settings), Note: v.Note}
		for _, m := range cols {
			x, ok := v.Measures[m.Key]
			cell := web.ScoreCell{Text: "–"}
			if ok {
				cell.Text = strconv.FormatFloat(x, 'f', -1, 64)
				if bx, has := best[m.Key]; has && x == bx {
					cell.Best = true
				}
			}
			r.Cells = append(r.Cells, cell)
		}
		p.Rows = append(p.Rows, r)
	}
	p.Charts = scoreCharts(b)
	if b.Questions > 0 {
		for _, m := range query.Modes {
			var names []string
			var series [][]float64
			for _, v := range b.Versions {
				if c, ok := v.Curves[m]; ok {
					names, series = append(names, v.Version), append(series, c)
				}
			}
			if len(series) > 0 {
				p.Curves = append(p.Curves, web.Curves(string(m), names, series))
			}
		}
	}
	return p
}

// scoreCharts draws recall@k per mode (one bar per version in each
// mode's group) when there are questions, and one chart of the graph
// measures per version.
func scoreCharts(b app.Board) []web.BarChart {
	var names []string
	for _, v := range b.Versions {
		names = append(names, v.Version)
	}
	if len(names) == 0 {
		return nil
	}
	value := func(v app.VersionScores, key string) float64 {
		if x, ok := v.Measures[key]; ok {
			return x
		}
		return math.NaN()
	}
	var charts []web.BarChart
	if b.Questions > 0 {
		for _, k := range app.ScoreK {
			var rows [][]float64
			for _, m := range query.Modes {
				var row []float64
				for _, v := range b.Versions {
					row = append(row, value(v, fmt.Sprintf("recall@%d.%s", k, m)))
				}
				rows = append(rows, row)
			}
			charts = append(charts, web.GroupedBars(fmt.Sprintf("Evidence recall@%d by query mode", k), query.ModeNames(), names, rows))
		}
		var rows [][]float64
		for _, m := range query.Modes {
			var row []float64
			for _, v := range b.Versions {
				row = append(row, value(v, "answers."+string(m)))
			}
			rows = append(rows, row)
		}
		charts = append(charts, web.GroupedBars("Answers holding an expected answer, by query mode", query.ModeNames(), names, rows))
	}
	shares := []string{"specific_relations", "largest_component", "modularity"}
	var rows [][]float64
	var labels []string
	for _, key := range shares {
		var row []float64
		for _, v := range b.Versions {
			row = append(row, value(v, key))
		}
		rows = append(rows, row)
		labels = append(labels, strings.ReplaceAll(key, "_", " "))
	}
	charts = append(charts, web.GroupedBars("Graph shape", labels, names, rows))
	return charts
}

// attachQuestions stores an uploaded question set on an extraction (the
// form, or POST /api/extractions/:name/questions with the file as the
// body).
func (h *Handler) attachQuestions(c echo.Context) error {
	name, err := pathParam(c, "name", "extraction name")
	if err != nil {
		return err
	}
	var data []byte
	filename := "questions.json"
	if fh, ferr := c.FormFile("file"); ferr == nil {
		if fh.Size > int64(h.maxUpload()) {
			return extract.Errorf(extract.KindInvalid, "%s is over the limit of %s", fh.Filename, web.HumanBytes(h.maxUpload()))
		}
		f, err := fh.Open()
		if err != nil {
			return extract.Wrap(extract.KindInvalid, err, "cannot read the upload")
		}
		defer f.Close()
		if data, err = io.ReadAll(io.LimitReader(f, int64(h.maxUpload())+1)); err != nil {
			return extract.Wrap(extract.KindInvalid, err, "cannot read the upload")
		}
		filename = filepath.Base(fh.Filename)
	} else if wantsJSON(c) || !strings.HasPrefix(c.Request().Header.Get(echo.HeaderContentType), "multipart/") {
		if data, err = io.ReadAll(io.LimitReader(c.Request().Body, int64(h.maxUpload())+1)); err != nil {
			return extract.Wrap(extract.KindInvalid, err, "cannot read the question set")
		}
		if strings.Contains(c.Request().Header.Get(echo.HeaderContentType), "csv") {
			filename = "questions.csv"
		}
	}
	back := "/extractions/" + url.PathEscape(name) + "/scores"
	fail := func(err error) error {
		if wantsJSON(c) || extract.KindOf(err) == extract.KindInternal {
			return err
		}
		return redirectFlash(c, back, "Questions refused: "+extract.MessageOf(err), true)
	}
	if len(data) > h.maxUpload() {
		return fail(extract.Errorf(extract.KindInvalid, "the question set is over the limit of %s", web.HumanBytes(h.maxUpload())))
	}
	set, err := eval.ReadQuestions(filename, data)
	if err != nil {
		return fail(err)
	}
	if err := h.appOf(c).Scores.SetQuestions(c.Request().Context(), name, set); err != nil {
		return fail(err)
	}
	if wantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]any{"extraction": name, "questions": len(set.Questions)})
	}
	return redirectFlash(c, back, fmt.Sprintf("Attached %d questions to %s; every version is scored on them.", len(set.Questions), name), false)
}

// compareScores renders (or, for the API, returns) two versions' scores
// side by side with the paired bootstrap of each question measure: the
// compare page loads it after the comparison itself.
func (h *Handler) compareScores(c echo.Context) error {
	ida, idb, _, err := compareQuery(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	a, err := h.appOf(c).Versions.Get(ctx, ida)
	if err != nil {
		return err
	}
	b, err := h.appOf(c).Versions.Get(ctx, idb)
	if err != nil {
		return err
	}
	diffs, questions, setOf, err := h.appOf(c).Scores.Compare(ctx, a, b)
	if err != nil {
		return err
	}
	if wantsJSON(c) || strings.HasPrefix(c.Path(), "/api/") {
		return c.JSON(http.StatusOK, map[string]any{"a": a.Label(), "b": b.Label(), "questions": questions, "question_set": setOf, "measures": diffs})
	}
	s := web.CompareScores{Questions: questions, SetOf: setOf, Resamples: app.BootstrapResamples, ScoresURL: "/extractions/" + url.PathEscape(setOf) + "/scores"}
	num := func(x *float64) string {
		if x == nil {
			return "–"
		}
		return strconv.FormatFloat(*x, 'f', -1, 64)
	}
	for _, d := range diffs {
		r := web.CompareScoreRow{Key: d.Measure.Key, Label: d.Measure.Label, A: num(d.A), B: num(d.B), Diff: num(d.Diff)}
		if d.Paired != nil && d.Paired.N > 0 {
			n := "questions"
			if d.Paired.N == 1 {
				n = "question"
			}
			r.Interval = fmt.Sprintf("%+.3f to %+.3f (%d %s)", d.Paired.Low, d.Paired.High, d.Paired.N, n)
			r.Significant = d.Paired.Significant
		}
		if d.Diff != nil && *d.Diff != 0 && d.Measure.Better != 0 && (d.Paired == nil || r.Significant) {
			better := (*d.Diff > 0) == (d.Measure.Better > 0)
			r.Better, r.Worse = better, !better
		}
		s.Rows = append(s.Rows, r)
	}
	return render(c, http.StatusOK, web.CompareScoresView(s))
}

// startExperiment runs a grid of settings as versions of an extraction in
// the background, over the documents of its newest version (the
// scoreboard's Experiment form; kgstudio experiment in the CLI).
func (h *Handler) startExperiment(c echo.Context) error {
	name, err := pathParam(c, "name", "extraction name")
	if err != nil {
		return err
	}
	back := "/extractions/" + url.PathEscape(name) + "/scores"
	fail := func(err error) error {
		if wantsJSON(c) || extract.KindOf(err) == extract.KindInternal {
			return err
		}
		return redirectFlash(c, back, "Experiment not started: "+extract.MessageOf(err), true)
	}
	var axes []app.GridAxis
	for _, line := range strings.Split(c.FormValue("grid"), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		ax, err := app.ParseGridAxis(line)
		if err != nil {
			return fail(err)
		}
		axes = append(axes, ax)
	}
	if len(axes) == 0 {
		return fail(extract.Errorf(extract.KindInvalid, "give at least one line KEY=V1,V2 (keys: %s)", strings.Join(app.GridKeys, ", ")))
	}
	ctx := c.Request().Context()
	latest, err := h.appOf(c).Versions.ByLabel(ctx, name, 0)
	if err != nil {
		return fail(err)
	}
	base := extract.DefaultConfig()
	base.Embedder = extract.EmbedderName(strings.TrimSpace(c.FormValue("embedder")))
	made, err := h.appOf(c).Runs.Experiment(ctx, name, axes, base, latest.DocumentIDs)
	if err != nil {
		return fail(err)
	}
	var labels []string
	for _, v := range made {
		h.appOf(c).Runs.Start(v)
		labels = append(labels, v.Label())
	}
	if wantsJSON(c) {
		return c.JSON(http.StatusAccepted, map[string]any{"versions": labels})
	}
	return redirectFlash(c, back, fmt.Sprintf("Started %d versions (%s); each is scored when it finishes.", len(made), strings.Join(labels, ", ")), false)
}

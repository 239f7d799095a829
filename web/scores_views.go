package web

import (
	"fmt"
	"math"
	"net/url"
	"strings"
)

// ScoresPage is an extraction's scoreboard: its versions as rows, the
// measures as columns (sortable, the best of each marked), the question
// set's upload form and charts of the measures.
type ScoresPage struct {
	Extraction string
	// Reference is the version the others are scored against, if any.
	Reference string
	Questions int
	Columns   []ScoreColumn
	Rows      []ScoreRow
	// Sort is the column the rows are sorted by ("" for version order)
	// and Desc its direction.
	Sort   string
	Desc   bool
	Charts []BarChart
	// Curves are recall by depth, one chart per query mode.
	Curves []LineChart
}

// ScoreColumn is one measure; Better is 1 when higher is better, -1
// when lower is, 0 for sizes.
type ScoreColumn struct {
	Key, Label string
	Better     int
}

// ScoreRow is one version's scores.
type ScoreRow struct {
	Version  string
	ID       int
	Settings string
	Note     string
	Cells    []ScoreCell
}

// ScoreCell is one measure of a version; Best marks the best of its
// column (or one as good).
type ScoreCell struct {
	Text string
	Best bool
}

// BarChart is a chart of bars in groups (a measure per version, or
// versions per query mode), drawn as SVG.
type BarChart struct {
	Title         string
	Width, Height int
	Bars          []Bar
	// Labels name the groups under the bars; Ticks are the value axis.
	Labels []ChartLabel
	Ticks  []ChartLabel
	Legend []LegendItem
}

// Bar is one bar: its box, its series (a colour class) and its tooltip.
type Bar struct {
	X, Y, W, H float64
	Series     int
	Title      string
}

// ChartLabel is a text at a place.
type ChartLabel struct {
	X, Y float64
	Text string
}

// LegendItem names a series.
type LegendItem struct {
	Series int
	Text   string
}

// chartColours is how many series a chart tells apart by colour.
const chartColours = 12

// Chart geometry.
const (
	chartW, chartH = 640, 220
	chartLeft      = 44
	chartTop       = 12
	chartBottom    = 40
)

// GroupedBars draws values[g][s] (group g, series s) as groups of bars,
// scaled to the largest value (to 1 when every value is at most 1); a NaN
// is no bar.
func GroupedBars(title string, groups, series []string, values [][]float64) BarChart {
	c := BarChart{Title: title, Width: chartW, Height: chartH}
	top := 0.0
	for _, row := range values {
		for _, v := range row {
			if !math.IsNaN(v) {
				top = math.Max(top, v)
			}
		}
	}
	if top <= 1 && top > 0 {
		top = 1
	}
	if top == 0 {
		top = 1
	}
	plotW, plotH := float64(chartW-chartLeft-8), float64(chartH-chartTop-chartBottom)
	gw := plotW / float64(max(len(groups), 1))
	bw := gw * 0.8 / float64(max(len(series), 1))
	for g, name := range groups {
		x0 := chartLeft + float64(g)*gw + gw*0.1
		for s := range series {
			if g >= len(values) || s >= len(values[g]) || math.IsNaN(values[g][s]) {
				continue
			}
			v := values[g][s]
			h := plotH * v / top
			c.Bars = append(c.Bars, Bar{X: x0 + float64(s)*bw, Y: chartTop + plotH - h, W: math.Max(bw-2, 1), H: h, Series: s % chartColours,
				Title: fmt.Sprintf("%s, %s: %s", name, series[s], trimFloat(v))})
		}
		c.Labels = append(c.Labels, ChartLabel{X: x0 + gw*0.4, Y: chartH - chartBottom + 16, Text: name})
	}
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		c.Ticks = append(c.Ticks, ChartLabel{X: chartLeft - 6, Y: chartTop + plotH - plotH*float64(i)/4 + 4, Text: trimFloat(v)})
	}
	for s, name := range series {
		c.Legend = append(c.Legend, LegendItem{Series: s % chartColours, Text: name})
	}
	return c
}

func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3g", v)
}

// BarClass is a bar's colour class.
func BarClass(series int) string { return fmt.Sprintf("bar s%d", series) }

// F formats a chart coordinate.
func F(x float64) string { return fmt.Sprintf("%.1f", x) }

// scoreSortURL sorts the scoreboard by a column: the same column again
// flips the direction.
func scoreSortURL(p ScoresPage, key string) string {
	dir := "desc"
	if p.Sort == key && p.Desc {
		dir = "asc"
	}
	return "/extractions/" + url.PathEscape(p.Extraction) + "/scores?sort=" + url.QueryEscape(key) + "&dir=" + dir
}

// LineChart is lines over a common x axis (depths 1..n), drawn as SVG.
type LineChart struct {
	Title         string
	Width, Height int
	Lines         []ChartLine
	Labels, Ticks []ChartLabel
	Legend        []LegendItem
}

// ChartLine is one series: its points ("x,y x,y") and its colour class.
type ChartLine struct {
	Points string
	Series int
	Title  string
}

// Curves draws series[s] (a value per x from 1 to len) as lines on a
// 0..1 axis.
func Curves(title string, names []string, series [][]float64) LineChart {
	c := LineChart{Title: title, Width: chartW / 2, Height: chartH}
	plotW, plotH := float64(c.Width-chartLeft-8), float64(chartH-chartTop-chartBottom)
	n := 0
	for _, s := range series {
		n = max(n, len(s))
	}
	if n == 0 {
		return c
	}
	x := func(i int) float64 {
		if n == 1 {
			return chartLeft
		}
		return chartLeft + plotW*float64(i)/float64(n-1)
	}
	for s, vals := range series {
		var pts []string
		for i, v := range vals {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), chartTop+plotH-plotH*math.Min(math.Max(v, 0), 1)))
		}
		c.Lines = append(c.Lines, ChartLine{Points: strings.Join(pts, " "), Series: s % chartColours, Title: names[s]})
	}
	for i := 0; i < n; i++ {
		if i == 0 || i == n-1 || (i+1)%5 == 0 {
			c.Labels = append(c.Labels, ChartLabel{X: x(i), Y: chartH - chartBottom + 16, Text: fmt.Sprintf("%d", i+1)})
		}
	}
	for i := 0; i <= 4; i++ {
		c.Ticks = append(c.Ticks, ChartLabel{X: chartLeft - 6, Y: chartTop + plotH - plotH*float64(i)/4 + 4, Text: trimFloat(float64(i) / 4)})
	}
	for s, name := range names {
		c.Legend = append(c.Legend, LegendItem{Series: s % chartColours, Text: name})
	}
	return c
}

// LineClass is a line's colour class.
func LineClass(series int) string { return fmt.Sprintf("line s%d", series) }

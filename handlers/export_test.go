package handlers_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

func TestExportVersion(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	v := a.MustGraphVersion(t, "small graph", "Alice and Bob live in Cairo.", smallGraph())
	get := func(t *testing.T, format string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get(fmt.Sprintf("%s/versions/%d/export?format=%s", a.Server.URL, v.ID, format))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	check := func(t *testing.T, resp *http.Response, ctype, file string) {
		t.Helper()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, ctype) {
			t.Fatalf("content type %q, want %q", got, ctype)
		}
		if got := resp.Header.Get("Content-Disposition"); got != `attachment; filename="`+file+`"` {
			t.Fatalf("content disposition %q", got)
		}
	}
	t.Run("JSON", func(t *testing.T) {
		resp, body := get(t, "json")
		check(t, resp, "application/json", "small_graph-v1.json")
		var g extract.Graph
		if err := json.Unmarshal(body, &g); err != nil || len(g.Nodes) != 7 || len(g.Edges) != 6 {
			t.Fatalf("json: %d nodes %d edges (%v)", len(g.Nodes), len(g.Edges), err)
		}
	})
	t.Run("GraphML", func(t *testing.T) {
		resp, body := get(t, "graphml")
		check(t, resp, "application/graphml+xml", "small_graph-v1.graphml")
		var doc struct {
			Nodes []struct {
				ID string `xml:"id,attr"`
			} `xml:"graph>node"`
			Edges []struct{} `xml:"graph>edge"`
		}
		if err := xml.Unmarshal(body, &doc); err != nil || len(doc.Nodes) != 7 || len(doc.Edges) != 6 {
			t.Fatalf("graphml: %d nodes %d edges (%v)", len(doc.Nodes), len(doc.Edges), err)
		}
	})
	t.Run("Cypher", func(t *testing.T) {
		resp, body := get(t, "cypher")
		check(t, resp, "text/plain", "small_graph-v1.cypher")
		if !strings.Contains(string(body), "MERGE") || !strings.Contains(string(body), "Dynamo Corp") {
			t.Fatalf("cypher: %.200s", body)
		}
	})
	t.Run("CSV", func(t *testing.T) {
		resp, body := get(t, "csv")
		check(t, resp, "application/zip", "small_graph-v1.zip")
		zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
		if err != nil {
			t.Fatal(err)
		}
		lines := map[string]int{}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			lines[f.Name] = strings.Count(string(b), "\n")
			if f.Name == "nodes.csv" && !strings.HasPrefix(string(b), "id:ID,name,description,:LABEL") {
				t.Fatalf("nodes.csv header: %.60s", b)
			}
		}
		if lines["nodes.csv"] != 8 || lines["edges.csv"] != 7 {
			t.Fatalf("zip lines %v", lines)
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		resp, _ := get(t, "pdf")
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	t.Run("PageOffersDownloads", func(t *testing.T) {
		_, doc := a.Get(t, fmt.Sprintf("/versions/%d/graph", v.ID))
		for _, f := range []string{"json", "graphml", "csv", "cypher"} {
			href, _ := doc.Find(`[data-testid="export-` + f + `"]`).Attr("href")
			if href != fmt.Sprintf("/versions/%d/export?format=%s", v.ID, f) {
				t.Fatalf("%s download links to %q", f, href)
			}
		}
	})
}

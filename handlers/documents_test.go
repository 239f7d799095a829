package handlers_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kgstudio/kgstudio/extract"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/handlers"
	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/PuerkitoBio/goquery"
)

// noRedirect is a client that returns redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func upload(t *testing.T, a *testApp, files map[string][]byte) *http.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for name, data := range files {
		fw, err := w.CreateFormFile("files", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	w.Close()
	req, _ := http.NewRequest("POST", a.Server.URL+"/documents", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// flashOf follows a redirect with its flash cookie and returns the message.
func flashOf(t *testing.T, a *testApp, resp *http.Response) (string, *goquery.Document) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.Server.URL+resp.Header.Get("Location"), nil)
	for _, c := range resp.Cookies() {
		req.AddCookie(c)
	}
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	doc, err := goquery.NewDocumentFromReader(r2.Body)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(doc.Find(`[data-testid="flash"]`).Text()), doc
}

func TestDocuments_Upload(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	cases := []struct {
		name      string
		file      string
		data      []byte
		wantFlash string
		bad       bool
	}{
		{"Text", "a.txt", []byte("Ada Lovelace worked with Charles Babbage in London."), "Document stored.", false},
		{"ByteOrderMark", "bom.txt", append([]byte{0xEF, 0xBB, 0xBF}, []byte("Marie Curie lived in Paris.")...), "Document stored.", false},
		{"Chinese", "zh.txt", []byte("周星驰出生于香港。他是演员和导演。"), "Document stored.", false},
		{"Empty", "empty.txt", []byte("   \n"), "empty", true},
		{"Binary", "bin.txt", []byte{0x89, 'P', 'N', 'G', 0, 0, 1}, "binary", true},
		{"InvalidUTF8", "bad.txt", []byte("abc\xff\xfe def"), "UTF-8", true},
		{"TooLarge", "big.txt", bytes.Repeat([]byte("x"), 2<<20), "limit", true},
		{"BrokenDialogue", "chat.json", []byte(`{"sessions":[{"turns":[{"speaker":"A","text":1}]}]}`), "turns", true},
		{"TruncatedDialogue", "cut.json", []byte(`{"sessions":[{"turns":[{"speaker":"A","text":"hi"}`), "not valid JSON", true},
		{"UnknownJSON", "data.json", []byte(`{"rows":[1,2,3]}`), "must hold a dialogue", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := upload(t, a, map[string][]byte{tc.file: tc.data})
			if resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("status %d", resp.StatusCode)
			}
			msg, _ := flashOf(t, a, resp)
			if !strings.Contains(msg, tc.wantFlash) {
				t.Fatalf("flash %q, want it to contain %q", msg, tc.wantFlash)
			}
			if tc.bad && tc.name != "TooLarge" && !strings.Contains(msg, tc.file) {
				t.Fatalf("message %q does not name the file", msg)
			}
		})
	}
	t.Run("NothingToAdd", func(t *testing.T) {
		resp, err := noRedirect.PostForm(a.Server.URL+"/api/documents", url.Values{"text": {"  "}})
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.Error, "nothing to add") {
			t.Fatalf("an empty upload: %d %q", resp.StatusCode, body.Error)
		}
		// The form is sent back to with the reason, not left for an
		// error page.
		resp = postFiles(t, a, "/documents")
		resp.Body.Close()
		if msg, _ := flashOf(t, a, resp); resp.Header.Get("Location") != "/documents" || !strings.Contains(msg, "Nothing to add") {
			t.Fatalf("an empty upload form: %d %s %q", resp.StatusCode, resp.Header.Get("Location"), msg)
		}
	})
	t.Run("MixedReportsEachFile", func(t *testing.T) {
		resp := upload(t, a, map[string][]byte{"good.txt": []byte("Grace Hopper wrote the first compiler."), "bad.json": []byte("{oops")})
		msg, _ := flashOf(t, a, resp)
		if !strings.Contains(msg, "good.txt (#") || !strings.Contains(msg, "bad.json") {
			t.Fatalf("a mixed upload says %q", msg)
		}
	})
	t.Run("DuplicateStoredOnce", func(t *testing.T) {
		upload(t, a, map[string][]byte{"again.txt": []byte("Ada Lovelace worked with Charles Babbage in London.")})
		_, doc := a.Get(t, "/documents")
		if n := doc.Find(`[data-testid="documents"] tbody tr`).Length(); n != 4 {
			t.Fatalf("want 4 stored documents, got %d", n)
		}
	})
	t.Run("RealDialogue", func(t *testing.T) {
		data := testkit.Read(t, "dialogues/locomo10_conv26.json")
		resp := upload(t, a, map[string][]byte{"locomo.json": data})
		msg, doc := flashOf(t, a, resp)
		if msg != "Document stored." {
			t.Fatalf("flash %q", msg)
		}
		if s := doc.Find(`[data-testid="dialogue-summary"]`).Text(); !strings.Contains(s, "sessions") {
			t.Fatalf("dialogue summary: %q", s)
		}
	})
}

func TestDocuments_Paste(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	resp, err := noRedirect.PostForm(a.Server.URL+"/documents", url.Values{"name": {"notes.md"}, "text": {"# Notes\n\nGrace Hopper joined the US Navy."}})
	if err != nil {
		t.Fatal(err)
	}
	msg, doc := flashOf(t, a, resp)
	if msg != "Document stored." || !strings.Contains(doc.Find(`[data-testid="doc-content"]`).Text(), "Grace Hopper") {
		t.Fatalf("flash %q", msg)
	}
	if !strings.Contains(doc.Find(".badge").First().Text(), "markdown") {
		t.Fatal("markdown kind not detected")
	}
}

// TestDocuments_APIPartialUpload: through the API, an upload that stored
// some files answers 201 with the stored and the refused ones; one that
// stored none answers 400.
func TestDocuments_APIPartialUpload(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	field := "files"
	post := func(files map[string][]byte) (int, map[string]any) {
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		for name, data := range files {
			fw, _ := w.CreateFormFile(field, name)
			fw.Write(data)
		}
		w.Close()
		req, _ := http.NewRequest("POST", a.Server.URL+"/api/documents", &body)
		req.Header.Set("Content-Type", w.FormDataContentType())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post(map[string][]byte{"good.txt": []byte("Ada Lovelace met Charles Babbage."), "empty.txt": nil})
	stored, _ := out["stored"].([]any)
	refused, _ := out["refused"].([]any)
	if code != http.StatusCreated || len(stored) != 1 || len(refused) != 1 {
		t.Fatalf("mixed upload: %d %v", code, out)
	}
	code, out = post(map[string][]byte{"empty.txt": nil})
	if code != http.StatusBadRequest {
		t.Fatalf("nothing stored: %d %v", code, out)
	}
	// One file under "file", the field the graph and gold imports take,
	// is stored too, not answered "nothing to add".
	field = "file"
	code, out = post(map[string][]byte{"one.txt": []byte("Grace Hopper wrote the first compiler.")})
	if stored, _ := out["id"].(float64); code != http.StatusCreated || stored == 0 {
		t.Fatalf("upload under \"file\": %d %v", code, out)
	}
}

// documentsApps starts the handlers over a fresh SQLite database and, when
// the test server is set, a fresh PostgreSQL one, with a 20 MB upload
// limit; documents need no job workers.
func documentsApps(t *testing.T) map[string]*testApp {
	t.Helper()
	all := map[string]app.Options{"SQLite": {DataDir: t.TempDir()}}
	if u := testkit.PostgresDB(t, "docs"); u != "" {
		all["PostgreSQL"] = app.Options{URL: u}
	}
	apps := map[string]*testApp{}
	for name, opts := range all {
		runner := openApp(t, opts, app.Providers{Prices: app.DefaultPrices(), Embedder: extract.EmbedderOffline})
		h := handlers.New(runner, slog.New(slog.NewTextHandler(io.Discard, nil)), handlers.Config{MaxUploadBytes: 20 << 20})
		srv := httptest.NewServer(h.NewServer())
		t.Cleanup(srv.Close)
		apps[name] = &testApp{Handler: h, App: runner, Server: srv}
	}
	return apps
}

// postFiles posts files as a multipart form, each part under its field
// ("files" or "folder"), and returns the response without following a
// redirect.
func postFiles(t *testing.T, a *testApp, path string, parts ...[3]string) *http.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for _, p := range parts {
		fw, err := w.CreateFormFile(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(p[2]))
	}
	w.Close()
	req, _ := http.NewRequest("POST", a.Server.URL+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// zipBytes builds a zip of name, content pairs.
func zipBytes(t *testing.T, files ...string) string {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		f, err := w.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(files[i+1]))
	}
	w.Close()
	return buf.String()
}

// storedNames lists the stored documents' names, oldest first.
func storedNames(t *testing.T, a *testApp) []string {
	t.Helper()
	docs, err := a.App.Documents.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := len(docs) - 1; i >= 0; i-- {
		names = append(names, docs[i].Name)
	}
	return names
}

// The upload form takes a JSON corpus as one document per passage, a zip
// and a folder as one per text file, naming the files skipped; a zip whose
// path leads out of it is refused beside the files stored.
func TestDocuments_UploadCorpusZipFolder(t *testing.T) {
	t.Parallel()
	for name, a := range documentsApps(t) {
		t.Run(name, func(t *testing.T) {
			_, page := a.Get(t, "/documents")
			form := page.Find(`[data-testid="upload-form"]`)
			if accept, _ := form.Find(`input[name="files"]`).Attr("accept"); !strings.Contains(accept, ".zip") || !strings.Contains(accept, ".json") {
				t.Fatalf("the files field accepts %q", accept)
			}
			if _, ok := form.Find(`[data-testid="upload-folder"][name="folder"]`).Attr("webkitdirectory"); !ok {
				t.Fatal("the form has no folder field")
			}
			// A corpus in both shapes, through the form.
			resp := postFiles(t, a, "/documents",
				[3]string{"files", "musique.json", `[{"title":"Oslo","text":"Oslo is the capital of Norway."},{"title":"Bergen","paragraph_text":"Bergen lies on the west coast."}]`},
				[3]string{"files", "hotpot.json", `{"Zebra":["Zebras are equines.", " They are striped."]}`})
			resp.Body.Close()
			msg, _ := flashOf(t, a, resp)
			if resp.Header.Get("Location") != "/documents" || msg != "Stored Oslo (#1), Bergen (#2), Zebra (#3)." {
				t.Fatalf("corpus upload: %s %q", resp.Header.Get("Location"), msg)
			}
			d, err := a.App.Documents.Get(context.Background(), 3)
			if err != nil || d.Content != "Zebra\n\nZebras are equines. They are striped." || d.Kind != "text" {
				t.Fatalf("passage document: %v %+v", err, d)
			}
			// A zip with hidden files and other kinds, a zip leading out of
			// itself, and a folder.
			resp = postFiles(t, a, "/documents",
				[3]string{"files", "notes.zip", zipBytes(t, "notes/a.txt", "Ada Lovelace met Charles Babbage.", "notes/.DS_Store", "\x00", "notes/scan.pdf", "%PDF")},
				[3]string{"files", "slip.zip", zipBytes(t, "ok.txt", "Fine.", "../../evil.txt", "x")},
				[3]string{"folder", "b.md", "# Grace\n\nGrace Hopper joined the Navy."},
				[3]string{"folder", ".hidden.txt", "secret"},
				[3]string{"folder", "photo.jpg", "\xff\xd8"})
			resp.Body.Close()
			msg, _ = flashOf(t, a, resp)
			for _, want := range []string{
				"Stored notes/a.txt (#4), b.md (#5).",
				"Skipped notes.zip/notes/.DS_Store (hidden); notes.zip/notes/scan.pdf (other kind); .hidden.txt (hidden); photo.jpg (other kind).",
				"kgstudio reads " + app.DocumentExts() + " files.",
				`Refused: slip.zip holds "../../evil.txt", a path that leads out of the zip; nothing of the zip was added`,
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("flash %q lacks %q", msg, want)
				}
			}
			want := []string{"Oslo", "Bergen", "Zebra", "notes/a.txt", "b.md"}
			if got := storedNames(t, a); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stored %q, want %q", got, want)
			}
			// Dialogue JSON is still one dialogue document.
			resp = postFiles(t, a, "/documents", [3]string{"files", "chat.json", `{"sessions":[{"turns":[{"speaker":"A","text":"hi"},{"speaker":"B","text":"hello"}]}]}`})
			resp.Body.Close()
			if msg, doc := flashOf(t, a, resp); msg != "Document stored." || !strings.Contains(doc.Find(".badge").First().Text(), "dialogue") {
				t.Fatalf("dialogue upload: %q", msg)
			} else if got := doc.Find(`[data-testid="doc-content"]`).Text(); got != "— session_1 —\nA: hi\nB: hello\n" {
				t.Fatalf("the dialogue is shown as %q, want its transcript", got)
			}
			// Stored again beside a new one: the flash says which was new
			// and which was there already.
			resp = postFiles(t, a, "/documents",
				[3]string{"files", "b.md", "# Grace\n\nGrace Hopper joined the Navy."},
				[3]string{"files", "c.txt", "Katherine Johnson computed orbits."})
			resp.Body.Close()
			if msg, _ := flashOf(t, a, resp); msg != "Stored c.txt (#7). b.md (#5) was already stored." {
				t.Fatalf("upload of a stored and a new document: %q", msg)
			}
			// Only skipped files: nothing added, said so.
			resp = postFiles(t, a, "/documents", [3]string{"folder", "photo.png", "\x89PNG"})
			resp.Body.Close()
			if msg, _ := flashOf(t, a, resp); !strings.HasPrefix(msg, "Nothing was added. Skipped photo.png") {
				t.Fatalf("a folder of pictures: %q", msg)
			}
		})
	}
}

// Through the API a corpus of 6,000 passages is stored in one request in
// seconds, answered with its documents; an upload with skipped files
// answers them beside the stored ones.
func TestDocuments_APICorpus(t *testing.T) {
	t.Parallel()
	var corpus bytes.Buffer
	corpus.WriteString("[")
	const n = 6000
	for i := range n {
		if i > 0 {
			corpus.WriteString(",")
		}
		p, _ := json.Marshal(map[string]string{"title": fmt.Sprintf("Passage %d", i),
			"text": fmt.Sprintf("Person%d met Person%d in City%d. %s", i, i+1, i%97, strings.Repeat("More words of the passage. ", 20))})
		corpus.Write(p)
	}
	corpus.WriteString("]")
	for name, a := range documentsApps(t) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			resp := postFiles(t, a, "/api/documents", [3]string{"files", "corpus.json", corpus.String()})
			var docs []struct {
				ID   int    `json:"id"`
				Name string `json:"name"`
			}
			err := json.NewDecoder(resp.Body).Decode(&docs)
			resp.Body.Close()
			took := time.Since(start)
			t.Logf("%d passages (%.1f MB) uploaded and stored in %v", n, float64(corpus.Len())/1e6, took)
			if err != nil || resp.StatusCode != http.StatusCreated || len(docs) != n || docs[n-1].Name != "Passage 5999" {
				t.Fatalf("corpus upload: %d %v, %d documents", resp.StatusCode, err, len(docs))
			}
			if took > 30*time.Second {
				t.Errorf("6,000 passages took %v", took)
			}
			resp = postFiles(t, a, "/api/documents", [3]string{"files", "notes.zip", zipBytes(t, "a.txt", "Ada Lovelace met Charles Babbage.", ".hidden", "x")})
			var out struct {
				Status  int
				Added   int
				Stored  []struct{ Name string }
				Skipped []struct{ Name, Error string }
				Refused []struct{ Name, Error string }
				Error   string
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusCreated || out.Added != 1 || len(out.Stored) != 1 || len(out.Skipped) != 1 ||
				out.Skipped[0].Name != "notes.zip/.hidden" || out.Skipped[0].Error != "hidden" || len(out.Refused) != 0 || out.Error != "" {
				t.Fatalf("zip with a hidden file: %d %v %+v", resp.StatusCode, err, out)
			}
		})
	}
}

// One upload of several files: a file whose content another file of the
// batch holds is stored once and named as skipped; the run form then ticks
// every document of that upload, not only the newest.
func TestDocuments_BatchUploadAndRunForm(t *testing.T) {
	t.Parallel()
	a := MustApp(t)
	upload(t, a, map[string][]byte{"older.txt": []byte("Marie Curie studied in Paris.")})
	time.Sleep(2200 * time.Millisecond) // past the gap between two uploads (2 s)
	resp := upload(t, a, map[string][]byte{
		"one.txt":  []byte("Ada Lovelace worked with Charles Babbage."),
		"two.txt":  []byte("Grace Hopper wrote the first compiler."),
		"copy.txt": []byte("Grace Hopper wrote the first compiler."),
	})
	msg, _ := flashOf(t, a, resp)
	if !strings.Contains(msg, "Skipped") || !strings.Contains(msg, "the same content as") {
		t.Fatalf("a batch with a repeated file says %q", msg)
	}
	_, form := a.Get(t, "/extractions/new")
	ticked := map[string]bool{}
	form.Find(`input[name="doc"]`).Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("checked"); ok {
			ticked[strings.TrimSpace(s.Parent().Text())] = true
		}
	})
	if len(ticked) != 2 {
		t.Fatalf("the run form ticks %v, want the upload's two documents", ticked)
	}
	for name := range ticked {
		if strings.Contains(name, "older.txt") {
			t.Fatalf("the run form ticks the earlier upload's document: %v", ticked)
		}
	}
}

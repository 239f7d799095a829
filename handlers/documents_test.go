package handlers_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testdata"

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
		data := testdata.Read(t, "dialogues/locomo10_conv26.json")
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

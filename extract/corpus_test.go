package extract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/internal/testkit"
)

func readCorpusFile(t *testing.T, path string) ([]extract.Passage, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return extract.ReadCorpus(f)
}

func TestReadCorpus_Forms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want []extract.Passage
	}{
		{"list.json", []extract.Passage{
			{"Oslo", "Oslo is the capital of Norway."},
			{"Bergen", "Bergen is a city on the west coast of Norway."},
			{"Fjord", "A fjord is a long inlet. Norway has many."},
			{"", "A passage without a title."},
			{"Only a title", ""},
		}},
		{"sentences.json", []extract.Passage{
			{"Zebra", "Zebras are African equines. They have black-and-white stripes."},
			{"Aardvark", "The aardvark is a burrowing mammal."},
			{"Mongoose", "A mongoose is a small carnivoran."},
			{"Okapi", ""},
		}},
		{"bom.json", []extract.Passage{{"Tromsø", "Tromsø lies north of the Arctic Circle."}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := readCorpusFile(t, filepath.Join("testdata", "corpus", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestReadCorpus_Invalid(t *testing.T) {
	t.Parallel()
	truncated, err := os.ReadFile(filepath.Join("testdata", "corpus", "truncated.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"Empty", "", "the corpus is empty"},
		{"Blank", " \n\t", "the corpus is empty"},
		{"BOMOnly", "\ufeff", "the corpus is empty"},
		{"NotJSON", "Oslo is the capital of Norway.", "not valid JSON"},
		{"Truncated", string(truncated), "ends early"},
		{"UnclosedList", `[{"title":"a","text":"b"}`, "ends early"},
		{"String", `"a passage"`, "not a string"},
		{"Number", `42`, "not a number"},
		{"EmptyList", `[]`, "holds no passages"},
		{"EmptyObject", `{}`, "holds no passages"},
		{"ListOfNumbers", `[1]`, "passage 1 is a number, not an object"},
		{"ListOfStrings", `[{"title":"a"},"x"]`, "passage 2 is a string, not an object"},
		{"ListOfLists", `[["Oslo", ["a", "b"]]]`, "passage 1 is a list, not an object"},
		{"TitleNumber", `[{"title":1,"text":"x"}]`, "passage 1: title must be a string, not a number"},
		{"TextObject", `[{"title":"a","text":{"b":1}}]`, "passage 1: the text must be a string or a list of sentences"},
		{"SentenceNumber", `[{"title":"a","text":["b",2]}]`, "passage 1: the text must be a string or a list of sentences"},
		{"ValueObject", `{"a":"b","c":{"d":1}}`, `passage 2 ("c"): the value must be a text or a list of sentences`},
		{"ValueNumber", `{"a":5}`, `passage 1 ("a"): the value must be a text or a list of sentences`},
		{"Neither", `[{"title":"a","text":"b"},{"title":" ","text":""}]`, "passage 2 has neither title nor text"},
		{"NeitherNull", `[null]`, "passage 1 has neither title nor text"},
		{"NeitherExtra", `[{"id":7}]`, "passage 1 has neither title nor text"},
		{"NeitherObject", `{"":[]}`, "passage 1 has neither title nor text"},
		{"Trailing", `[{"title":"a"}] [{"title":"b"}]`, "more JSON after its end"},
		{"TrailingGarbage", `{"a":"b"} x`, "not valid JSON"},
		{"BadSyntax", `[{"title":"a",}]`, "not valid JSON: passage 1: byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := extract.ReadCorpus(strings.NewReader(tc.data))
			if err == nil {
				t.Fatalf("read %q, want an error with %q", p, tc.want)
			}
			var e *extract.Error
			if !errorsAs(err, &e) || e.Kind != extract.KindInvalid || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("%v (kind %s), want an invalid *Error with %q", err, extract.KindOf(err), tc.want)
			}
		})
	}
}

// A reader that fails is an invalid error saying the corpus could not be
// read.
func TestReadCorpus_ReadError(t *testing.T) {
	t.Parallel()
	r := io.MultiReader(strings.NewReader(`[{"title":"a","text":"b"},`), iotest.ErrReader(errors.New("disk gone")))
	_, err := extract.ReadCorpus(r)
	if extract.KindOf(err) != extract.KindInvalid || extract.MessageOf(err) != "cannot read the corpus at passage 2" || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("%v (kind %s)", err, extract.KindOf(err))
	}
}

// errorsAs is errors.As for *extract.Error: the error itself must be one.
func errorsAs(err error, target **extract.Error) bool {
	e, ok := err.(*extract.Error)
	*target = e
	return ok
}

// The shared multi-hop corpora read with their passage counts, in file
// order, with the texts the sets define (HotpotQA's sentences joined with "").
func TestReadCorpus_MultiHop(t *testing.T) {
	t.Parallel()
	t.Run("HotpotQA", func(t *testing.T) {
		t.Parallel()
		path := testkit.Path(t, "multihop/hotpotqa_train_corpus.json")
		got, err := readCorpusFile(t, path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 994 {
			t.Fatalf("%d passages, want 994", len(got))
		}
		data, _ := os.ReadFile(path)
		var m map[string][]string
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		// The keys in file order, read token by token.
		dec := json.NewDecoder(bytes.NewReader(data))
		var keys []string
		for depth := 0; ; {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			default:
				if s, ok := tok.(string); ok && depth == 1 {
					keys = append(keys, s)
				}
			}
		}
		for i, p := range got {
			if want := strings.Join(m[p.Title], ""); p.Text != want || p.Text == "" {
				t.Fatalf("passage %d %q: %q, want %q", i, p.Title, p.Text, want)
			}
			if p.Title != keys[i] {
				t.Fatalf("passage %d is %q, the file's key %d is %q", i, p.Title, i, keys[i])
			}
		}
		if got[0].Title != "Demon Dice" {
			t.Fatalf("first passage %q, want Demon Dice", got[0].Title)
		}
	})
	t.Run("MuSiQue", func(t *testing.T) {
		t.Parallel()
		path := testkit.Path(t, "multihop/musique_train_corpus.json")
		got, err := readCorpusFile(t, path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		var want []extract.Passage
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1890 || len(want) != 1890 {
			t.Fatalf("%d passages (json.Unmarshal %d), want 1890", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("passage %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}

// A corpus of tens of MB is read as a stream in well under a second a
// megabyte, holding little beyond its passages.
func TestReadCorpus_Large(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("large corpus")
	}
	data := largeCorpus(20_000, 1000)
	start := time.Now()
	got, err := extract.ReadCorpus(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 20_000 || got[19_999].Title != "Passage 19999" {
		t.Fatalf("%d passages, last %q", len(got), got[len(got)-1].Title)
	}
	t.Logf("%.1f MB, %d passages in %v", float64(len(data))/1e6, len(got), time.Since(start))
}

func BenchmarkReadCorpus(b *testing.B) {
	data := largeCorpus(20_000, 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := extract.ReadCorpus(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// largeCorpus builds a list corpus of n passages of about size bytes each.
func largeCorpus(n, size int) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	sentence := "Ada Lovelace wrote the first program for Babbage's engine in 1843. "
	text := strings.Repeat(sentence, size/len(sentence)+1)[:size]
	for i := range n {
		if i > 0 {
			buf.WriteString(",\n")
		}
		p, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Passage %d", i), "text": text, "idx": i})
		buf.Write(p)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

// FuzzReadCorpus: any input is refused with an invalid *Error or read into
// passages that each have a title or a text.
func FuzzReadCorpus(f *testing.F) {
	f.Add([]byte(`[{"title":"Oslo","text":"Oslo is the capital of Norway."}]`))
	f.Add([]byte(`{"Zebra":["Zebras are equines.", " Striped."],"Okapi":"An okapi."}`))
	f.Add([]byte("\ufeff[{\"title\":\"a\",\"paragraph_text\":[\"b\"]}]"))
	f.Add([]byte(`[{"title":1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := extract.ReadCorpus(bytes.NewReader(data))
		if err != nil {
			if _, ok := err.(*extract.Error); !ok || extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error %T of kind %s: %v", err, extract.KindOf(err), err)
			}
			return
		}
		if len(got) == 0 {
			t.Fatal("no passages and no error")
		}
		for i, p := range got {
			if strings.TrimSpace(p.Title) == "" && strings.TrimSpace(p.Text) == "" {
				t.Fatalf("passage %d is empty", i)
			}
		}
	})
}

package extract

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// Passage is one passage of a corpus: a title and its text.
type Passage struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Content is the text a passage becomes as a document and a chunk: its
// title, a blank line (so the title reads as a heading, not as the start
// of the first sentence), then its text. A passage without a title is
// its text alone.
func (p Passage) Content() string {
	if strings.TrimSpace(p.Title) == "" {
		return p.Text
	}
	if strings.TrimSpace(p.Text) == "" {
		return p.Title
	}
	return p.Title + "\n\n" + p.Text
}

// ReadCorpus reads a JSON corpus of passages in the forms multi-hop QA sets
// ship (HippoRAG's MuSiQue, 2WikiMultiHopQA and HotpotQA corpora):
//
//   - a list of {"title", "text"} objects; other fields are ignored, and
//     "paragraph_text" (MuSiQue's paragraphs) is taken when "text" is absent;
//   - an object title -> [sentences], the sentences joined with "" (they
//     carry their own leading spaces, as HotpotQA's do);
//   - an object title -> text.
//
// A text may also be a list of sentences in the list form. Passages keep
// their order: the order of the list, or of the keys in the file. A UTF-8
// byte-order mark is skipped. The input is decoded as a stream, one passage
// at a time.
//
// Errors are *Error of KindInvalid: input that is not JSON, an empty input
// or corpus, a value of the wrong shape, and a passage with neither title
// nor text, each named by its position.
func ReadCorpus(r io.Reader) ([]Passage, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	dec := json.NewDecoder(br)
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, Errorf(KindInvalid, "the corpus is empty")
	}
	if err != nil {
		return nil, corpusJSONError(dec, err, "")
	}
	var out []Passage
	switch tok {
	case json.Delim('['):
		out, err = readCorpusList(dec)
	case json.Delim('{'):
		out, err = readCorpusObject(dec)
	default:
		return nil, Errorf(KindInvalid, "the corpus must be a list of {\"title\", \"text\"} objects or an object of title -> text or sentences, not %s", tokenKind(tok))
	}
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, corpusJSONError(dec, err, "after the corpus")
		}
		return nil, Errorf(KindInvalid, "the corpus has more JSON after its end (byte %d); a corpus is one list or one object", dec.InputOffset())
	}
	if len(out) == 0 {
		return nil, Errorf(KindInvalid, "the corpus holds no passages")
	}
	return out, nil
}

// corpusPassage is a passage of the list form as it is decoded.
type corpusPassage struct {
	Title         *string     `json:"title"`
	Text          *corpusText `json:"text"`
	ParagraphText *corpusText `json:"paragraph_text"`
}

// corpusText is a text or a list of sentences, joined with "".
type corpusText string

// UnmarshalJSON takes a string, a list of strings or null.
func (t *corpusText) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = corpusText(s)
		return nil
	case len(b) > 0 && b[0] == '[':
		var ss []string
		if err := json.Unmarshal(b, &ss); err != nil {
			return errCorpusText
		}
		*t = corpusText(strings.Join(ss, ""))
		return nil
	case string(b) == "null":
		return nil
	}
	return errCorpusText
}

// errCorpusText is a text that is neither a string nor a list of strings.
var errCorpusText = errors.New("the text must be a string or a list of sentences (strings)")

// readCorpusList reads the list form after its opening bracket.
func readCorpusList(dec *json.Decoder) ([]Passage, error) {
	var out []Passage
	for n := 1; dec.More(); n++ {
		var p corpusPassage
		if err := dec.Decode(&p); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) && typ.Field == "" {
				return nil, Errorf(KindInvalid, "passage %d is %s, not an object {\"title\", \"text\"}", n, jsonValueName(typ.Value))
			}
			return nil, corpusJSONError(dec, err, "passage "+strconv.Itoa(n))
		}
		var q Passage
		if p.Title != nil {
			q.Title = *p.Title
		}
		switch {
		case p.Text != nil:
			q.Text = string(*p.Text)
		case p.ParagraphText != nil:
			q.Text = string(*p.ParagraphText)
		}
		if strings.TrimSpace(q.Title) == "" && strings.TrimSpace(q.Text) == "" {
			return nil, Errorf(KindInvalid, "passage %d has neither title nor text", n)
		}
		out = append(out, q)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, corpusJSONError(dec, err, "")
	}
	return out, nil
}

// readCorpusObject reads the object form after its opening brace.
func readCorpusObject(dec *json.Decoder) ([]Passage, error) {
	var out []Passage
	for n := 1; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, corpusJSONError(dec, err, "passage "+strconv.Itoa(n))
		}
		title, _ := tok.(string)
		var text corpusText
		if err := dec.Decode(&text); err != nil {
			if errors.Is(err, errCorpusText) {
				return nil, Errorf(KindInvalid, "passage %d (%q): the value must be a text or a list of sentences", n, Clip(title, 80))
			}
			return nil, corpusJSONError(dec, err, "passage "+strconv.Itoa(n)+" ("+strconv.Quote(Clip(title, 80))+")")
		}
		if strings.TrimSpace(title) == "" && strings.TrimSpace(string(text)) == "" {
			return nil, Errorf(KindInvalid, "passage %d has neither title nor text", n)
		}
		out = append(out, Passage{Title: title, Text: string(text)})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, corpusJSONError(dec, err, "")
	}
	return out, nil
}

// corpusJSONError turns a decoding error into an invalid *Error saying
// where it happened.
func corpusJSONError(dec *json.Decoder, err error, where string) error {
	if where != "" {
		where += ": "
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Wrap(KindInvalid, err, "the corpus is not valid JSON: %sit ends early (byte %d)", where, dec.InputOffset())
	case errors.As(err, &syn):
		return Wrap(KindInvalid, err, "the corpus is not valid JSON: %sbyte %d: %s", where, syn.Offset, syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the value"
		}
		return Wrap(KindInvalid, err, "the corpus has a value of the wrong kind: %s%s must be %s, not %s", where, field, jsonKind(typ.Type), jsonValueName(typ.Value))
	case errors.Is(err, errCorpusText):
		return Wrap(KindInvalid, err, "the corpus has a value of the wrong kind: %s%s", where, err.Error())
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if where != "" {
		return Wrap(KindInvalid, err, "cannot read the corpus at %s", strings.TrimSuffix(where, ": "))
	}
	return Wrap(KindInvalid, err, "cannot read the corpus")
}

// tokenKind names the JSON kind of a top-level token.
func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "true or false"
	case nil:
		return "null"
	}
	return "another kind of value"
}

// jsonValueName names the JSON value kind the decoder reports ("string",
// "number", "array", "object", "bool").
func jsonValueName(v string) string {
	switch v {
	case "string":
		return "a string"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	}
	if strings.HasPrefix(v, "number") {
		return "a number"
	}
	return v
}

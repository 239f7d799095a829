package eval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode"

	"github.com/kgstudio/kgstudio/extract"
)

// Question is one question of a user's question set with what a right
// answer must hold: the documents or passages its evidence is in, the
// entities the context should name, and texts a right answer contains.
// A question needs at least one of them to be scored.
type Question struct {
	ID       string `json:"id,omitempty"`
	Question string `json:"question"`
	// Documents are document names (with or without their extension).
	Documents []string `json:"documents,omitempty"`
	// Passages are passage texts: a retrieved chunk that holds one (or
	// that one holds) is its evidence.
	Passages []string `json:"passages,omitempty"`
	// Entities are names the retrieved entities should include.
	Entities []string `json:"entities,omitempty"`
	// Answers are texts of which a right answer contains one.
	Answers []string `json:"answers,omitempty"`
	// Match is how evidence is counted: "all" (also when empty: recall is
	// the share of the items found) or "any" (a question is found when
	// one item is, as LoCoMo's evidence turns are scored).
	Match EvidenceMatch `json:"match,omitempty"`
}

// EvidenceMatch says how much of a question's evidence a retrieval must find.
type EvidenceMatch string

// Evidence matching rules (Question.Match).
const (
	MatchAll EvidenceMatch = "all"
	MatchAny EvidenceMatch = "any"
)

// Recall is the question's evidence recall given found of its items:
// their share, or 1 when one was found and the question matches any.
func (q Question) Recall(found int) float64 {
	n := q.Evidence()
	switch {
	case n == 0:
		return 0
	case q.Match == MatchAny && found > 0:
		return 1
	case q.Match == MatchAny:
		return 0
	}
	return float64(found) / float64(n)
}

// Evidence counts a question's expected evidence items.
func (q Question) Evidence() int { return len(q.Documents) + len(q.Passages) + len(q.Entities) }

// QuestionSet is an extraction's questions.
type QuestionSet struct {
	Questions []Question `json:"questions"`
}

// MaxQuestions bounds a question set.
const MaxQuestions = 5000

// ReadQuestions reads a question set file by its name and content:
//   - kgstudio's JSON, {"questions": [...]} or a list of questions;
//   - CSV with a header naming question and any of answers, documents,
//     passages, entities (several values in a cell split on "|");
//   - a multi-hop set (HotpotQA, 2WikiMultiHopQA, MuSiQue; see
//     ReadMultiHop): supporting passages by text as passages, by title
//     as documents;
//   - a LoCoMo conversation or a LongMemEval file: the evidence turns as
//     passages, a question found when one of them is.
//
// A question with nothing to score it by is refused, naming it.
func ReadQuestions(name string, data []byte) (QuestionSet, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "the file is empty: a question set needs questions")
	}
	var set QuestionSet
	var err error
	switch {
	case strings.EqualFold(path.Ext(name), ".csv") || (trimmed[0] != '{' && trimmed[0] != '['):
		set, err = readQuestionsCSV(data)
	case trimmed[0] == '{' && isLoCoMo(trimmed):
		set, err = readLoCoMoQuestions(trimmed)
	case trimmed[0] == '{':
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if derr := dec.Decode(&set); derr != nil {
			err = extract.Errorf(extract.KindInvalid, "read the questions: %s", extract.JSONProblem(trimmed, derr))
		}
	default:
		set, err = readQuestionList(trimmed)
	}
	if err != nil {
		return QuestionSet{}, err
	}
	return set, set.check()
}

// isLoCoMo reports whether a JSON object is a LoCoMo conversation with
// its questions ("qa" beside the sessions, or in a "conversation" object).
func isLoCoMo(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	_, qa := top["qa"]
	_, speaker := top["speaker_a"]
	_, conv := top["conversation"]
	return qa && (speaker || conv)
}

// readLoCoMoQuestions reads a LoCoMo conversation's questions: each
// question's evidence turns ("D1:3") as passages, the turns' own texts,
// matched as LoCoMo scores them (found when one is); its answer as the
// expected answer. Questions whose evidence names no turn of the
// conversation are left out, as kgstudio eval --format locomo leaves them.
func readLoCoMoQuestions(data []byte) (QuestionSet, error) {
	var top struct {
		QA []struct {
			Question string `json:"question"`
			Answer   any    `json:"answer"`
			Evidence []any  `json:"evidence"`
		} `json:"qa"`
		Conversation json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "read the LoCoMo questions: %s", extract.JSONProblem(data, err))
	}
	sessions := data
	if len(top.Conversation) > 0 {
		sessions = top.Conversation
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(sessions, &raw); err != nil {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "read the LoCoMo sessions: %v", err)
	}
	text := map[string]string{}
	for key, r := range raw {
		if rest, ok := strings.CutPrefix(key, "session_"); !ok || strings.Contains(rest, "_") {
			continue
		}
		var turns []struct {
			ID   string `json:"dia_id"`
			Text string `json:"text"`
		}
		if json.Unmarshal(r, &turns) != nil {
			continue
		}
		for _, t := range turns {
			text[t.ID] = strings.TrimSpace(t.Text)
		}
	}
	var set QuestionSet
	for _, qa := range top.QA {
		q := Question{Question: strings.TrimSpace(qa.Question), Match: MatchAny}
		seen := map[string]bool{}
		for _, ev := range qa.Evidence {
			s, _ := ev.(string)
			for _, m := range evidenceID.FindAllStringSubmatch(s, -1) {
				id := "D" + m[1] + ":" + m[2]
				if t := text[id]; t != "" && !seen[id] {
					seen[id] = true
					q.Passages = append(q.Passages, t)
				}
			}
		}
		if q.Question == "" || len(q.Passages) == 0 {
			continue
		}
		if a := strings.TrimSpace(fmt.Sprint(qa.Answer)); qa.Answer != nil && a != "" {
			q.Answers = []string{a}
		}
		set.Questions = append(set.Questions, q)
	}
	return set, nil
}

// readLongMemEvalQuestions reads LongMemEval's questions: the turns
// marked has_answer as passages, found when one is (the share of
// evidence rounds retrieved is what kgstudio eval --format longmemeval
// reports, per question); the answer as the expected answer. Questions
// with no marked turn (abstention questions) are left out.
func readLongMemEvalQuestions(data []byte) (QuestionSet, error) {
	var raw []struct {
		ID       string `json:"question_id"`
		Question string `json:"question"`
		Answer   any    `json:"answer"`
		Sessions [][]struct {
			Content   string `json:"content"`
			HasAnswer bool   `json:"has_answer"`
		} `json:"haystack_sessions"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "read the LongMemEval questions: %s", extract.JSONProblem(data, err))
	}
	var set QuestionSet
	for _, r := range raw {
		q := Question{ID: r.ID, Question: strings.TrimSpace(r.Question), Match: MatchAny}
		for _, s := range r.Sessions {
			for _, t := range s {
				if c := strings.TrimSpace(t.Content); t.HasAnswer && c != "" {
					q.Passages = append(q.Passages, c)
				}
			}
		}
		if q.Question == "" || len(q.Passages) == 0 {
			continue
		}
		if a := strings.TrimSpace(fmt.Sprint(r.Answer)); r.Answer != nil && a != "" {
			q.Answers = []string{a}
		}
		set.Questions = append(set.Questions, q)
	}
	return set, nil
}

// readQuestionList reads a JSON list: kgstudio's questions, or a
// multi-hop set.
func readQuestionList(data []byte) (QuestionSet, error) {
	var probe []map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "read the questions: %s", extract.JSONProblem(data, err))
	}
	multihop, longmem := false, false
	for _, p := range probe {
		_, facts := p["supporting_facts"]
		_, paras := p["paragraphs"]
		_, haystack := p["haystack_sessions"]
		multihop = multihop || facts || paras
		longmem = longmem || haystack
	}
	if longmem {
		return readLongMemEvalQuestions(data)
	}
	if !multihop {
		var qs []Question
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&qs); err != nil {
			return QuestionSet{}, extract.Errorf(extract.KindInvalid, "read the questions: %s", extract.JSONProblem(data, err))
		}
		return QuestionSet{Questions: qs}, nil
	}
	mh, err := ReadMultiHop(data)
	if err != nil {
		return QuestionSet{}, err
	}
	var set QuestionSet
	for _, m := range mh {
		q := Question{ID: m.ID, Question: m.Question}
		for _, g := range m.Gold {
			if g.Text != "" {
				q.Passages = append(q.Passages, g.Text)
			} else {
				q.Documents = append(q.Documents, g.Title)
			}
		}
		set.Questions = append(set.Questions, q)
	}
	return set, nil
}

// readQuestionsCSV reads a CSV question set.
func readQuestionsCSV(data []byte) (QuestionSet, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "read the questions' header: %v", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	qi, ok := col["question"]
	if !ok {
		return QuestionSet{}, extract.Errorf(extract.KindInvalid, "not a question set: as JSON it would start with { or [, and as CSV its header names no question column (columns: question, answers, documents, passages, entities, id)")
	}
	cell := func(rec []string, names ...string) []string {
		for _, n := range names {
			if i, ok := col[n]; ok && i < len(rec) {
				var out []string
				for _, v := range strings.Split(rec[i], "|") {
					if v = strings.TrimSpace(v); v != "" {
						out = append(out, v)
					}
				}
				return out
			}
		}
		return nil
	}
	var set QuestionSet
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return QuestionSet{}, extract.Errorf(extract.KindInvalid, "questions line %d: %v", line, err)
		}
		if qi >= len(rec) || strings.TrimSpace(rec[qi]) == "" {
			continue
		}
		q := Question{Question: strings.TrimSpace(rec[qi]), Answers: cell(rec, "answers", "answer"),
			Documents: cell(rec, "documents", "document"), Passages: cell(rec, "passages", "passage", "evidence"),
			Entities: cell(rec, "entities", "entity")}
		if id := cell(rec, "id"); len(id) > 0 {
			q.ID = id[0]
		}
		set.Questions = append(set.Questions, q)
	}
	return set, nil
}

// check refuses an empty set, one too large, and a question with nothing
// to score it by; it numbers the questions without an id.
func (s *QuestionSet) check() error {
	if len(s.Questions) == 0 {
		return extract.Errorf(extract.KindInvalid, "the question set has no questions")
	}
	if len(s.Questions) > MaxQuestions {
		return extract.Errorf(extract.KindInvalid, "the question set has %d questions; at most %d are scored", len(s.Questions), MaxQuestions)
	}
	for i := range s.Questions {
		q := &s.Questions[i]
		q.Question = strings.TrimSpace(q.Question)
		if q.ID == "" {
			q.ID = fmt.Sprint(i + 1)
		}
		if q.Question == "" {
			return extract.Errorf(extract.KindInvalid, "question %s has no text", q.ID)
		}
		if q.Evidence() == 0 && len(q.Answers) == 0 {
			return extract.Errorf(extract.KindInvalid, "question %s (%q) says nothing a right answer holds: give answers, documents, passages or entities", q.ID, extract.Clip(q.Question, 60))
		}
	}
	return nil
}

// Retrieved is what one query returned for a question, best first: its
// chunks (with their documents' names) and entity names, and its answer.
type Retrieved struct {
	Chunks   []RetrievedChunk
	Entities []string
	Answer   string
}

// RetrievedChunk is one retrieved chunk with its document's name.
type RetrievedChunk struct {
	Document string
	Text     string
}

// EvidenceFound counts how many of q's evidence items the first k of r's
// chunks and entities hold: a document when one of the chunks is of it
// (its name compared without case or extension), a passage when a chunk
// holds it or it holds the chunk (compared without case, punctuation or
// spacing), an entity when an entity of that name was retrieved or a
// chunk's text names it.
func EvidenceFound(q Question, r Retrieved, k int) int {
	chunks := r.Chunks[:min(k, len(r.Chunks))]
	entities := r.Entities[:min(k, len(r.Entities))]
	found := 0
	for _, d := range q.Documents {
		want := docStem(d)
		for _, c := range chunks {
			if docStem(c.Document) == want {
				found++
				break
			}
		}
	}
	for _, p := range q.Passages {
		want := squash(p)
		for _, c := range chunks {
			if got := squash(c.Text); want != "" && got != "" && (strings.Contains(got, want) || strings.Contains(want, got)) {
				found++
				break
			}
		}
	}
	for _, e := range q.Entities {
		if namesEntity(e, entities, chunks) {
			found++
		}
	}
	return found
}

// namesEntity reports whether the retrieved context names an entity: an
// entity of that name, or a chunk whose text holds the name (a mode that
// retrieves passages only names entities in them).
func namesEntity(name string, entities []string, chunks []RetrievedChunk) bool {
	want := extract.NormalizeName(name)
	for _, got := range entities {
		if extract.NormalizeName(got) == want {
			return true
		}
	}
	if want == "" {
		return false
	}
	for _, c := range chunks {
		if strings.Contains(extract.NormalizeName(c.Text), want) {
			return true
		}
	}
	return false
}

// AnswerHolds reports whether an answer contains one of q's answers
// (compared without case, punctuation or spacing).
func AnswerHolds(q Question, answer string) bool {
	got := squash(answer)
	for _, a := range q.Answers {
		if w := squash(a); w != "" && strings.Contains(got, w) {
			return true
		}
	}
	return false
}

func docStem(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	return strings.TrimSuffix(name, path.Ext(name))
}

// squash keeps a text's letters and digits, lower-cased, so texts compare
// whatever their spacing and punctuation.
func squash(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

package eval

import (
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/extract"
)

// A question set reads from kgstudio's JSON (an object or a list), from
// CSV with values split on |, and from a multi-hop file (passages by
// text, by title as documents); a question with nothing to score by, an
// empty file and an unknown field are refused with what is wrong.
func TestReadQuestions(t *testing.T) {
	obj, err := ReadQuestions("q.json", []byte(`{"questions": [{"question": " Who? ", "answers": ["Ada"]}, {"id": "x", "question": "Where?", "documents": ["a.txt"]}]}`))
	if err != nil || len(obj.Questions) != 2 || obj.Questions[0].ID != "1" || obj.Questions[0].Question != "Who?" || obj.Questions[1].ID != "x" {
		t.Fatalf("object: %+v, %v", obj, err)
	}
	list, err := ReadQuestions("q.json", []byte("\ufeff"+`[{"question": "Who?", "entities": ["Ada"]}]`))
	if err != nil || len(list.Questions) != 1 || list.Questions[0].Entities[0] != "Ada" {
		t.Fatalf("list: %+v, %v", list, err)
	}
	csv, err := ReadQuestions("q.csv", []byte("Question,Answers,documents,passages\nWho worked with Babbage?,Ada Lovelace| Lovelace ,ada.txt,\"She worked with Charles Babbage, on the engine.\"\n,skipped,,\n"))
	if err != nil || len(csv.Questions) != 1 || len(csv.Questions[0].Answers) != 2 || csv.Questions[0].Answers[1] != "Lovelace" ||
		csv.Questions[0].Passages[0] != "She worked with Charles Babbage, on the engine." {
		t.Fatalf("csv: %+v, %v", csv, err)
	}
	mh, err := ReadQuestions("dev.json", []byte(`[{"_id": "h1", "question": "Which?", "supporting_facts": [["Ada Lovelace", 0], ["Charles Babbage", 1]]},
		{"id": "m1", "question": "What?", "paragraphs": [{"title": "T", "paragraph_text": "Text of T.", "is_supporting": true}, {"title": "U", "paragraph_text": "No.", "is_supporting": false}]}]`))
	if err != nil || len(mh.Questions) != 2 || strings.Join(mh.Questions[0].Documents, "|") != "Ada Lovelace|Charles Babbage" || mh.Questions[1].Passages[0] != "Text of T." {
		t.Fatalf("multi-hop: %+v, %v", mh, err)
	}
	for data, want := range map[string]string{
		"":                                      "is empty",
		`{"questions": [{"question": "Who?"}]}`: "says nothing a right answer holds",
		`{"questions": [{"question": "Who?", "answer": "x"}]}`: `unknown field "answer"`,
		`{"questions": []}`:                    "no questions",
		`[{"question": "", "answers": ["x"]}]`: "has no text",
	} {
		if _, err := ReadQuestions("q.json", []byte(data)); err == nil || !strings.Contains(err.Error(), want) || extract.KindOf(err) != extract.KindInvalid {
			t.Errorf("ReadQuestions(%q): %v; want %q", data, err, want)
		}
	}
	if set, err := ReadQuestions("q.txt", []byte("question,answers\nWho?,Ada\n")); err != nil || len(set.Questions) != 1 {
		t.Errorf("a CSV named .txt: %+v, %v", set, err)
	}
	if _, err := ReadQuestions("q.csv", []byte("text,answers\nWho?,x\n")); err == nil || !strings.Contains(err.Error(), "no question column") {
		t.Errorf("CSV without a question column: %v", err)
	}
}

// Evidence is found in the first k chunks and entities only: a document
// by its name without case or extension, a passage held by a chunk (or
// holding it) whatever its spacing and punctuation, an entity by its
// name; an answer holds an expected answer the same way.
func TestEvidenceFound(t *testing.T) {
	q := Question{Documents: []string{"Ada.TXT", "turing"}, Passages: []string{"worked with  Charles Babbage!"}, Entities: []string{"Lord Byron"}, Answers: []string{"Lord Byron"}}
	r := Retrieved{
		Chunks: []RetrievedChunk{
			{Document: "curie.txt", Text: "Marie Curie was born in Warsaw."},
			{Document: "ada.txt", Text: "Ada Lovelace worked with Charles Babbage on the engine."},
			{Document: "turing.md", Text: "Alan Turing."},
		},
		Entities: []string{"Ada Lovelace", "lord byron"},
		Answer:   "Her father was lord  byron.",
	}
	for k, want := range map[int]int{1: 0, 2: 3, 3: 4} {
		if got := EvidenceFound(q, r, k); got != want {
			t.Errorf("k=%d: found %d of %d; want %d", k, got, q.Evidence(), want)
		}
	}
	if !AnswerHolds(q, r.Answer) || AnswerHolds(q, "Byron") || AnswerHolds(Question{Answers: []string{"!!"}}, "anything") {
		t.Error("AnswerHolds")
	}
	// An entity a retrieved chunk names counts, as for a mode that
	// retrieves passages only.
	named := Question{Entities: []string{"Charles Babbage", "Pierre Curie"}}
	if got := EvidenceFound(named, Retrieved{Chunks: r.Chunks}, 2); got != 1 {
		t.Errorf("entities named in chunks: %d, want 1", got)
	}
}

// A LoCoMo conversation's questions take their evidence turns' texts and
// match any; a LongMemEval file's take the turns marked has_answer and
// leave out the questions with none.
func TestReadQuestions_Dialogues(t *testing.T) {
	locomo := []byte(`{"speaker_a": "Ann", "speaker_b": "Bo", "session_1_date_time": "1 May 2023",
		"session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."}, {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely!"}],
		"qa": [{"question": "What did Ann adopt?", "answer": "a cat", "evidence": ["D1:1"], "category": 1},
			{"question": "Unknown?", "answer": "x", "evidence": ["D9:9"]}]}`)
	set, err := ReadQuestions("conv.json", locomo)
	if err != nil || len(set.Questions) != 1 || set.Questions[0].Passages[0] != "I adopted a cat." || set.Questions[0].Match != MatchAny || set.Questions[0].Answers[0] != "a cat" {
		t.Fatalf("LoCoMo: %+v, %v", set, err)
	}
	lme := []byte(`[{"question_id": "q1", "question": "Which city?", "answer": "Oslo", "haystack_sessions": [[{"role": "user", "content": "I moved to Oslo.", "has_answer": true}, {"role": "assistant", "content": "Nice."}]]},
		{"question_id": "q2_abs", "question": "Which dog?", "answer": "none", "haystack_sessions": [[{"role": "user", "content": "Hi."}]]}]`)
	set, err = ReadQuestions("lme.json", lme)
	if err != nil || len(set.Questions) != 1 || set.Questions[0].ID != "q1" || set.Questions[0].Passages[0] != "I moved to Oslo." || set.Questions[0].Match != MatchAny {
		t.Fatalf("LongMemEval: %+v, %v", set, err)
	}
	// Found when one passage is: recall 1, not a half.
	q := Question{Passages: []string{"a b", "c d"}, Match: MatchAny}
	if q.Recall(1) != 1 || q.Recall(0) != 0 || (Question{Passages: []string{"x", "y"}}).Recall(1) != 0.5 {
		t.Error("Recall")
	}
}

// A question set from any bytes, under any name, is read or refused as
// invalid; a set read has questions, each with text, an id and something
// to score it by, and scoring it against anything does not fail.
func FuzzReadQuestions(f *testing.F) {
	f.Add("q.json", `{"questions": [{"question": "Who?", "answers": ["Ada"], "passages": ["x"]}]}`)
	f.Add("q.csv", "question,answers,documents\nWho?,Ada|Lovelace,a.txt\n")
	f.Add("q.json", `[{"_id": "1", "question": "Q?", "supporting_facts": [["T", 0]]}]`)
	f.Add("c.json", `{"speaker_a": "A", "session_1": [{"dia_id": "D1:1", "text": "hi"}], "qa": [{"question": "Q?", "evidence": ["D1:1"]}]}`)
	f.Add("l.json", `[{"question": "Q?", "haystack_sessions": [[{"content": "c", "has_answer": true}]]}]`)
	f.Fuzz(func(t *testing.T, name, in string) {
		set, err := ReadQuestions(name, []byte(in))
		if err != nil {
			if extract.KindOf(err) != extract.KindInvalid {
				t.Fatalf("error kind %s: %v", extract.KindOf(err), err)
			}
			return
		}
		if len(set.Questions) == 0 || len(set.Questions) > MaxQuestions {
			t.Fatalf("%d questions", len(set.Questions))
		}
		r := Retrieved{Chunks: []RetrievedChunk{{Document: in, Text: in}}, Entities: []string{in}, Answer: in}
		for _, q := range set.Questions {
			if q.ID == "" || q.Question == "" || (q.Evidence() == 0 && len(q.Answers) == 0) {
				t.Fatalf("question %+v", q)
			}
			if x := q.Recall(EvidenceFound(q, r, 10)); x < 0 || x > 1 {
				t.Fatalf("recall %v", x)
			}
			_ = AnswerHolds(q, in)
		}
	})
}

package dialogue

import (
	"context"
	"fmt"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testkit"

	"github.com/kgstudio/kgstudio/extract"
)

func BenchmarkParseAll_LoCoMo(b *testing.B) {
	data := mustRead(b, testkit.Path(b, "dialogues/locomo10_conv26.json"))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseAll(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseOps_Seed(b *testing.B) {
	out := string(mustRead(b, seedOpsPath))
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		ParseOps(out)
	}
}

func BenchmarkMemory_ApplySeed(b *testing.B) {
	ops, _ := ParseOps(string(mustRead(b, seedOpsPath)))
	for b.Loop() {
		m := NewMemory()
		m.Apply(0, ops)
		_ = m.Graph()
	}
}

// BenchmarkOffline_LoCoMo runs the offline strategy over a whole LoCoMo
// conversation (419 turns) and rebuilds the graph at the middle turn.
func BenchmarkOffline_LoCoMo(b *testing.B) {
	d, err := Parse(mustRead(b, testkit.Path(b, "dialogues/locomo10_conv26.json")))
	if err != nil {
		b.Fatal(err)
	}
	var log []extract.Operation
	for b.Loop() {
		log = log[:0]
		mem, err := RunDialogue(context.Background(), d, NewOffline(), RunOptions{}, func(_ int, res extract.ChunkResult) error {
			log = append(log, res.Operations...)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		_ = mem.Graph()
		_ = Rebuild(log, len(Segments(d))/2).Graph()
	}
}

// BenchmarkOffline_Long runs the offline strategy over a conversation of
// 1,000 and of 10,000 rounds, each naming a person and a place not met
// before, so the memory grows with the rounds: a round's cost must not
// grow with it (ns/round about the same at both lengths).
func BenchmarkOffline_Long(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		d := &Dialogue{Title: "long"}
		s := Session{ID: "s1", Start: "2023-05-01T10:00:00Z"}
		for i := range n {
			s.Turns = append(s.Turns,
				Turn{Role: RoleUser, Text: fmt.Sprintf("I met Person%d Smith in Town%d last week.", i, i)},
				Turn{Role: RoleAssistant, Text: "That sounds nice."})
		}
		d.Sessions = []Session{s}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := RunDialogue(context.Background(), d, NewOffline(), RunOptions{}, func(int, extract.ChunkResult) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/round")
		})
	}
}

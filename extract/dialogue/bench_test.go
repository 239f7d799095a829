package dialogue

import (
	"context"
	"testing"

	"github.com/kgstudio/kgstudio/internal/testdata"

	"github.com/kgstudio/kgstudio/extract"
)

func BenchmarkParseAll_LoCoMo(b *testing.B) {
	data := mustRead(b, testdata.Path(b, "dialogues/locomo10_conv26.json"))
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
	d, err := Parse(mustRead(b, testdata.Path(b, "dialogues/locomo10_conv26.json")))
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
